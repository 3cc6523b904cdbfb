/**
 * A search (issue 55), written once for the back ends that run jobs (the file
 * store, PostgreSQL): the engine's results, then, when the request names formats,
 * one batch job over them, scraped as batch scrapes any page (the same engine
 * choice, cache and politeness), each result carrying its page or its error.
 */
import type { JobBackend, SearchOptions } from '../api/backend.js';
import { validateSearchRequest, type SearchHit, type SearchRequest, type SearchResult } from '../api/search.js';
import type { BatchScrapeRequest, PageEntry } from '../api/types.js';
import { searchBackendFor, searchResults } from '../engine/search/find.js';

type Jobs = Pick<JobBackend, 'start' | 'wait' | 'result' | 'cancel'>;

/** The page's fields a scraped result carries (url and status stay the search's). */
function pageFields(entry: PageEntry): Partial<SearchHit> {
  const { url: _url, status: _status, error, changeTracking: _changes, ...data } = entry;
  return entry.status === 'completed' ? data : { error: error ?? `the page was not scraped (${entry.status})` };
}

export async function searchWith(jobs: Jobs, request: SearchRequest, env: NodeJS.ProcessEnv, options: SearchOptions = {}): Promise<SearchResult> {
  const validated = validateSearchRequest(request);
  const signal = options.signal ?? new AbortController().signal;
  const engine = searchBackendFor(env, validated.searchBackend);
  const hits = await searchResults(engine, validated, signal);
  const formats = validated.scrapeOptions?.formats ?? [];
  if (formats.length === 0 || hits.length === 0) return { web: hits };

  // Refused hosts are listed, never fetched: the batch holds the others only.
  const refusals = hits.map((hit) => options.refuse?.(hit.url));
  const toScrape = hits.filter((_, i) => refusals[i] === undefined);
  const entries = toScrape.length > 0 ? await scrape(jobs, { urls: toScrape.map((hit) => hit.url), scrapeOptions: validated.scrapeOptions, ...(validated.sessionOptions ? { sessionOptions: validated.sessionOptions } : {}) }, signal, options) : [];
  let next = 0;
  return {
    web: hits.map((hit, i) => {
      const refused = refusals[i];
      if (refused !== undefined) return { ...hit, error: refused };
      const entry = entries[next++];
      return entry ? { ...hit, ...pageFields(entry) } : { ...hit, error: 'the page was not scraped' };
    }),
  };
}

/** One batch job over `request.urls`; its entries in the order given. Aborting `signal` stops the job. */
async function scrape(jobs: Jobs, request: BatchScrapeRequest, signal: AbortSignal, options: SearchOptions): Promise<PageEntry[]> {
  signal.throwIfAborted();
  const jobId = options.startBatch ? await options.startBatch(request) : (await jobs.start('batch', request, options.tenant ? { tenant: options.tenant } : {})).jobId;
  const stop = () => void jobs.cancel(jobId, 'batch').catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  // Stopped while the job was being started: no 'abort' event comes any more.
  if (signal.aborted) stop();
  try {
    await jobs.wait('batch', jobId);
  } finally {
    signal.removeEventListener('abort', stop);
  }
  signal.throwIfAborted();
  const record = await jobs.result('batch', jobId, { page: 1, batchSize: request.urls.length });
  if (record.status === 'failed' && record.data.length === 0) {
    return request.urls.map((url) => ({ url, status: 'failed', error: record.error ?? 'the batch failed', metadata: {} }));
  }
  return record.data;
}
