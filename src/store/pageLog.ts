/**
 * A batch's or crawl's page entries in two files of its job's folder, appended as
 * the entries are stored, where each entry had a file of its own (pages/NNNNNN.json:
 * open, write, close and rename an entry, 1,000 files a crawl; a re-crawl of 1,000
 * unchanged pages spent a third of its time on them):
 *   pages.jsonl  the entries' JSON, one a line, in the order they were stored
 *   pages.idx    a line `[index, offset, length]` for each entry once its bytes are
 *                in pages.jsonl (a JSON line, journal.ts); an entry stored again
 *                (a resumed job redoing a page) is the later line's
 * Entries stored while an append is under way go in the next one, together: two
 * appends for them all. An entry counts once its index line is there: a process
 * killed between the two appends leaves bytes no line points to (the entry is
 * missing, as a file never renamed into place was), and a line cut short is
 * dropped on reading, as the journal's are. A line that points past the end of
 * pages.jsonl (its bytes lost with a crash of the machine) is a missing entry too.
 *
 * Jobs stored by older versions keep their pages/ folder: an entry without an
 * index line is read from there (fileStore.ts).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DamagedRecordError } from '../api/errors.js';
import type { PageEntry } from '../api/types.js';
import type { PageText } from '../jobs/jobStore.js';
import { writeError } from './atomicFile.js';
import { appendLines } from './journal.js';
import { checkedText } from './pageText.js';

export const LOG_FILE = 'pages.jsonl';
export const INDEX_FILE = 'pages.idx';

/** Where an entry's JSON is in pages.jsonl. */
export interface Span {
  offset: number;
  length: number;
}

const isSpanLine = (line: unknown): line is [number, number, number] =>
  Array.isArray(line) && line.length === 3 && line.every((n) => Number.isSafeInteger(n) && (n as number) >= 0) && (line[2] as number) > 0;

/** Indexes past this are kept in a Map (a damaged pages.idx must not make the arrays huge). */
const DENSE_INDEXES = 1 << 24;

/**
 * Where each entry of a job is, by index: two typed arrays (12 bytes an entry, SPAN_BYTES) rather than a Map of
 * objects (about 80), since a crawl of 100,000 pages keeps 100,000 of them for as long as its job is read.
 */
export class SpanTable {
  private offsets = new Float64Array(256);
  private lengths = new Uint32Array(256);
  private readonly sparse = new Map<number, Span>();
  private count = 0;

  /** Entries it has a span for. */
  get size(): number {
    return this.count + this.sparse.size;
  }

  get(index: number): Span | undefined {
    if (index >= DENSE_INDEXES) return this.sparse.get(index);
    const length = index < this.lengths.length ? this.lengths[index]! : 0;
    return length > 0 ? { offset: this.offsets[index]!, length } : undefined;
  }

  set(index: number, span: Span): void {
    if (index >= DENSE_INDEXES || span.length > 0xffffffff) return void this.sparse.set(index, span);
    if (index >= this.lengths.length) {
      let size = this.lengths.length;
      while (size <= index) size *= 2;
      const offsets = new Float64Array(size);
      const lengths = new Uint32Array(size);
      offsets.set(this.offsets);
      lengths.set(this.lengths);
      this.offsets = offsets;
      this.lengths = lengths;
    }
    if (this.lengths[index] === 0) this.count++;
    this.offsets[index] = span.offset;
    this.lengths[index] = span.length;
  }

  /** Bytes of its arrays (what a test bounds per entry). */
  get bytes(): number {
    return this.offsets.byteLength + this.lengths.byteLength;
  }
}

/** Bytes a SpanTable keeps per entry: an offset (8) and a length (4); at most twice that while its arrays have room to grow. */
export const SPAN_BYTES = 12;

/** What a reader of a job's pages.idx has read of it: its first `size` bytes, but for an unfinished last line (`rest`). */
interface ReadIndex {
  size: number;
  spans: SpanTable;
  rest: string;
}

/** Jobs whose index a PageIndex remembers: those read most recently. */
const REMEMBERED_JOBS = 16;

