/**
 * A batch's or crawl's page entries in two files of its job's folder, appended as
 * the entries are stored, where each entry had a file of its own (pages/NNNNNN.json:
 * open, write, close and rename an entry, 1,000 files a crawl; a re-crawl of 1,000
 * unchanged pages spent a third of its time on them):
 *   pages.jsonl  the entries' JSON, one a line, in the order they were stored
 *   pages.idx    a line `[index, offset, length, marks]` for each entry once its bytes
 *                are in pages.jsonl (a JSON line, journal.ts); an entry stored again
 *                (a resumed job redoing a page) is the later line's. The marks say
 *                what the entry is (completed, failed, changed: api/pageCounts.ts),
 *                so that `status` and `jobs` count 100,000 entries from the index
 *                alone; a line of an older version has none (`[index, offset, length]`)
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
import { DamagedPagesError } from '../api/errors.js';
import type { PageEntry } from '../api/types.js';
import { countMarks, entryMarks, isMarks, type PageCounts } from '../api/pageCounts.js';
import type { PageText } from '../jobs/jobStore.js';
import { writeError } from './atomicFile.js';
import { appendLines } from './journal.js';
import { checkedText } from './pageText.js';

export const LOG_FILE = 'pages.jsonl';
export const INDEX_FILE = 'pages.idx';

/** Where an entry's JSON is in pages.jsonl, and its marks (api/pageCounts.ts; 0 or none: not known, a line of an older version). */
export interface Span {
  offset: number;
  length: number;
  marks?: number;
}

/** An index line: `[index, offset, length, marks]`, or an older version's `[index, offset, length]`. */
export type IndexLine = [number, number, number] | [number, number, number, number];

const isSpanLine = (line: unknown): line is IndexLine =>
  Array.isArray(line) &&
  (line.length === 3 || (line.length === 4 && isMarks(line[3] as number))) &&
  line.every((n) => Number.isSafeInteger(n) && (n as number) >= 0) &&
  (line[2] as number) > 0;

/** Indexes past this are kept in a Map (a damaged pages.idx must not make the arrays huge). */
const DENSE_INDEXES = 1 << 24;

/** Bytes a SpanTable keeps per entry: an offset (8), a length (4) and its marks (1); at most twice that while its arrays have room to grow. */
export const SPAN_BYTES = 13;

/**
 * Where each entry of a job is, by index: two typed arrays (SPAN_BYTES an entry) rather than a Map of span objects
 * (about 80), since a crawl of 100,000 pages keeps 100,000 of them for as long as its job is read. Read as a
 * ReadonlyMap, in index order.
 */
export class SpanTable implements ReadonlyMap<number, Span> {
  private offsets = new Float64Array(256);
  private lengths = new Uint32Array(256);
  private marks = new Uint8Array(256);
  private readonly sparse = new Map<number, Span>();
  private count = 0;

  /** Entries it has a span for. */
  get size(): number {
    return this.count + this.sparse.size;
  }

  get(index: number): Span | undefined {
    if (index >= DENSE_INDEXES) return this.sparse.get(index);
    const length = index < this.lengths.length ? this.lengths[index]! : 0;
    return length > 0 ? { offset: this.offsets[index]!, length, marks: this.marks[index]! } : undefined;
  }

  has(index: number): boolean {
    return this.get(index) !== undefined;
  }

  set(index: number, span: Span): void {
    if (index >= DENSE_INDEXES || span.length > 0xffffffff) return void this.sparse.set(index, span);
    if (index >= this.lengths.length) {
      let size = this.lengths.length;
      while (size <= index) size *= 2;
      const offsets = new Float64Array(size);
      const lengths = new Uint32Array(size);
      const marks = new Uint8Array(size);
      offsets.set(this.offsets);
      lengths.set(this.lengths);
      marks.set(this.marks);
      this.offsets = offsets;
      this.lengths = lengths;
      this.marks = marks;
    }
    if (this.lengths[index] === 0) this.count++;
    this.offsets[index] = span.offset;
    this.lengths[index] = span.length;
    this.marks[index] = span.marks ?? 0;
  }

