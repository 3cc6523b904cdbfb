/** Turns what the store holds into the record the spec's GET result endpoint returns. */
import { withoutCredentials } from '../api/redact.js';
import { validatePageQuery } from '../api/validate.js';
import type { EntryText, PagedEntries, PagedText } from '../api/backend.js';
import type { BatchScrapeRequest, JobRecord, PageEntry, PagedRecordHead, PageQuery } from '../api/types.js';
import type { OwnedJobStore, StoredJob } from '../jobs/jobStore.js';

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

export async function readRecord(store: OwnedJobStore, job: StoredJob, query: PageQuery = {}): Promise<JobRecord> {
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
export async function readRecordText(store: OwnedJobStore, job: StoredJob, query: PageQuery, link?: (entry: PageEntry) => PageEntry): Promise<PagedText> {
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

/** Bytes of entries read together at most (a larger entry is read alone): a result batch of large pages never sits in memory whole. */
const GROUP_BYTES = 4 * 1024 * 1024;

/**
 * A batch or crawl result batch whose entries are read as they are iterated: small ones several at a time, by
 * their stored sizes where the store knows them (one read of the file for a run of them), else one at a time.
 */
export function readRecordEntries(store: OwnedJobStore, job: StoredJob, query: PageQuery): PagedEntries {
  const { record, start, count } = pagedHead(job, query);
  const jobId = job.meta.jobId;
  async function* entries(): AsyncGenerator<PageEntry> {
    const sizes = store.pageSizes ? await store.pageSizes(jobId, start, count) : [];
    for (let i = 0; i < count; ) {
      let n = 1;
      let bytes = sizes[i] ?? GROUP_BYTES;
      for (let next = sizes[i + n]; i + n < count && next !== undefined && bytes + next <= GROUP_BYTES; next = sizes[i + n]) {
        bytes += next;
        n++;
      }
      const group = await store.readPages(jobId, start + i, n);
      for (let k = 0; k < n; k++) yield group[k] ?? placeholder(job, start + i + k);
      i += n;
    }
  }
  return { record, entries: entries() };
}
