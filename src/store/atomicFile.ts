import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';

/** Write to a temporary sibling, then rename: readers see the old file or the new one, never half of one. */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, content);
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

export async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as T;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A lock between processes: a file created with O_EXCL. A lock older than
 * `staleMs` belongs to a process that died holding it and is broken.
 */
export async function withFileLock<T>(lockFile: string, fn: () => Promise<T>, staleMs = 10_000): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const handle = await fs.open(lockFile, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const stat = await fs.stat(lockFile).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > staleMs) await fs.rm(lockFile, { force: true });
      else if (Date.now() > deadline) throw new Error(`could not lock ${lockFile} within 30s`);
      else await sleep(5 + Math.random() * 20);
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lockFile, { force: true });
  }
}