  /** Bytes of its arrays (what a test bounds per entry). */
  get bytes(): number {
    return this.offsets.byteLength + this.lengths.byteLength + this.marks.byteLength;
  }

  /**
   * The entries [0, below) counted by their marks, none read; undefined when one of them has no marks (stored by an
   * older version: only its text says what it is).
   */
  counts(below: number): PageCounts | undefined {
    const counts: PageCounts = { completed: 0, failed: 0, changed: 0 };
    const end = Math.min(below, this.lengths.length);
    for (let i = 0; i < end; i++) {
      if (this.lengths[i] === 0) continue;
      if (this.marks[i] === 0) return undefined;
      countMarks(counts, this.marks[i]!);
    }
    for (const [i, span] of this.sparse) {
      if (i >= below) continue;
      if (!span.marks) return undefined;
      countMarks(counts, span.marks);
    }
    return counts;
  }

  *entries(): MapIterator<[number, Span]> {
    for (let i = 0; i < this.lengths.length; i++) if (this.lengths[i]! > 0) yield [i, { offset: this.offsets[i]!, length: this.lengths[i]!, marks: this.marks[i]! }];
    yield* [...this.sparse].sort(([a], [b]) => a - b);
  }

  *keys(): MapIterator<number> {
    for (const [i] of this.entries()) yield i;
  }

  *values(): MapIterator<Span> {
    for (const [, span] of this.entries()) yield span;
  }

  [Symbol.iterator](): MapIterator<[number, Span]> {
    return this.entries();
  }

  forEach(callback: (value: Span, key: number, map: ReadonlyMap<number, Span>) => void): void {
    for (const [i, span] of this.entries()) callback(span, i, this);
  }
}

/**
 * What a reader of a job's pages.idx has read of it: its first `size` bytes, but for an unfinished last line
 * (`rest`), of the file `ino` (a mended index is a new file, mendLog).
 */
interface ReadIndex extends LogIndex {
  ino: number;
  size: number;
  rest: string;
}

/**
 * A job's pages.idx as read: each entry's place (the latest line of each index), how many bytes of pages.jsonl
 * it says were written (`reach`: to the end of the last entry's line, its line break included), and what in the file cannot have been written by us (`damage`, said after the
 * file's name: "has a line that is not an entry's place").
 */
export interface LogIndex {
  spans: SpanTable;
  reach: number;
  damage?: string;
}

/**
 * A line cut short by a kill in the middle of an append: a beginning of `[index,offset,length]`. The next append
 * begins on a line of its own (journal.ts); any other line that is not a span was never written by us.
 */
const CUT_SHORT = /^\[(\d+(,(\d+(,(\d+(,\d*)?)?)?)?)?)?$/;

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
  async spans(dir: string): Promise<ReadonlyMap<number, Span>> {
    return (await this.index(dir)).spans;
  }

  /** The job's entries [0, below) counted by their marks, none read (SpanTable.counts). */
  async counts(dir: string, below: number): Promise<PageCounts | undefined> {
    return (await this.index(dir)).spans.counts(below);
  }

  /** The job's pages.idx as read (LogIndex); an empty one for a job without pages.idx. */
  async index(dir: string): Promise<LogIndex> {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(path.join(dir, INDEX_FILE), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.read.delete(dir);
      return { spans: new SpanTable(), reach: 0 };
    }
    try {
      const { size, ino } = await handle.stat();
      let known = this.read.get(dir);
      if (!known || size < known.size || ino !== known.ino) known = { ino, size: 0, spans: new SpanTable(), rest: '', reach: 0 };
      if (size > known.size) {
        const added = Buffer.allocUnsafe(size - known.size);
        const { bytesRead } = await handle.read(added, 0, added.length, known.size);
        const lines = (known.rest + added.toString('utf8', 0, bytesRead)).split('\n');
        // Not ended yet: being appended, or cut short (the next append begins on a line of its own, journal.ts).
        const rest = lines.pop()!;
        known = { ...known, size: known.size + bytesRead, rest };
        for (const line of lines) addLine(known, line);
      }
      this.read.delete(dir);
      this.read.set(dir, known);
      // A Map iterates in insertion order: the first key is the least recently read.
      if (this.read.size > REMEMBERED_JOBS) this.read.delete(this.read.keys().next().value!);
      return known;
    } finally {
      handle.close().catch(() => undefined);
    }
  }
}

