/** A batch scrape's or crawl's status in Firecrawl's shape, paged by skip and limit. */
import type { JobBackend } from '../../api/backend.js';
import { LIMITS } from '../../api/limits.js';
import { queryInteger } from '../../api/validate.js';
import type { FileLinker } from '../files.js';
import { crawlState, finishedDocuments } from './response.js';

/**
 * Where clients reach this server, for the absolute URLs Firecrawl answers with
 * (`url`, `next`): the Host header, and https when a TLS-terminating proxy says
 * so in X-Forwarded-Proto (which only ever changes what this client is told).
 */
export function publicOrigin(headers: { host?: string; 'x-forwarded-proto'?: string | string[] }): string {
  const proto = headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${headers.host ?? 'localhost'}`;
}

/**
 * A batch or crawl status with the entries from `skip` on, at most `limit` of them,
 * and `next` (the same with skip moved on) while more entries follow.
 */
export async function pagedStatus(
  backend: JobBackend,
  kind: 'batch' | 'crawl',
  jobId: string,
  query: { skip?: string; limit?: string },
  self: string,
  link: FileLinker,
) {
  const skip = queryInteger(query.skip, 'skip', 0, Number.MAX_SAFE_INTEGER, 0);
  const limit = queryInteger(query.limit, 'limit', 1, LIMITS.maxResultBatchSize, LIMITS.defaultResultBatchSize);
  // Result pages are `limit` entries long; a skip between two page starts reads both.
  const page = Math.floor(skip / limit) + 1;
  const offset = skip % limit;
  const first = await backend.result(kind, jobId, { page, batchSize: limit });
  let entries = first.data;
  if (offset > 0 && page < first.totalPageBatches) entries = entries.concat((await backend.result(kind, jobId, { page: page + 1, batchSize: limit })).data);
  const window = entries.slice(offset, offset + limit);
  let completed: number;
  let total: number;
  if ('totalScrapedPages' in first) {
    completed = first.totalScrapedPages;
    // One entry per result page: the page count is the batch's URL count.
    total = (await backend.result('batch', jobId, { page: 1, batchSize: 1 })).totalPageBatches;
  } else {
    completed = total = first.totalCrawledPages;
  }
  const more = skip + limit < total;
  return {
    success: true,
    status: crawlState(first.status),
    completed,
    total,
    data: finishedDocuments(window.map(link)),
    ...(more ? { next: `${self}?skip=${skip + limit}${query.limit !== undefined ? `&limit=${limit}` : ''}` } : {}),
    ...(first.error ? { error: first.error } : {}),
  };
}
