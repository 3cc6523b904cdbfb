/**
 * A stored page entry as the JSON text of its file, for answers streamed byte for
 * byte (serve's batch and crawl results): a 19 MB entry is never parsed or
 * stringified on the event loop, and never held whole in memory.
 */
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { DamagedRecordError } from '../api/errors.js';
import type { PageEntry } from '../api/types.js';
import type { PageText } from '../jobs/jobStore.js';

/** Bytes read at a time: a 19 MB entry in 19 reads (64 KB, the default, took 300 and their buffers' GC on the main thread). */
export const STREAM_CHUNK = 1024 * 1024;
/** What a JSON object's text ends with, after trailing white space. */
const LAST_BYTES = 16;

/**
 * The entry in `file`, or undefined when there is none. Its first and last bytes are
 * checked (an object: `{` … `}`): a file cut short or overwritten is refused here,
 * before an answer has sent a byte of it, as DamagedRecordError.
 */
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
    const head = Buffer.alloc(1);
    const tail = Buffer.alloc(Math.min(LAST_BYTES, size));
    await handle.read(head, 0, 1, 0);
    await handle.read(tail, 0, tail.length, size - tail.length);
    if (size < 2 || head.toString() !== '{' || !tail.toString().trimEnd().endsWith('}')) {
      throw DamagedRecordError.ofFile(jobId, path.join('pages', path.basename(file)));
    }
    return { bytes: size, open: () => createReadStream(file, { highWaterMark: STREAM_CHUNK }), read };
  } finally {
    await handle.close();
  }
}
