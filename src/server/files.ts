/**
 * Job files (screenshots) on `webjobs serve`: a record holds the file's path on
 * this machine; what a client is given is its URL at GET /api/files/{jobId}/{name},
 * which serves it to the key that owns the job. /api and the Firecrawl API
 * (/v1, /v2) hand out the same URLs.
 */
import type { JobFileStore } from '../jobs/contracts.js';
import type { ActionsResult } from '../api/actionTypes.js';

/** A page with its screenshot path (and its actions' files) replaced by URLs; the page itself when it has none of our files. */
export type FileLinker = <P extends { screenshot?: string; actions?: ActionsResult }>(page: P) => P;

/** Links pages' screenshots and their actions' files to URLs at `origin` (scheme, host and port, as the client reached serve). */
export function fileLinker(files: JobFileStore | undefined, origin: string): FileLinker {
  const link = (stored: string): string => {
    const file = files?.nameOf(stored);
    return file ? `${origin}/api/files/${file.jobId}/${file.name}` : stored;
  };
  return (page) => {
    if (!files) return page;
    let out = page;
    if (typeof page.screenshot === 'string') {
      const url = link(page.screenshot);
      if (url !== page.screenshot) out = { ...out, screenshot: url };
    }
    const actions = page.actions;
    if (actions && actions.screenshots.length + actions.pdfs.length > 0) {
      out = { ...out, actions: { ...actions, screenshots: actions.screenshots.map(link), pdfs: actions.pdfs.map(link) } };
    }
    return out;
  };
}

/** A job record with each page's screenshot linked: `data` one page (scrape) or a list of them (batch, crawl). */
export function withFileUrls<R extends { data?: unknown }>(record: R, link: FileLinker): R {
  const { data } = record;
  if (data === null || typeof data !== 'object') return record;
  return { ...record, data: Array.isArray(data) ? data.map((page: object) => link(page)) : link(data) };
}
