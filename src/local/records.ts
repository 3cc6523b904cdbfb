/** Turns what the store holds into the record the spec's GET result endpoint returns. */
import { withoutCredentials } from '../api/redact.js';
import { validatePageQuery } from '../api/validate.js';
import type { BatchScrapeRequest, JobRecord, PageEntry, PageQuery } from '../api/types.js';
import type { JobStore, StoredJob } from '../store/jobStore.js';

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

export async function readRecord(store: JobStore, job: StoredJob, query: PageQuery = {}): Promise<JobRecord> {
  const { kind } = job.meta;
  if (kind !== 'batch' && kind !== 'crawl') return job.record as JobRecord;
  const { page, batchSize } = validatePageQuery(query);
  const total = entryCount(job);
  const start = (page - 1) * batchSize;
  const count = Math.max(0, Math.min(batchSize, total - start));
  const entries = await store.readPages(job.meta.jobId, start, count);
  const data = entries.map((entry, i) => entry ?? placeholder(job, start + i));
  return {
    ...job.record,
    totalPageBatches: Math.max(1, Math.ceil(total / batchSize)),
    currentPageBatch: page,
    batchSize,
    data,
  } as JobRecord;
}