/**
 * Reads jobs' pages.idx, remembering what it read: the file only grows, so a later read reads what was appended
 * since (one entry at a time, as `webjobs result --jsonl` reads a crawl's 10,000, reads the file once, not
 * 10,000 times).
 */
export class PageIndex {
  private readonly read = new Map<string, ReadIndex>();

  /** The job's stored entries by index (none for a job without pages.idx). Not to be changed. */
  async spans(dir: string): Promise<Pick<SpanTable, 'get' | 'size'>> {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(path.join(dir, INDEX_FILE), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.read.delete(dir);
      return new SpanTable();
    }
    try {
      const { size } = await handle.stat();
      let known = this.read.get(dir);
      if (!known || size < known.size) known = { size: 0, spans: new SpanTable(), rest: '' };
      if (size > known.size) {
        const added = Buffer.allocUnsafe(size - known.size);
        const { bytesRead } = await handle.read(added, 0, added.length, known.size);
        const lines = (known.rest + added.toString('utf8', 0, bytesRead)).split('\n');
        // Not ended yet: being appended, or cut short (the next append begins on a line of its own, journal.ts).
        const rest = lines.pop()!;
        for (const line of lines) {
          const span = parseLine(line);
          if (span) known.spans.set(span[0], { offset: span[1], length: span[2] });
        }
        known = { size: known.size + bytesRead, spans: known.spans, rest };
      }
      this.read.delete(dir);
      this.read.set(dir, known);
      // A Map iterates in insertion order: the first key is the least recently read.
      if (this.read.size > REMEMBERED_JOBS) this.read.delete(this.read.keys().next().value!);
      return known.spans;
    } finally {
      handle.close().catch(() => undefined);
    }
  }
}

/** An index line's [index, offset, length]; undefined for a blank line, or one cut short by a crash. */
function parseLine(line: string): [number, number, number] | undefined {
  if (line === '') return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return isSpanLine(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

interface Pending {
  index: number;
  text: string;
  resolve(): void;
  reject(err: unknown): void;
}

/** Appends the entries of the jobs this process writes, each job's in the order they were handed in. */
export class PageLogWriter {
  /** Entries waiting for their job's append under way, by job folder; a folder is here while it has one. */
  private readonly waiting = new Map<string, Pending[]>();

  append(dir: string, index: number, entry: PageEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      const pending = { index, text: JSON.stringify(entry), resolve, reject };
      const queue = this.waiting.get(dir);
      if (queue) return void queue.push(pending);
      this.waiting.set(dir, [pending]);
      void this.drain(dir);
    });
  }

  private async drain(dir: string): Promise<void> {
    for (;;) {
      const batch = nextBatch(this.waiting.get(dir)!);
      if (batch.length === 0) {
        this.waiting.delete(dir);
        return;
      }
      try {
        await appendEntries(dir, batch);
        for (const pending of batch) pending.resolve();
      } catch (err) {
        for (const pending of batch) pending.reject(err);
      }
    }
  }
}

/** Characters an append takes at most (but for one entry longer on its own): the entries are joined into one text to write. */
const BATCH_CHARS = 8 * 1024 * 1024;

/** The entries waiting first, up to BATCH_CHARS, taken from `waiting`. */
function nextBatch(waiting: Pending[]): Pending[] {
  let count = 0;
  let chars = 0;
  while (count < waiting.length && (count === 0 || chars + waiting[count]!.text.length <= BATCH_CHARS)) chars += waiting[count++]!.text.length;
  return waiting.splice(0, count);
}

