/**
 * A stored page entry as the JSON text of its file, for answers streamed byte for
 * byte (serve's batch and crawl results): a 19 MB entry is never parsed or
 * stringified on the event loop, and never held whole in memory.
 */
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { DamagedPagesError } from '../api/errors.js';
import type { PageEntry } from '../api/types.js';
import type { PageText } from '../jobs/jobStore.js';

/** Bytes read at a time: a 19 MB entry in 19 reads (64 KB, the default, took 300 and their buffers' GC on the main thread). */
const STREAM_CHUNK = 1024 * 1024;
/** What a JSON object's text ends with, after trailing white space. */
const LAST_BYTES = 16;

/**
 * The entry at `range` of `file` (open as `handle`: the whole of an older job's entry file, or a span of
 * pages.jsonl, pageLog.ts) as its stored JSON text, once its first and last bytes are
 * checked (an object: `{` … `}`; `trailingSpace`: white space may follow it, as an older webjobs indented its
 * entry files): bytes that are not an entry are refused here, before an answer has sent a byte of them, as
 * DamagedRecordError naming `name`, the file in the job's folder.
 */
export async function checkedText(
  handle: fs.FileHandle,
  file: string,
  range: { offset: number; length: number },
  checks: { jobId: string; name: string; trailingSpace: boolean },
  read: () => Promise<PageEntry>,
): Promise<PageText> {
  const { offset, length } = range;
  const head = Buffer.alloc(1);
  const tail = Buffer.alloc(Math.min(checks.trailingSpace ? LAST_BYTES : 1, length));
  await handle.read(head, 0, head.length, offset);
  await handle.read(tail, 0, tail.length, offset + length - tail.length);
  const last = checks.trailingSpace ? tail.toString().trimEnd().slice(-1) : tail.toString();
  if (length < 2 || head.toString() !== '{' || last !== '}') throw DamagedPagesError.of(checks.jobId, checks.name, 'is not valid JSON');
  const end = offset + length - 1;
  return { bytes: length, open: () => createReadStream(file, { start: offset, end, highWaterMark: STREAM_CHUNK }), read };
}

/** The entry in `file` (an older job's entry file), or undefined when there is none; checked as checkedText checks it. */
export async function pageText(jobId: string, file: string, read: () => Promise<PageEntry>): Promise<PageText | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const { size } = await handle.stat();
    const name = path.join('pages', path.basename(file));
    return await checkedText(handle, file, { offset: 0, length: size }, { jobId, name, trailingSpace: true }, read);
  } finally {
    await handle.close();
  }
}
