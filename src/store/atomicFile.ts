import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { StoreFullError } from '../api/errors.js';

/** A failed write's error: StoreFullError when the disk has no room, else as it came. */
export function writeError(err: unknown, file: string): unknown {
  return StoreFullError.of(err, file) ?? err;
}

/**
 * Write to a temporary sibling, then rename: readers see the old file or the new
 * one, never half of one. A write that fails leaves no temporary file behind, so
 * the space it took is free again; its error is as the system gave it (the CLI's
 * -o says it as an output's; the store's writes below say it as the store's).
 */
export async function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.writeFile(tmp, content);
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** A file of the job store, written as writeFileAtomic does; a full disk is a StoreFullError. */
export async function writeStoreFile(file: string, content: string | Uint8Array): Promise<void> {
  await writeFileAtomic(file, content).catch((err: unknown) => {
    throw writeError(err, file);
  });
}

/** A JSON file of the job store (writeStoreFile). */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeStoreFile(file, JSON.stringify(value, null, 2) + '\n');
}

export async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readText(file)) as T;
}

/** Bytes asked for at a time: the store's files are mostly a few kB, read at one go. */
const READ_CHUNK = 16 * 1024;

/**
 * A file's text (UTF-8), in two round trips to libuv's threads (open, read) where readFile takes four (it
 * also stats the file, and closes it before it answers): a file of the store is read whole at one go, and is
 * closed after.
 */
export async function readText(file: string): Promise<string> {
  const handle = await fs.open(file, 'r');
  try {
    return await readAll(handle);
  } finally {
    handle.close().catch(() => undefined);
  }
}

/** The text (UTF-8) of a file opened and not read yet, as readText reads it. */
async function readAll(handle: fs.FileHandle): Promise<string> {
  const chunks: Buffer[] = [];
  for (;;) {
    const buffer = Buffer.allocUnsafe(READ_CHUNK);
    const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK, null);
    chunks.push(buffer.subarray(0, bytesRead));
    // A regular file reads short only at its end.
    if (bytesRead < READ_CHUNK) break;
  }
  return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** The token a lock file holds, or undefined when there is no lock file. */
async function lockToken(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if (errno(err) === 'ENOENT') return undefined;
    throw err;
  }
}

/** Creates `file` holding `token`, or returns false when it exists. */
async function createLock(file: string, token: string): Promise<boolean> {
  let handle;
  try {
    handle = await fs.open(file, 'wx');
  } catch (err) {
    if (errno(err) === 'EEXIST') return false;
    throw writeError(err, file);
  }
  try {
    await handle.writeFile(token);
    await handle.close();
  } catch (err) {
    // No empty lock left behind (a full disk): nobody could tell whose it is.
    await handle.close().catch(() => undefined);
    await fs.rm(file, { force: true }).catch(() => undefined);
    throw writeError(err, file);
  }
  return true;
}

/** Removes `file` only while it still holds `token`: never a lock someone else took since. */
async function removeIfOwned(file: string, token: string): Promise<void> {
  if ((await lockToken(file).catch(() => undefined)) === token) await fs.rm(file, { force: true });
}

/**
 * Breaks the lock `file` if it still holds `staleToken` and is still stale. Breakers
 * take turns under a second lock (`file.break`), so two waiters that both saw the
 * same stale lock cannot both break it: the second one finds the first one's new
 * lock (another token, fresh) and leaves it. The breaker lock is held for a read, a
 * stat and an unlink; one older than `staleMs` belongs to a breaker that died.
 */
async function breakStaleLock(file: string, staleToken: string, staleMs: number): Promise<boolean> {
  const breaker = `${file}.break`;
  const token = newToken();
  if (!(await createLock(breaker, token))) {
    const stat = await fs.stat(breaker).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > staleMs) await fs.rm(breaker, { force: true });
    return false;
  }
  try {
    const stat = await fs.stat(file).catch(() => undefined);
    if (!stat || Date.now() - stat.mtimeMs <= staleMs || (await lockToken(file)) !== staleToken) return false;
    await fs.rm(file, { force: true });
    return true;
  } finally {
    await removeIfOwned(breaker, token);
  }
}

function newToken(): string {
  return `${process.pid}.${randomBytes(8).toString('hex')}`;
}

/**
 * Keeps the lock fresh while its holder works, however long: every third of
 * `staleMs` its mtime is renewed, as long as it still holds our token.
 */
function heartbeat(file: string, token: string, staleMs: number): () => void {
  const timer = setInterval(() => {
    void (async () => {
      if ((await lockToken(file)) !== token) return;
      const now = new Date();
      await fs.utimes(file, now, now);
    })().catch(() => undefined);
  }, Math.max(1, Math.floor(staleMs / 3)));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * A lock between processes: a file created with O_EXCL that holds its owner's
 * token. The holder renews it (heartbeat) while it works, so only a lock whose
 * holder died (no renewal for `staleMs`) is broken, and a holder removes the lock
 * only while it still holds its token, never a lock someone else took since.
 */
export async function withFileLock<T>(lockFile: string, fn: () => Promise<T>, staleMs = 10_000): Promise<T> {
  const deadline = Date.now() + 30_000;
  const token = newToken();
  while (!(await createLock(lockFile, token))) {
    const stat = await fs.stat(lockFile).catch(() => undefined);
    const held = stat ? await lockToken(lockFile) : undefined;
    if (stat && held !== undefined && Date.now() - stat.mtimeMs > staleMs && (await breakStaleLock(lockFile, held, staleMs))) continue;
    if (Date.now() > deadline) throw new Error(`could not lock ${lockFile} within 30s`);
    else await sleep(5 + Math.random() * 20);
  }
  const stop = heartbeat(lockFile, token, staleMs);
  try {
    return await fn();
  } finally {
    stop();
    await removeIfOwned(lockFile, token);
  }
}
