/**
 * `maxAge` for every job kind at once: the engine a job sees answers a scrape
 * from the page cache when a stored result of the same URL and output-shaping
 * options is young enough (metadata.cacheState "hit"), and otherwise scrapes and
 * stores the result ("miss"). Only pages that worked are stored: a scrape that
 * threw, or a page the server answered with an HTTP error (4xx, 5xx), is never
 * returned from the cache.
 */
import type { PageData, ScrapeOptions, SessionOptions } from '../api/types.js';
import type { SiteAccess } from '../engine/access.js';
import type { Engine } from '../engine/engine.js';
import type { PageCache } from '../store/pageCache.js';

function worthKeeping(data: PageData): boolean {
  const status = Number(data.metadata.statusCode);
  return Number.isInteger(status) && status >= 200 && status < 400;
}

export function withCache(engine: Engine, cache: PageCache): Engine {
  return {
    preflight: (sessionOptions) => engine.preflight(sessionOptions),
    fetch: (url, options) => engine.fetch(url, options),
    close: () => engine.close(),
    async scrape(url: string, scrapeOptions?: ScrapeOptions, sessionOptions?: SessionOptions, signal?: AbortSignal, access?: SiteAccess): Promise<PageData> {
      const maxAge = scrapeOptions?.maxAge;
      if (!maxAge) return engine.scrape(url, scrapeOptions, sessionOptions, signal, access);
      const cached = await cache.get(url, scrapeOptions, sessionOptions, maxAge);
      if (cached) return { ...cached, metadata: { ...cached.metadata, cacheState: 'hit' } };
      const data = await engine.scrape(url, scrapeOptions, sessionOptions, signal, access);
      // A full disk loses the cache entry, not the page.
      if (worthKeeping(data)) await cache.put(url, scrapeOptions, sessionOptions, data).catch(() => undefined);
      return { ...data, metadata: { ...data.metadata, cacheState: 'miss' } };
    },
  };
}
