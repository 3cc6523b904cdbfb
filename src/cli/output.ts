/** Data goes to stdout, or to the file of -o, and nowhere else. */
import { constants as fsConstants, createWriteStream, promises as fs, type WriteStream } from 'node:fs';
import path from 'node:path';
import { OutputClosedError, OutputWriteError, UsageError } from '../api/errors.js';
import { writeFileAtomic } from '../store/atomicFile.js';

/**
 * Where -o sends data: stdout (no -o, or `-o -`), a regular file (written
 * atomically: a temporary sibling, then a rename), or a special file such as a
 * FIFO or /dev/null (written in place; renaming over it would replace it). A
 * symlink is followed, so the link stays and its target gets the data.
 */
export type OutputTarget = { kind: 'stdout' } | { kind: 'file' | 'special'; path: string };

/**
 * Decides the target and checks it can be written: called before a job starts,
 * so a bad -o (a directory, a folder that cannot exist) fails at once, not after
 * the job ran.
 */
export async function resolveOutput(outFile: string | undefined): Promise<OutputTarget> {
  if (outFile === undefined || outFile === '-') return { kind: 'stdout' };
  const target = await followLinks(path.resolve(outFile));
  const stat = await fs.stat(target).catch(() => undefined);
  if (stat?.isDirectory()) throw new UsageError(`-o ${outFile} is a directory; name a file, e.g. -o ${path.join(outFile, 'page.md')}`);
  if (stat && !stat.isFile()) return { kind: 'special', path: target };
  await ensureParent(outFile, target);
  return { kind: 'file', path: target };
}

/** Whether the output goes to a terminal a person reads: stdout (no -o, or `-o -`) when it is one. */
export function outputIsTerminal(outFile: string | undefined): boolean {
  return (outFile === undefined || outFile === '-') && Boolean(process.stdout.isTTY);
}

/** The file a path names after its symlinks, also when the last link points at a file not created yet. */
async function followLinks(file: string): Promise<string> {
  try {
    return await fs.realpath(file);
  } catch {
    const link = await fs.readlink(file).catch(() => undefined);
    return link === undefined ? file : path.resolve(path.dirname(file), link);
  }
}

/**
 * mkdir -p, one level at a time: Node's recursive mkdir loops for ever where
 * mkdir answers ENOENT for a parent that exists (`/proc/nope`), at 50% CPU.
 */
export async function makeDirs(dir: string): Promise<void> {
  try {
    await fs.mkdir(dir);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await fs.stat(dir)).isDirectory()) return;
    const parent = path.dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw err;
    await makeDirs(parent);
  }
  // The parent exists now; a second ENOENT (a /proc or /sys folder) is final.
  await fs.mkdir(dir).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST' || !(await fs.stat(dir)).isDirectory()) throw err;
  });
}

async function ensureParent(name: string, file: string): Promise<void> {
  const dir = path.dirname(file);
  try {
    await makeDirs(dir);
    await fs.access(dir, fsConstants.W_OK);
  } catch (err) {
    throw new UsageError(`cannot write ${name}: ${(err as Error).message}`);
  }
}

/**
 * Writes the whole output at once, to stdout or -o's target (see OutputTarget):
 * text ended with a newline, bytes (an image) as they are. A failed write (a
 * full disk, /dev/full, /proc) is one OutputWriteError; a regular file keeps its
 * previous content then.
 */
export async function writeOutput(output: string | Uint8Array, outFile?: string): Promise<void> {
  const content = typeof output !== 'string' || output.endsWith('\n') || output === '' ? output : `${output}\n`;
  const target = await resolveOutput(outFile);
  try {
    if (target.kind === 'stdout') return await writeStdout(content);
    if (target.kind === 'special') return await fs.writeFile(target.path, content);
    await writeFileAtomic(target.path, content);
  } catch (err) {
    throw writeError(err, outFile);
  }
}

/** The error a failed write of the output ends the command with. */
function writeError(err: unknown, outFile: string | undefined): unknown {
  if (err instanceof OutputClosedError || err instanceof OutputWriteError) return err;
  return OutputWriteError.of(outFile === undefined || outFile === '-' ? 'stdout' : outFile, err);
}

/** EPIPE, or a write after it: the reader of stdout has gone. */
export function isClosedOutput(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

export function writeStdout(text: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.stdout.destroyed) return reject(new OutputClosedError());
    process.stdout.write(text, (err) => (err ? reject(isClosedOutput(err) ? new OutputClosedError() : err) : resolve()));
  });
}

/** A stream for output written piece by piece (JSON Lines, large records). */
export interface OutputStream {
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

export async function openOutput(outFile?: string): Promise<OutputStream> {
  const target = await resolveOutput(outFile);
  if (target.kind === 'stdout') {
    return { write: (text) => writeStdout(text).catch((err: unknown) => Promise.reject(writeError(err, outFile))), close: async () => undefined };
  }
  const stream: WriteStream = createWriteStream(target.path);
  // The first error fails the next write or the close, as one OutputWriteError; never an unhandled 'error' event.
  let failed: unknown;
  stream.on('error', (err) => (failed ??= writeError(err, outFile)));
  const settle = (resolve: () => void, reject: (err: unknown) => void) => (err?: Error | null) =>
    err || failed ? reject(failed ?? writeError(err, outFile)) : resolve();
  return {
    write: (text) =>
      new Promise((resolve, reject) => {
        if (failed) return reject(failed);
        stream.write(text, settle(resolve, reject));
      }),
    close: () =>
      new Promise((resolve, reject) => {
        if (stream.destroyed) return failed ? reject(failed) : resolve();
        stream.end(settle(resolve, reject));
      }),
  };
}

/**
 * -o FILE with several formats: one file would hold them one after another under
 * `==> format <==` lines (Markdown and JSON in one .md file). Refused before the job
 * starts, with the ways that keep them apart (issue 56). --json and --jsonl write
 * every format in JSON, and `-o -` is stdout: both are fine.
 */
export function checkOutputFormats(outFile: string | undefined, formats: readonly string[] | undefined, json: boolean, folders: boolean): void {
  if (outFile === undefined || outFile === '-' || json || !formats || formats.length < 2) return;
  const folder = folders ? ', or --output-dir DIR (a file per page and format; changes in changes.json)' : '';
  throw new UsageError(`-o ${outFile} holds one format and --formats asks for ${formats.length} (${formats.join(',')}): ask for one, or use --json (every format in one JSON record)${folder}`);
}
