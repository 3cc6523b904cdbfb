/**
 * A job's page entries (pageLog.ts) judged whole, and mended. A batch or crawl whose pages.jsonl and pages.idx
 * disagree (pages.jsonl cut short or gone, pages.idx emptied, garbled or pointing at the wrong bytes) is
 * damaged: reading it throws DamagedPagesError naming the file, never a result with entries lost or one
 * entry's bytes served as another's. Mending rewrites both files with the entries that can still be read;
 * those that cannot are left out (a resumed job redoes them) or stored as failed (a retry runs them again).
 */
import { createWriteStream, promises as fs } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { DamagedPagesError } from '../api/errors.js';
import type { BatchScrapeRequest, PageEntry } from '../api/types.js';
import type { StoredJob } from '../jobs/jobStore.js';
import { writeError } from './atomicFile.js';
import { entryMarks } from '../api/pageCounts.js';
import { INDEX_FILE, LOG_FILE, parseEntry, parseLine, type IndexLine, type PageIndex, type Span } from './pageLog.js';

/** The record's count of entries stored: totalScrapedPages (batch), totalCrawledPages (crawl). */
const COUNT_FIELDS = { batch: 'totalScrapedPages', crawl: 'totalCrawledPages' } as const;

export function storedCount(job: StoredJob): number {
  const kind = job.meta.kind;
  if (kind !== 'batch' && kind !== 'crawl') return 0;
  const count = (job.record as unknown as Record<string, unknown>)[COUNT_FIELDS[kind]];
  return typeof count === 'number' ? count : 0;
}

/** Raises the record's count of entries stored to `count` (entries a run stored after it last counted them). */
export function countStored(job: StoredJob, count: number): void {
  if (count > storedCount(job)) setStoredCount(job, count);
}

function setStoredCount(job: StoredJob, count: number): void {
  const kind = job.meta.kind;
  if (kind === 'batch' || kind === 'crawl') (job.record as unknown as Record<string, unknown>)[COUNT_FIELDS[kind]] = count;
}

/** The entries of an older job's pages/ folder (a file each, NNNNNN.json) that `spans` lacks. */
async function olderEntries(dir: string, spans: ReadonlyMap<number, Span>): Promise<number> {
  const names = await fs.readdir(path.join(dir, 'pages')).catch(() => [] as string[]);
  return names.filter((name) => /^\d+\.json$/.test(name) && !spans.has(Number(name.slice(0, -5)))).length;
}

/**
 * DamagedPagesError, naming the file, when the job's entries are not what we wrote: pages.idx holds lines we
 * never write, pages.jsonl is shorter than pages.idx says or gone, or pages.idx lists fewer entries than the
 * record says were stored. Reads pages.idx (as `index` remembers it) and stats pages.jsonl: no entry is read.
 */
export async function checkPages(job: StoredJob, dir: string, index: PageIndex): Promise<void> {
  const { kind, jobId } = job.meta;
  if (kind !== 'batch' && kind !== 'crawl') return;
  const log = await index.index(dir);
  if (log.damage) throw DamagedPagesError.of(jobId, INDEX_FILE, log.damage);
  if (log.reach > 0) {
    const size = await fs.stat(path.join(dir, LOG_FILE)).then(
      (stat) => stat.size,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return -1;
        throw err;
      },
    );
    if (size < 0) throw DamagedPagesError.of(jobId, LOG_FILE, 'is missing');
    if (size < log.reach) throw DamagedPagesError.of(jobId, LOG_FILE, 'is cut short');
  }
  const count = storedCount(job);
  if (log.spans.size >= count) return;
  const present = log.spans.size + (await olderEntries(dir, log.spans));
  if (present < count) throw DamagedPagesError.of(jobId, INDEX_FILE, `lists ${present} of the ${count} entries stored`);
}

/** What can be read of a job's entries: each readable entry's place in pages.jsonl, and the indexes whose entry cannot be read. */
interface Readable {
  spans: Map<number, Span>;
  lost: Set<number>;
}