/** One append of the entries' lines to pages.jsonl, then one of their index lines. */
async function appendEntries(dir: string, batch: readonly Pending[]): Promise<void> {
  const file = path.join(dir, LOG_FILE);
  const handle = await fs.open(file, 'a').catch((err: unknown) => {
    throw writeError(err, file);
  });
  const lines: [number, number, number][] = [];
  let size: number | undefined;
  try {
    // Where this append begins: what is there, a cut-short line of a killed process included.
    size = (await handle.stat()).size;
    // A line of their own: after a cut-short one, and not glued to it.
    const chunks: string[] = size > 0 ? [''] : [];
    let offset = size > 0 ? size + 1 : 0;
    for (const { index, text } of batch) {
      const length = Buffer.byteLength(text);
      lines.push([index, offset, length]);
      chunks.push(text);
      offset += length + 1;
    }
    await handle.writeFile(chunks.join('\n') + '\n');
  } catch (err) {
    // What a full disk took of the append is free again.
    if (size !== undefined) await handle.truncate(size).catch(() => undefined);
    throw writeError(err, file);
  } finally {
    // Written once writeFile answers: closed after, not waited for.
    handle.close().catch(() => undefined);
  }
  await appendLines(path.join(dir, INDEX_FILE), lines);
}

/** pages.jsonl to read; undefined when there is none (lost with its job's folder: its entries are missing). */
async function openLog(dir: string): Promise<fs.FileHandle | undefined> {
  return fs.open(path.join(dir, LOG_FILE), 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
}

/** Bytes read from pages.jsonl at once at most when entries lie one after the other. */
const READ_RUN_BYTES = 8 * 1024 * 1024;

/**
 * The entries at `spans` (undefined where there is none), read from pages.jsonl through one open; entries that
 * follow each other in the file (each stored after the one before) are read together, one read for up to
 * READ_RUN_BYTES of them. DamagedRecordError for bytes that are not an entry.
 */
export async function readSpans(jobId: string, dir: string, spans: readonly (Span | undefined)[]): Promise<(PageEntry | undefined)[]> {
  const handle = spans.some((span) => span !== undefined) ? await openLog(dir) : undefined;
  if (!handle) return spans.map(() => undefined);
  try {
    const entries: (PageEntry | undefined)[] = [];
    for (let i = 0; i < spans.length; ) {
      const first = spans[i];
      if (!first) {
        entries.push(undefined);
        i++;
        continue;
      }
      // The run: spans[i ... end), each beginning on the line after the one before.
      let end = i + 1;
      let last = first;
      for (let next = spans[end]; next && next.offset === last.offset + last.length + 1 && next.offset + next.length - first.offset <= READ_RUN_BYTES; next = spans[end]) {
        last = next;
        end++;
      }
      const buffer = Buffer.allocUnsafe(last.offset + last.length - first.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, first.offset);
      for (; i < end; i++) {
        const span = spans[i]!;
        const from = span.offset - first.offset;
        // Lost with a crash of the machine (the index line outlived the bytes): never stored.
        if (from + span.length > bytesRead) {
          entries.push(undefined);
          continue;
        }
        try {
          entries.push(JSON.parse(buffer.toString('utf8', from, from + span.length)) as PageEntry);
        } catch {
          throw DamagedRecordError.ofFile(jobId, LOG_FILE);
        }
      }
    }
    return entries;
  } finally {
    handle.close().catch(() => undefined);
  }
}

/**
 * The entries at `spans` as their stored JSON text (PageText), undefined where there is none: each one's
 * first and last bytes are checked (an object: `{` … `}`), so that bytes that are not an entry are refused
 * with DamagedRecordError before an answer has sent a byte of them.
 */
export async function spanTexts(jobId: string, dir: string, spans: readonly (Span | undefined)[], read: (i: number) => Promise<PageEntry>): Promise<(PageText | undefined)[]> {
  const handle = spans.some((span) => span !== undefined) ? await openLog(dir) : undefined;
  if (!handle) return spans.map(() => undefined);
  const file = path.join(dir, LOG_FILE);
  try {
    const { size } = await handle.stat();
    const texts: (PageText | undefined)[] = [];
    for (const [i, span] of spans.entries()) {
      const stored = span && span.offset + span.length <= size;
      texts.push(stored ? await checkedText(handle, file, span, { jobId, name: LOG_FILE, trailingSpace: false }, () => read(i)) : undefined);
    }
    return texts;
  } finally {
    handle.close().catch(() => undefined);
  }
}
