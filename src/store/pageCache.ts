/**
 * The page cache of `maxAge` (--max-age): one file per URL and output-shaping
 * options under `<home>/cache/`, named by a SHA-256 of both, so that a result is
 * only ever reused for a request that would have produced the same one. Headers,
 * cookies, the user-agent and the URL's user name and password (sent as Basic
 * authentication) are part of the key: a page read behind a login is never
 * handed to a request without that login. The key is a digest: no credential is
 * stored in clear. Under `serve` each API key has its own entries (`tenant`)
 * unless the operator shares the cache. Written atomically; a damaged or
 * unreadable entry is a miss.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { PageData } from '../api/types.js';
import { cacheKey } from '../jobs/cacheKey.js';
import type { CacheEntry, CachedScrape, PageCache } from '../jobs/contracts.js';
import { readJson, writeStoreFile } from './atomicFile.js';

type Validators = NonNullable<CacheEntry['validators']>;

/** An entry is read by webjobs alone: JSON without indentation, a third less to write (a re-crawl renews one per page). */
const write = (file: string, entry: CacheEntry): Promise<void> => writeStoreFile(file, JSON.stringify(entry));

export class FilePageCache implements PageCache {
  private readonly dir: string;

  constructor(home: string) {
    this.dir = path.join(home, 'cache');
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async last(scrape: CachedScrape): Promise<CacheEntry | undefined> {
    const entry = await readJson<CacheEntry>(this.file(cacheKey(scrape))).catch(() => undefined);
    return entry && typeof entry.storedAt === 'number' && typeof entry.data?.metadata === 'object' ? entry : undefined;
  }

  async get(scrape: CachedScrape, maxAgeMs: number): Promise<PageData | undefined> {
    const entry = await this.last(scrape);
    if (!entry) return undefined;
    const age = Date.now() - entry.storedAt;
    return age >= 0 && age <= maxAgeMs ? entry.data : undefined;
  }

  async put(scrape: CachedScrape, data: PageData, validators?: Validators): Promise<void> {
    const file = this.file(cacheKey(scrape));
    await fs.mkdir(path.dirname(file), { recursive: true });
    await write(file, { storedAt: Date.now(), data, ...(validators ? { validators } : {}) });
  }

  async renew(scrape: CachedScrape, entry: CacheEntry): Promise<void> {
    await write(this.file(cacheKey(scrape)), { ...entry, storedAt: Date.now() });
  }
}