/**
 * Every entry of pages.idx whose bytes are one whole line of pages.jsonl holding a JSON object. A line that
 * points back (at bytes an earlier line took) loses its entry, as does a line past the end of pages.jsonl.
 */
async function readable(jobId: string, dir: string): Promise<Readable> {
  const text = await fs.readFile(path.join(dir, INDEX_FILE), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const spans = new Map<number, Span>();
  const lost = new Set<number>();
  let reach = 0;
  for (const line of text.split('\n')) {
    const span = parseLine(line);
    if (!span) continue;
    const [i, offset, length, marks] = span;
    if (offset < reach) {
      spans.delete(i);
      lost.add(i);
      continue;
    }
    spans.set(i, { offset, length, marks });
    lost.delete(i);
    reach = offset + length + 1;
  }
  const handle = await fs.open(path.join(dir, LOG_FILE), 'r').catch(() => undefined);
  try {
    const order = [...spans].sort((a, b) => a[1].offset - b[1].offset);
    const byOffset = order.map(([, span]) => span);
    for (let at = 0; at < order.length; ) {
      const end = adjacentRun(byOffset, at);
      const first = order[at]![1];
      const last = order[end - 1]![1];
      // The run's bytes with the byte before it, which must end the line before (or be the file's start).
      const before = first.offset > 0 ? 1 : 0;
      const bytes = Buffer.allocUnsafe(before + last.offset + last.length + 1 - first.offset);
      const { bytesRead } = handle ? await handle.read(bytes, 0, bytes.length, first.offset - before) : { bytesRead: -1 };
      for (; at < end; at++) {
        const [i, span] = order[at]!;
        const marks = bytesRead < 0 ? undefined : holdsEntry(jobId, bytes.subarray(0, bytesRead), before + span.offset - first.offset, span);
        if (marks === undefined) {
          spans.delete(i);
          lost.add(i);
        } else {
          // A line of an older version gets the marks its entry's text says.
          span.marks ||= marks;
        }
      }
    }
  } finally {
    await handle?.close();
  }
  return { spans, lost };
}

/** Bytes read from pages.jsonl at once: a run of entries stored one after another is read in reads of this size. */
const RUN_BYTES = 4 << 20;

/**
 * The end (exclusive) of the run of `spans` from `at` whose lines follow one another in pages.jsonl, at most
 * RUN_BYTES together (or the one entry at `at`, whatever its size): one read takes them all.
 */
function adjacentRun(spans: readonly Span[], at: number): number {
  const first = spans[at]!;
  let bytes = first.length + 1;
  let end = at + 1;
  for (let next = spans[end]; next && next.offset === first.offset + bytes && bytes + next.length + 1 <= RUN_BYTES; next = spans[++end]) {
    bytes += next.length + 1;
  }
  return end;
}

/**
 * The marks of the entry at `span` (api/pageCounts.ts), found at `at` of `bytes`, when it is one whole line (a
 * line break, or the file's start, before it; one after) holding a JSON object; undefined when it is not.
 */
function holdsEntry(jobId: string, bytes: Buffer, at: number, span: Span): number | undefined {
  const end = at + span.length;
  if (end >= bytes.length || (span.offset > 0 && bytes[at - 1] !== 0x0a) || bytes[end] !== 0x0a) return undefined;
  try {
    return entryMarks(parseEntry(jobId, bytes.subarray(at, end)));
  } catch {
    return undefined;
  }
}

/** What mending did: the entries that could not be read, by index. */
export interface Mended {
  lost: number[];
}

/**
 * Mends `job`'s entries in `dir` (the caller holds the job's lock): pages.jsonl and pages.idx are written
 * again with the entries that can be read, in index order. The entries lost are those whose bytes cannot be
 * read and, where the record says entries were stored that pages.idx no longer lists, those a completed batch
 * or a crawl's count should have (a stopped batch's cannot be told from the pages it never did). `failed`
 * gives a lost entry's stand-in (a failed entry saying why) or undefined to leave it out. The record's count
 * is set to what is stored now (a crawl's: its entries from the first on, as a resumed crawl keeps them).
 */
export async function mendLog(job: StoredJob, dir: string, failed?: (index: number) => PageEntry | undefined): Promise<Mended> {
  const { kind, jobId } = job.meta;
  const { spans, lost } = await readable(jobId, dir);
  const count = storedCount(job);
  const expected = kind === 'crawl' ? count : job.record.status === 'completed' ? (job.meta.request as BatchScrapeRequest).urls.length : 0;
  for (let i = 0; i < expected; i++) if (!spans.has(i)) lost.add(i);
  const standIns = new Map([...lost].map((i) => [i, failed?.(i)] as const).filter((pair): pair is [number, PageEntry] => pair[1] !== undefined));
  await rewrite(dir, spans, standIns);
  const present = new Set([...spans.keys(), ...standIns.keys()]);
  let prefix = 0;
  while (present.has(prefix)) prefix++;
  setStoredCount(job, kind === 'crawl' ? Math.min(count, prefix) : present.size);
  return { lost: [...lost].sort((a, b) => a - b) };
}

/**
 * pages.jsonl and pages.idx written anew (beside them, then renamed over them): the entries at `spans` and `added`,
 * in index order. The old file is read through one handle, a run of adjacent entries in one read: a stream per
 * entry left listeners on the output at each of a 100,000-entry job's entries.
 */
async function rewrite(dir: string, spans: ReadonlyMap<number, Span>, added: ReadonlyMap<number, PageEntry>): Promise<void> {
  const log = path.join(dir, LOG_FILE);
  const idx = path.join(dir, INDEX_FILE);
  const [newLog, newIdx] = [`${log}.mending`, `${idx}.mending`];
  const lines: IndexLine[] = [];
  const out = createWriteStream(newLog);
  const source = spans.size > 0 ? await fs.open(log, 'r') : undefined;
  try {
    let offset = 0;
    const write = async (chunk: string | Buffer) => {
      if (!out.write(chunk)) await once(out, 'drain');
    };
    const order = [...new Set([...spans.keys(), ...added.keys()])].sort((a, b) => a - b);
    // Each index's span, or an empty one at -1 (an added entry), which ends any run.
    const runOf = order.map((i) => spans.get(i) ?? { offset: -1, length: 0 });
    for (let at = 0; at < order.length; ) {
      const i = order[at]!;
      const span = spans.get(i);
      if (span && source) {
        const end = adjacentRun(runOf, at);
        const last = runOf[end - 1]!;
        const bytes = last.offset + last.length + 1 - span.offset;
        const chunk = Buffer.allocUnsafe(bytes);
        const { bytesRead } = await source.read(chunk, 0, bytes - 1, span.offset);
        if (bytesRead < bytes - 1) throw new Error(`${LOG_FILE} ended at byte ${span.offset + bytesRead} while mending`);
        for (let k = at, from = 0; k < end; k++) {
          const { length, marks = 0 } = runOf[k]!;
          chunk[from + length] = 0x0a;
          from += length + 1;
          lines.push(marks ? [order[k]!, offset, length, marks] : [order[k]!, offset, length]);
          offset += length + 1;
        }
        await write(chunk);
        at = end;
      } else {
        const entry = added.get(i)!;
        const text = JSON.stringify(entry);
        const length = Buffer.byteLength(text);
        const marks = entryMarks(entry);
        await write(`${text}\n`);
        lines.push(marks ? [i, offset, length, marks] : [i, offset, length]);
        offset += length + 1;
        at++;
      }
    }
    out.end();
    await once(out, 'finish');
    await fs.writeFile(newIdx, lines.map((line) => JSON.stringify(line) + '\n').join(''));
    await fs.rename(newLog, log);
    await fs.rename(newIdx, idx);
  } catch (err) {
    out.destroy();
    await Promise.all([fs.rm(newLog, { force: true }), fs.rm(newIdx, { force: true })]).catch(() => undefined);
    throw writeError(err, log);
  } finally {
    await source?.close();
  }
}
