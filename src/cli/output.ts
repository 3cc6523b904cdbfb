/** Data goes to stdout, or to the file of -o, and nowhere else. */
import { createWriteStream, promises as fs, type WriteStream } from 'node:fs';
import path from 'node:path';
import { OutputClosedError, UsageError } from '../api/errors.js';
import { writeFileAtomic } from '../store/atomicFile.js';

/** Writes the whole output at once: to -o FILE atomically, else to stdout. */
export async function writeOutput(text: string, outFile?: string): Promise<void> {
  const content = text.endsWith('\n') || text === '' ? text : `${text}\n`;
  if (outFile) {
    await ensureParent(outFile);
    await writeFileAtomic(outFile, content);
    return;
  }
  await writeStdout(content);
}

async function ensureParent(file: string): Promise<void> {
  try {
    await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  } catch (err) {
    throw new UsageError(`cannot write ${file}: ${(err as Error).message}`);
  }
}

/** EPIPE, or a write after it: the reader of stdout has gone. */
export function isClosedOutput(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

export function writeStdout(text: string): Promise<void> {
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
  if (!outFile) return { write: writeStdout, close: async () => undefined };
  await ensureParent(outFile);
  const stream: WriteStream = createWriteStream(outFile);
  return {
    write: (text) =>
      new Promise((resolve, reject) => {
        stream.write(text, (err) => (err ? reject(err) : resolve()));
      }),
    close: () => new Promise((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve()))),
  };
}
