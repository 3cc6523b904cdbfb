/**
 * The engine a job sees: the shared engine with the job's own handling of what a
 * scrape returns around it, so that every job kind gets it without a runner
 * knowing.
 *
 * withCache, for `maxAge`: a scrape is answered from the page cache when a stored
 * result of the same URL and output-shaping options is young enough
 * (metadata.cacheState "hit"), else the page is scraped and stored ("miss"). Only
 * pages that worked are stored: a scrape that threw, a page the server answered
 * with an HTTP error (4xx, 5xx), and a page read under a warning (one whose load
 * did not finish within the request's timeout is read as it stands; a cap cut
 * it) are never returned from the cache: a later request, with a longer
 * timeout, may get the whole page. Under serve the entries are the job's API
 * key's own (`tenant`), unless the operator shares the cache.
 *
 * The same page cache keeps the changeTracking format's history (changeTracking.ts):
 * a page that worked is compared with its last result there, which it then replaces.
 *
 * withJobFiles: a screenshot comes from the engine (or the cache) as a data: URL
 * and leaves as a file beside the job, the record holding its path.
 *
 * withJsonFormat, for the json format: the page is read (through the cache) with
 * what the extraction needs, and its data extracted (jsonFormat.ts).
 */
import type { PageData, ScrapeOptions, SessionOptions } from '../api/types.js';
import type { SiteAccess } from '../engine/access.js';
import type { Engine } from '../engine/engine.js';
import { trackChanges, tracksChanges } from './changeTracking.js';
import type { JobFileWriter, PageCache } from './contracts.js';

type Scrape = Engine['scrape'];

/** `engine` with another scrape; everything else passes through. */
function withScrape(engine: Engine, scrape: Scrape): Engine {
  return {
    preflight: (sessionOptions, name) => engine.preflight(sessionOptions, name),
    fetch: (url, options) => engine.fetch(url, options),
    close: () => engine.close(),
    scrape,
  };
}

function worthKeeping(data: PageData): boolean {
  const status = Number(data.metadata.statusCode);
  return Number.isInteger(status) && status >= 200 && status < 400 && !data.metadata.warning;
}

export function withCache(engine: Engine, cache: PageCache, tenant?: string): Engine {
  const maxAgeCache = withMaxAge(engine, cache, tenant);
  return withScrape(maxAgeCache, async (url: string, scrapeOptions?: ScrapeOptions, sessionOptions?: SessionOptions, signal?: AbortSignal, access?: SiteAccess) => {
    const data = await maxAgeCache.scrape(url, scrapeOptions, sessionOptions, signal, access);
    if (!tracksChanges(scrapeOptions) || !worthKeeping(data)) return data;
    return trackChanges(cache, { url, scrapeOptions, sessionOptions, tenant }, data);
  });
}

function withMaxAge(engine: Engine, cache: PageCache, tenant?: string): Engine {
  return withScrape(engine, async (url: string, scrapeOptions?: ScrapeOptions, sessionOptions?: SessionOptions, signal?: AbortSignal, access?: SiteAccess) => {
    const maxAge = scrapeOptions?.maxAge;
    if (!maxAge) return engine.scrape(url, scrapeOptions, sessionOptions, signal, access);
    const scrape = { url, scrapeOptions, sessionOptions, tenant };
    const cached = await cache.get(scrape, maxAge);
    if (cached) return { ...cached, metadata: { ...cached.metadata, cacheState: 'hit' } };
    const data = await engine.scrape(url, scrapeOptions, sessionOptions, signal, access);
    // A full disk loses the cache entry, not the page.
    if (worthKeeping(data)) await cache.put(scrape, data).catch(() => undefined);
    return { ...data, metadata: { ...data.metadata, cacheState: 'miss' } };
  });
}

const DATA_URL = /^data:image\/(png|jpeg|webp);base64,/;

/** Files are numbered from `first` on (a worker running one page of a batch: its place, so pages never share one). */
export function withJobFiles(engine: Engine, files: JobFileWriter, jobId: string, first = 1): Engine {
  let taken = first - 1;
  return withScrape(engine, async (...args: Parameters<Scrape>) => {
    const data = await engine.scrape(...args);
    const match = data.screenshot === undefined ? null : DATA_URL.exec(data.screenshot);
    if (!match) return data;
    const bytes = Buffer.from(data.screenshot!.slice(match[0].length), 'base64');
    return { ...data, screenshot: await files.put(jobId, 'screenshot', ++taken, match[1]!, bytes) };
  });
}

/** The json format (jsonFormat.ts, which loads the model clients): loaded only when a scrape asks for it. */
export function withJsonFormat(engine: Engine, env: NodeJS.ProcessEnv): Engine {
  let scrape: Promise<Scrape> | undefined;
  return withScrape(engine, async (...args: Parameters<Scrape>) => {
    if (!args[1]?.formats?.includes('json')) return engine.scrape(...args);
    scrape ??= import('./jsonFormat.js').then(({ scrapeWithJson }) => scrapeWithJson(engine, env));
    return (await scrape)(...args);
  });
}

/** The preflight of a job that scrapes with these options: the json format's schema and model (jsonFormat.ts), when asked. */
export async function scrapePreflight(options: ScrapeOptions | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  if (!options?.formats?.includes('json')) return;
  (await import('./jsonFormat.js')).jsonPreflight(options, env);
}
