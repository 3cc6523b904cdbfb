/**
 * The entries of a stored batch or crawl, read back through the JobBackend one
 * result batch at a time (a 1,000-page job never sits in memory as one string),
 * and the record with every result batch merged into one `data`, as `batch
 * --json` and `webjobs result` print it.
 */
import type { JobBackend, PagedEntries } from '../api/backend.js';
import type { JobRecordByKind, PageEntry, PageQuery } from '../api/types.js';
import { validatePageQuery } from '../api/validate.js';
import { openOutput, type OutputStream } from './output.js';

export type ManyKind = 'batch' | 'crawl';

/** Entries asked for per round trip to the store or the service. */
const READ_BATCH = 100;

/**
 * The batch size, at most `max`, whose result batches fall on `offset`: pages
 * are numbered, so batch n of size s starts at entry (n - 1) * s.
 */
export function alignedBatchSize(offset: number, max: number): number {
  for (let size = max; size > 1; size--) if (offset % size === 0) return size;
  return 1;
}

/**
 * The record with one entry per result batch, and the number of entries: with
 * batchSize 1, totalPageBatches counts them (however large each is).
 */
export async function headOf<K extends ManyKind>(backend: JobBackend, kind: K, jobId: string): Promise<{ head: JobRecordByKind[K]; entries: number }> {
  const head = await backend.result(kind, jobId, { page: 1, batchSize: 1 });
  return { head, entries: head.data.length === 0 ? 0 : head.totalPageBatches };
}

/** Result batch `query`: its fields, and its entries read a part at a time where the back end can (resultEntries). */
async function readBatch(backend: JobBackend, kind: ManyKind, jobId: string, query: Required<PageQuery>): Promise<PagedEntries> {
  if (backend.resultEntries) return backend.resultEntries(kind, jobId, query);
  const { data, ...record } = await backend.result(kind, jobId, query);
  return { record, entries: data };
}

/**
 * Every entry of the job, in order. The number of entries is known first, so a
 * result batch that holds fewer entries than asked (a service that bounds a
 * response by bytes) is followed by the next, from where it stopped, with
 * smaller batches: no entry is lost, whatever size the back end answers with.
 */
export async function* entriesOf(
  backend: JobBackend,
  kind: ManyKind,
  jobId: string,
  map: (entry: PageEntry) => PageEntry = (entry) => entry,
  known?: number,
): AsyncGenerator<PageEntry> {
  const entries = known ?? (await headOf(backend, kind, jobId)).entries;
  let offset = 0;
  let size = READ_BATCH;
  while (offset < entries) {
    size = alignedBatchSize(offset, size);
    const { entries: batch } = await readBatch(backend, kind, jobId, { page: offset / size + 1, batchSize: size });
    let read = 0;
    for await (const entry of batch) {
      read++;
      yield map(entry);
    }
    if (read === 0) return;
    offset += read;
    size = Math.min(size, read);
  }
}

/** The record as one JSON document with every result batch merged into `data`, written entry by entry. */
export async function writeMergedRecord(
  out: OutputStream,
  backend: JobBackend,
  kind: ManyKind,
  jobId: string,
  map?: (entry: PageEntry) => PageEntry,
): Promise<void> {
  const { head, entries } = await headOf(backend, kind, jobId);
  const { data: _data, ...fields } = head;
  const merged = { ...fields, totalPageBatches: 1, currentPageBatch: 1, batchSize: Math.max(1, entries) };
  const opening = JSON.stringify(merged, null, 2).replace(/\n}$/, ',\n  "data": [');
  await out.write(opening);
  let first = true;
  for await (const entry of entriesOf(backend, kind, jobId, map, entries)) {
    await out.write(`${first ? '\n' : ',\n'}    ${JSON.stringify(entry)}`);
    first = false;
  }
  await out.write(`${first ? '' : '\n  '}]\n}\n`);
}

/**
 * `webjobs result --page`: result batch `query` as the JSON record, written
 * entry by entry (a batch of 19 MB pages never becomes one string).
 */
export async function writeResultBatch(kind: ManyKind, backend: JobBackend, jobId: string, query: PageQuery, output?: string): Promise<void> {
  const { record, entries } = await readBatch(backend, kind, jobId, validatePageQuery(query));
  const out = await openOutput(output);
  try {
    await out.write(JSON.stringify(record, null, 2).replace(/\n}$/, ',\n  "data": ['));
    let first = true;
    for await (const entry of entries) {
      await out.write(`${first ? '\n' : ',\n'}    ${JSON.stringify(entry, null, 2).replace(/\n/g, '\n    ')}`);
      first = false;
    }
    await out.write(`${first ? '' : '\n  '}]\n}\n`);
  } finally {
    await out.close();
  }
}
