/**
 * Job files (screenshots) on `webjobs serve`: a record holds the file's path on
 * this machine; what a client is given is its URL at GET /api/files/{jobId}/{name},
 * which serves it to the key that owns the job. /api and the Firecrawl API
 * (/v1, /v2) hand out the same URLs.
 */
import type { JobFileStore } from '../jobs/contracts.js';

/** A page with its screenshot path replaced by its URL; the page itself when it has none of our files. */
export type FileLinker = <P extends { screenshot?: string }>(page: P) => P;

/** Links pages' screenshots to URLs at `origin` (scheme, host and port, as the client reached serve). */
export function fileLinker(files: JobFileStore | undefined, origin: string): FileLinker {
  return (page) => {
    const file = files && typeof page.screenshot === 'string' ? files.nameOf(page.screenshot) : undefined;
    return file ? { ...page, screenshot: `${origin}/api/files/${file.jobId}/${file.name}` } : page;
  };
}

/** A job record with each page's screenshot linked: `data` one page (scrape) or a list of them (batch, crawl). */
export function withFileUrls<R extends { data?: unknown }>(record: R, link: FileLinker): R {
  const { data } = record;
  if (data === null || typeof data !== 'object') return record;
  return { ...record, data: Array.isArray(data) ? data.map((page: object) => link(page)) : link(data) };
}
