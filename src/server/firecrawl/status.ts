/** A batch scrape's or crawl's status in Firecrawl's shape, paged by skip and limit. */
import type { JobBackend } from '../../api/backend.js';
import { LIMITS } from '../../api/limits.js';
import { queryInteger } from '../../api/validate.js';
import type { FileLinker } from '../files.js';
import { crawlState, finishedDocuments } from './response.js';
import { entryDocument } from './documentPool.js';
import { entryJson, fitting, streamObject, textOf } from '../pagedAnswer.js';
import type { Readable } from 'node:stream';
import type { PageEntry } from '../../api/types.js';

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
 * A batch or crawl status with the entries from `skip` on, at most `limit` of them and
 * at most `maxBytes` of them (at least one, as Firecrawl bounds its answers at 10 MB),
 * and `next` (the same with skip moved on) while more entries follow. Written as a
 * stream, one document after another: never the whole answer as one string.
 */
export async function pagedStatus(...args: Parameters<typeof statusParts>): Promise<Readable> {
  const { head, texts } = await statusParts(...args);
  return streamObject(head, 'data', texts);
}

/** The status's fields and its documents, as objects (`documents`) or as their JSON text (`texts`, what pagedStatus answers). */
export async function statusParts(
  backend: JobBackend,
  kind: 'batch' | 'crawl',
  jobId: string,
  query: { skip?: string; limit?: string },
  self: string,
  link: FileLinker,
  maxBytes: number,
) {
  const skip = queryInteger(query.skip, 'skip', 0, LIMITS.maxResultOffset, 0);
  const limit = queryInteger(query.limit, 'limit', 1, LIMITS.maxResultBatchSize, LIMITS.defaultResultBatchSize);
  // Result pages are `limit` entries long; a skip between two page starts reads both.
  const page = Math.floor(skip / limit) + 1;
  const offset = skip % limit;
  const read = async (p: number) =>
    backend.resultText ? backend.resultText(kind, jobId, { page: p, batchSize: limit }, link) : textOf(await backend.result(kind, jobId, { page: p, batchSize: limit }), link);
  const first = await read(page);
  let entries = first.entries.slice(offset);
  if (offset > 0 && page < first.record.totalPageBatches) entries = entries.concat((await read(page + 1)).entries);
  const window = fitting(entries.slice(0, limit), 0, maxBytes);
  const record = first.record;
  let completed: number;
  let total: number;
  if ('totalScrapedPages' in record) {
    completed = record.totalScrapedPages;
    // One entry per result page: the page count is the batch's URL count. Asked of resultText where
    // there is one, which reads no entry (result() parsed the first, 19 MB of it on serve's main thread).
    const one = { page: 1, batchSize: 1 };
    total = backend.resultText ? (await backend.resultText('batch', jobId, one)).record.totalPageBatches : (await backend.result('batch', jobId, one)).totalPageBatches;
  } else {
    completed = total = record.totalCrawledPages;
  }
  const taken = skip + window.length;
  const more = taken < total;
  const head = {
    success: true,
    status: crawlState(record.status),
    completed,
    total,
    ...(more ? { next: `${self}?skip=${taken}${query.limit !== undefined ? `&limit=${limit}` : ''}` } : {}),
    ...(record.error ? { error: record.error } : {}),
  };
  // Each entry becomes a Firecrawl document on its own, when it is written (a large one in a worker:
  // documentPool.ts); a batch's URLs not done yet are none.
  const texts = window.map((entry) => () => entryDocument(entry));
  const documents = window.map((entry) => async () => finishedDocuments([JSON.parse(await entryJson(entry)) as PageEntry])[0]);
  return { head, documents, texts };
}
