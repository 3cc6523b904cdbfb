/**
 * The stand-in of a batch's or crawl's entry that its store lost (a damaged pages.jsonl or pages.idx, mended
 * for `webjobs retry`): a failed entry for the URL the page was requested at, saying why, so that the result
 * says what was lost and a retry runs it again.
 */
import { withoutCredentials } from '../api/redact.js';
import type { BatchScrapeRequest, JobKind, JobRequest, PageEntry } from '../api/types.js';
import { requestedUrls } from './runners/crawlState.js';
import { failedEntry } from './runners/pageEntry.js';

export const LOST_ENTRY = "lost: the job's stored entry could not be read (its pages.jsonl or pages.idx was damaged)";

/**
 * The stand-ins of a job's lost entries by index: a batch's URL is its request's; a crawl's is the one its
 * journal says the page was requested at (undefined, left out, where the journal does not say).
 */
export function lostEntries(kind: JobKind, request: JobRequest, journal: readonly unknown[]): (index: number) => PageEntry | undefined {
  const formats = 'scrapeOptions' in request ? request.scrapeOptions?.formats : undefined;
  const urls = kind === 'batch' ? (request as BatchScrapeRequest).urls : undefined;
  const crawled = kind === 'crawl' ? requestedUrls(journal) : undefined;
  return (index) => {
    const url = urls ? urls[index] : crawled?.get(index);
    return url === undefined ? undefined : failedEntry(withoutCredentials(url), new Error(LOST_ENTRY), formats);
  };
}
