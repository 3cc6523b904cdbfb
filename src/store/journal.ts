/**
 * A job's journal: JSON lines appended as the job goes (the crawl's frontier,
 * runners/crawlState.ts), read back when the job resumes. Appending costs the new
 * lines only, where rewriting a snapshot would cost the whole frontier each time.
 * A line cut short (a crash in the middle of an append) is the last one; it is
 * dropped on reading, as the append it belongs to never finished.
 */
import { promises as fs } from 'node:fs';
import { writeError } from './atomicFile.js';

export async function appendLines(file: string, lines: readonly unknown[]): Promise<void> {
  if (lines.length === 0) return;
  await fs.appendFile(file, lines.map((line) => `${JSON.stringify(line)}\n`).join('')).catch((err: unknown) => {
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
      break; // cut short: the end of what was written
    }
  }
  return lines;
}
