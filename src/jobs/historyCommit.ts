/**
 * The end of a job with the changeTracking format on a back end that defers the
 * history (changeTracking.ts): the pages it found new or changed become their
 * history's last versions, so that the next run compares with what this one
 * reported. Called once the job completed; a job stopped or killed before commits
 * nothing, and its changes are found again by the next run (or by its resume,
 * whose completion commits the pages of every run of the job).
 */
import type { JobKind, JobRequestByKind, PageEntry, ScrapeOptions, SessionOptions } from '../api/types.js';
import { historyOf, historyVersion, tracksChanges } from './changeTracking.js';
import type { JobCache } from './crawlChanges.js';

/** The job's entries to commit, by their index; `url` the URL the page was asked for (the history's key). */
export interface CommittedPage {
  url: string;
  entry: PageEntry;
}

/** Whether the job's pages are tracked and so may owe a commit. */
export function commitsHistory(kind: JobKind, request: JobRequestByKind[JobKind]): boolean {
  return (kind === 'batch' || kind === 'crawl' || kind === 'scrape') && tracksChanges((request as { scrapeOptions?: ScrapeOptions }).scrapeOptions);
}

/** The URL a batch or crawl entry was asked for: a batch's list says it; a crawl's entry keeps it as sourceURL. */
export function askedUrl(kind: JobKind, request: JobRequestByKind[JobKind], index: number, entry: PageEntry): string {
  if (kind === 'batch') return (request as JobRequestByKind['batch']).urls[index] ?? entry.url;
  if (kind === 'scrape') return (request as JobRequestByKind['scrape']).url;
  return entry.metadata?.sourceURL || entry.url;
}

/** Puts the history version of every new or changed page among `pages`. */
export async function commitHistory(jobCache: JobCache, request: JobRequestByKind[JobKind], pages: AsyncIterable<CommittedPage> | Iterable<CommittedPage>): Promise<void> {
  const { scrapeOptions, sessionOptions } = request as { scrapeOptions?: ScrapeOptions; sessionOptions?: SessionOptions };
  for await (const { url, entry } of pages) {
    const status = entry.changeTracking?.changeStatus;
    if (entry.status !== 'completed' || (status !== 'new' && status !== 'changed')) continue;
    const history = historyOf({ url, scrapeOptions, sessionOptions, tenant: jobCache.tenant });
    await jobCache.cache.put(history, historyVersion(entry.metadata?.url || url, entry.markdown ?? ''));
  }
}

/**
 * The stored entries of a batch or crawl, with the URL each was asked for: those at `indexes`, or (none given)
 * every one, read 100 at a time.
 */
export async function* storedPages(
  kind: JobKind,
  request: JobRequestByKind[JobKind],
  readPages: (start: number, count: number) => Promise<(PageEntry | undefined)[]>,
  indexes?: ReadonlySet<number>,
): AsyncGenerator<CommittedPage> {
  if (indexes) {
    for (const index of [...indexes].sort((a, b) => a - b)) {
      const [entry] = await readPages(index, 1);
      if (entry) yield { url: askedUrl(kind, request, index, entry), entry };
    }
    return;
  }
  for (let start = 0; ; start += 100) {
    const entries = await readPages(start, 100);
    if (!entries.some(Boolean)) return;
    for (const [i, entry] of entries.entries()) if (entry) yield { url: askedUrl(kind, request, start + i, entry), entry };
  }
}
