/** Turns what the store holds into the record the spec's GET result endpoint returns. */
import { withoutCredentials } from '../api/redact.js';
import { validatePageQuery } from '../api/validate.js';
import type { EntryText, PagedEntries, PagedText } from '../api/backend.js';
import type { BatchScrapeRequest, JobRecord, PageEntry, PagedRecordHead, PageQuery } from '../api/types.js';
import type { JobStore, StoredJob } from '../jobs/jobStore.js';

/** Number of page entries a batch or crawl job has (or will have, for batch). */
export function entryCount(job: StoredJob): number {
  if (job.meta.kind === 'batch') return (job.meta.request as BatchScrapeRequest).urls.length;
  if (job.meta.kind === 'crawl') return (job.record as { totalCrawledPages?: number }).totalCrawledPages ?? 0;
  return 0;
}

/** A batch URL that has not finished yet still has its place in the submitted order. */
function placeholder(job: StoredJob, index: number): PageEntry {
  const url = withoutCredentials((job.meta.request as BatchScrapeRequest).urls[index] ?? '');
  return { url, status: 'pending', error: null, metadata: {} };
}

/** The record's fields of result batch `query` and where its entries are: [start, start + count). */
function pagedHead(job: StoredJob, query: PageQuery): { record: PagedRecordHead; start: number; count: number } {
  const { page, batchSize } = validatePageQuery(query);
  const total = entryCount(job);
  const start = (page - 1) * batchSize;
  const count = Math.max(0, Math.min(batchSize, total - start));
  const { data: _data, ...fields } = job.record;
  const record = { ...fields, totalPageBatches: Math.max(1, Math.ceil(total / batchSize)), currentPageBatch: page, batchSize } as PagedRecordHead;
  return { record, start, count };
}

export async function readRecord(store: JobStore, job: StoredJob, query: PageQuery = {}): Promise<JobRecord> {
  const { kind } = job.meta;
  if (kind !== 'batch' && kind !== 'crawl') return job.record as JobRecord;
  const { record, start, count } = pagedHead(job, query);
  const entries = await store.readPages(job.meta.jobId, start, count);
  return { ...record, data: entries.map((entry, i) => entry ?? placeholder(job, start + i)) } as JobRecord;
}

/** Whether the job's pages may hold a file of ours (a screenshot, or one of a page action's), which an answer links by URL. */
function mayHoldFiles(job: StoredJob): boolean {
  const options = (job.meta.request as { scrapeOptions?: { formats?: string[]; actions?: { type: string }[] } }).scrapeOptions;
  return (options?.formats?.includes('screenshot') ?? false) || (options?.actions?.some((action) => action.type === 'screenshot' || action.type === 'pdf') ?? false);
}

/**
 * A batch or crawl result batch as each entry's stored text (PagedText), for an answer
 * streamed byte for byte; an entry is parsed only when `link` may change it. A store
 * without page texts has its entries read and written out one by one.
 */
export async function readRecordText(store: JobStore, job: StoredJob, query: PageQuery, link?: (entry: PageEntry) => PageEntry): Promise<PagedText> {
  const { record, start, count } = pagedHead(job, query);
  const jobId = job.meta.jobId;
  const linked = link && mayHoldFiles(job) ? link : undefined;
  const stored = store.pageTexts ? await store.pageTexts(jobId, start, count) : undefined;
  const entries = Array.from({ length: count }, (_, i): EntryText => {
    const text = stored?.[i];
    if (text) return { bytes: text.bytes, text: async () => (linked ? JSON.stringify(linked(await text.read())) : text.open()) };
    if (stored) {
      const json = JSON.stringify(placeholder(job, start + i));
      return { bytes: Buffer.byteLength(json), text: async () => json };
    }
    return {
      bytes: 0,
      text: async () => {
        const [entry] = await store.readPages(jobId, start + i, 1);
        const value = entry ?? placeholder(job, start + i);
        return JSON.stringify(linked ? linked(value) : value);
      },
    };
  });
  return { record, entries };
}

/** A batch or crawl result batch whose entries are read one at a time as they are iterated. */
export function readRecordEntries(store: JobStore, job: StoredJob, query: PageQuery): PagedEntries {
  const { record, start, count } = pagedHead(job, query);
  async function* entries(): AsyncGenerator<PageEntry> {
    for (let i = 0; i < count; i++) {
      const [entry] = await store.readPages(job.meta.jobId, start + i, 1);
      yield entry ?? placeholder(job, start + i);
    }
  }
  return { record, entries: entries() };
}
