/**
 * A job's journal: JSON lines appended as the job goes (the crawl's frontier,
 * runners/crawlState.ts), read back when the job resumes. Appending costs the new
 * lines only, where rewriting a snapshot would cost the whole frontier each time.
 * A line cut short (a crash in the middle of an append) is dropped on reading, as
 * the append it belongs to never finished. Each append begins on a line of its
 * own, so that the lines a resumed job appends after a cut-short one are whole
 * and read (blank lines are skipped).
 */
import { promises as fs } from 'node:fs';
import { writeError } from './atomicFile.js';

export async function appendLines(file: string, lines: readonly unknown[]): Promise<void> {
  if (lines.length === 0) return;
  await fs.appendFile(file, `\n${lines.map((line) => JSON.stringify(line)).join('\n')}\n`).catch((err: unknown) => {
    throw writeError(err, file);
  });
}

export async function readLines(file: string): Promise<unknown[]> {
  const text = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const lines: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      lines.push(JSON.parse(line));
    } catch {
      // Cut short by a crash: no prefix of a line is JSON, and what was appended after it is on lines of its own.
    }
  }
  return lines;
}