/**
 * One line of pages.idx into `known`. Entries are appended, each append after the bytes already there, so each
 * line's entry begins after the previous line's: a line pointing back (at offset 0, at another entry's bytes)
 * was not written by us, nor was a line that is neither a span nor the beginning of one.
 */
function addLine(known: ReadIndex, line: string): void {
  if (line === '') return;
  const span = parseLine(line);
  if (!span) {
    if (!CUT_SHORT.test(line)) known.damage ??= "has a line that is not an entry's place";
    return;
  }
  const [index, offset, length, marks] = span;
  if (offset < known.reach) known.damage ??= `points entry ${index} at bytes of another entry`;
  known.spans.set(index, { offset, length, marks });
  known.reach = Math.max(known.reach, offset + length + 1);
}

/** An index line's [index, offset, length, marks?]; undefined for a blank line, or one cut short by a crash. */
export function parseLine(line: string): IndexLine | undefined {
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
  marks: number;
  resolve(): void;
  reject(err: unknown): void;
}

/** Appends the entries of the jobs this process writes, each job's in the order they were handed in. */
export class PageLogWriter {
  /** Entries waiting for their job's append under way, by job folder; a folder is here while it has one. */
  private readonly waiting = new Map<string, Pending[]>();

  append(dir: string, index: number, entry: PageEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      const pending = { index, text: JSON.stringify(entry), marks: entryMarks(entry), resolve, reject };
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
  const lines: IndexLine[] = [];
  let size: number | undefined;
  try {
    // Where this append begins: what is there, a cut-short line of a killed process included.
    size = (await handle.stat()).size;
    // A line of their own: after a cut-short one, and not glued to it.
    const chunks: string[] = size > 0 ? [''] : [];
    let offset = size > 0 ? size + 1 : 0;
    for (const { index, text, marks } of batch) {
      const length = Buffer.byteLength(text);
      lines.push([index, offset, length, marks]);
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

/** pages.jsonl to read; DamagedPagesError when there is none (pages.idx says entries are in it). */
async function openLog(jobId: string, dir: string): Promise<fs.FileHandle> {
  return fs.open(path.join(dir, LOG_FILE), 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw DamagedPagesError.of(jobId, LOG_FILE, 'is missing');
    throw err;
  });
}

/** Why the bytes around `span` (`around`: from the byte before it, unless it is the file's first, to the byte after) are not one whole line of pages.jsonl; undefined when they are. */
function notALine(jobId: string, span: Span, around: Buffer, bytesRead: number): DamagedPagesError | undefined {
  const before = span.offset > 0 ? 1 : 0;
  if (bytesRead < before + span.length + 1) return DamagedPagesError.of(jobId, LOG_FILE, 'is cut short');
  if ((before === 1 && around[0] !== NEWLINE) || around[before + span.length] !== NEWLINE) {
    return DamagedPagesError.of(jobId, INDEX_FILE, "points at bytes that are not one of pages.jsonl's entries");
  }
  return undefined;
}

const NEWLINE = 0x0a;

/**
 * The entries at `spans` (undefined where there is none), read from pages.jsonl through one open.
 * DamagedPagesError for an entry that is not there (pages.jsonl cut short or gone) or bytes that are not one
 * whole entry.
 */
export async function readSpans(jobId: string, dir: string, spans: readonly (Span | undefined)[]): Promise<(PageEntry | undefined)[]> {
  if (!spans.some((span) => span !== undefined)) return spans.map(() => undefined);
  const handle = await openLog(jobId, dir);
  try {
    const entries: (PageEntry | undefined)[] = [];
    const range = await readRange(handle, spans);
    for (const span of spans) {
      if (!span) {
        entries.push(undefined);
        continue;
      }
      const before = span.offset > 0 ? 1 : 0;
      let around: Buffer;
      let bytesRead: number;
      const start = span.offset - before - (range?.start ?? 0);
      if (range && start >= 0 && start + before + span.length + 1 <= range.bytes.length) {
        // Within the range read for them all: its bytes, as one read of the span would give them.
        around = range.bytes.subarray(start, start + before + span.length + 1);
        bytesRead = Math.max(0, Math.min(around.length, range.bytesRead - start));
      } else {
        around = Buffer.allocUnsafe(before + span.length + 1);
        ({ bytesRead } = await handle.read(around, 0, around.length, span.offset - before));
      }
      const damage = notALine(jobId, span, around, bytesRead);
      if (damage) throw damage;
      entries.push(parseEntry(jobId, around.subarray(before, before + span.length)));
    }
    return entries;
  } finally {
    handle.close().catch(() => undefined);
  }
}

/** Bytes read at most at once for the entries of one call of readSpans (a chunk of a result's pages). */
const RANGE_BYTES = 4 * 1024 * 1024;

/**
 * The bytes from the first span's line break to the last's, in one read, when the spans lie close together (a
 * chunk of a crawl's entries, stored one after another): one read of a thread instead of one per entry, which
 * was half of `result --content`'s time for a crawl of 100,000 pages. Undefined when one read would not fit
 * RANGE_BYTES; `bytesRead` is less than the length when pages.jsonl ends sooner (cut short).
 */
async function readRange(handle: fs.FileHandle, spans: readonly (Span | undefined)[]): Promise<{ start: number; bytes: Buffer; bytesRead: number } | undefined> {
  let first = Infinity;
  let end = 0;
  let count = 0;
  for (const span of spans) {
    if (!span) continue;
    count++;
    first = Math.min(first, span.offset > 0 ? span.offset - 1 : 0);
    end = Math.max(end, span.offset + span.length + 1);
  }
  if (count < 2 || end - first > RANGE_BYTES) return undefined;
  const bytes = Buffer.allocUnsafe(end - first);
  const { bytesRead } = await handle.read(bytes, 0, bytes.length, first);
  return { start: first, bytes, bytesRead };
}

/** An entry's bytes as a PageEntry; DamagedPagesError for bytes that are no JSON object. */
export function parseEntry(jobId: string, bytes: Buffer): PageEntry {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw DamagedPagesError.of(jobId, LOG_FILE, 'is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw DamagedPagesError.of(jobId, LOG_FILE, 'is not valid JSON');
  return value as PageEntry;
}

/**
 * The entries at `spans` as their stored JSON text (PageText), undefined where there is none: each one is
 * checked to be one whole line of pages.jsonl and its first and last bytes an object's (`{` … `}`), so that
 * bytes that are not an entry are refused with DamagedPagesError before an answer has sent a byte of them.
 */
export async function spanTexts(jobId: string, dir: string, spans: readonly (Span | undefined)[], read: (i: number) => Promise<PageEntry>): Promise<(PageText | undefined)[]> {
  if (!spans.some((span) => span !== undefined)) return spans.map(() => undefined);
  const handle = await openLog(jobId, dir);
  const file = path.join(dir, LOG_FILE);
  try {
    const texts: (PageText | undefined)[] = [];
    for (const [i, span] of spans.entries()) {
      if (!span) {
        texts.push(undefined);
        continue;
      }
      await checkLine(handle, jobId, span);
      texts.push(await checkedText(handle, file, span, { jobId, name: LOG_FILE, trailingSpace: false }, () => read(i)));
    }
    return texts;
  } finally {
    handle.close().catch(() => undefined);
  }
}

/** DamagedPagesError unless `span` is one whole line of pages.jsonl: a line break (or the file's start) before it and one after. */
async function checkLine(handle: fs.FileHandle, jobId: string, span: Span): Promise<void> {
  const edge = Buffer.alloc(1);
  const after = await handle.read(edge, 0, 1, span.offset + span.length);
  if (after.bytesRead < 1) throw DamagedPagesError.of(jobId, LOG_FILE, 'is cut short');
  const around = Buffer.alloc(span.offset > 0 ? 2 : 1);
  around[around.length - 1] = edge[0]!;
  if (span.offset > 0) await handle.read(around, 0, 1, span.offset - 1);
  // The entry's own bytes are checked by checkedText: here only its edges matter.
  const damage = notALine(jobId, { offset: span.offset, length: 0 }, around, around.length);
  if (damage) throw damage;
}
