/**
 * The page cache of `maxAge` (--max-age): one file per URL and output-shaping
 * options under `<home>/cache/`, named by a SHA-256 of both, so that a result is
 * only ever reused for a request that would have produced the same one. Headers,
 * cookies and the user-agent are part of the key: a page read behind a login is
 * never handed to a request without that login. Written atomically; a damaged
 * or unreadable entry is a miss.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { PageData, ScrapeOptions, SessionOptions } from '../api/types.js';
import { normalizeUrl } from '../engine/crawl/normalize.js';
import { readJson, writeJsonAtomic } from './atomicFile.js';

interface CacheEntry {
  /** Date.now() when the page was scraped. */
  storedAt: number;
  data: PageData;
}

export interface PageCache {
  /** The stored page when it is at most `maxAgeMs` old. */
  get(url: string, scrapeOptions: ScrapeOptions | undefined, sessionOptions: SessionOptions | undefined, maxAgeMs: number): Promise<PageData | undefined>;
  put(url: string, scrapeOptions: ScrapeOptions | undefined, sessionOptions: SessionOptions | undefined, data: PageData): Promise<void>;
}

/** What shapes a scrape's output: everything but how long it may take and how old a cached copy may be. */
function cacheKey(url: string, scrapeOptions: ScrapeOptions = {}, sessionOptions: SessionOptions = {}): string {
  const { timeout: _timeout, maxAge: _maxAge, ...shaping } = scrapeOptions;
  const sorted = (value: unknown): unknown =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, sorted(v)]))
      : Array.isArray(value)
        ? value.map(sorted)
        : value;
  const formats = [...(shaping.formats ?? ['markdown'])].sort();
  const key = JSON.stringify(sorted({ url: normalizeUrl(url) ?? url, ...shaping, formats, proxyCountry: sessionOptions.proxyCountry ?? null, useProxy: Boolean(sessionOptions.useProxy) }));
  return createHash('sha256').update(key).digest('hex');
}

export class FilePageCache implements PageCache {
  private readonly dir: string;

  constructor(home: string) {
    this.dir = path.join(home, 'cache');
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(url: string, scrapeOptions: ScrapeOptions | undefined, sessionOptions: SessionOptions | undefined, maxAgeMs: number): Promise<PageData | undefined> {
    const entry = await readJson<CacheEntry>(this.file(cacheKey(url, scrapeOptions, sessionOptions))).catch(() => undefined);
    if (!entry || typeof entry.storedAt !== 'number' || typeof entry.data?.metadata !== 'object') return undefined;
    const age = Date.now() - entry.storedAt;
    return age >= 0 && age <= maxAgeMs ? entry.data : undefined;
  }

  async put(url: string, scrapeOptions: ScrapeOptions | undefined, sessionOptions: SessionOptions | undefined, data: PageData): Promise<void> {
    const file = this.file(cacheKey(url, scrapeOptions, sessionOptions));
    await fs.mkdir(path.dirname(file), { recursive: true });
    await writeJsonAtomic(file, { storedAt: Date.now(), data } satisfies CacheEntry);
  }
}
