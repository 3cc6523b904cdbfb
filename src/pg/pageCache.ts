/**
 * The page cache of `maxAge` on PostgreSQL: one row per page and output-shaping
 * options (jobs/cacheKey.ts, as the file store's cache), shared by every worker.
 * Ages are read on the database's clock, the one that stamped the entry.
 */
import type pg from 'pg';
import type { PageData } from '../api/types.js';
import { cacheKey } from '../jobs/cacheKey.js';
import type { CacheEntry, CachedScrape, PageCache } from '../jobs/contracts.js';

type Validators = NonNullable<CacheEntry['validators']>;

export class PgPageCache implements PageCache {
  constructor(private readonly pool: pg.Pool) {}

  /** A miss when the database cannot answer: the page is scraped, as the file cache does with an entry it cannot read. */
  async get(scrape: CachedScrape, maxAgeMs: number): Promise<PageData | undefined> {
    const { rows } = await this.pool.query<{ data: PageData }>(
      `SELECT data FROM webjobs_page_cache
       WHERE key = $1 AND stored_at <= now() AND stored_at >= now() - make_interval(secs => $2::double precision / 1000)`,
      [cacheKey(scrape), maxAgeMs],
    ).catch(() => ({ rows: [] as { data: PageData }[] }));
    const data = rows[0]?.data;
    return data && typeof data.metadata === 'object' ? data : undefined;
  }

  /** Unlike `get`, a database that cannot answer is an error: a history that cannot be read must not report every page as new. */
  async last(scrape: CachedScrape): Promise<CacheEntry | undefined> {
    const { rows } = await this.pool.query<{ data: PageData; stored_at: Date; validators: Validators | null }>(
      'SELECT data, stored_at, validators FROM webjobs_page_cache WHERE key = $1',
      [cacheKey(scrape)],
    );
    const row = rows[0];
    if (!row || typeof row.data?.metadata !== 'object') return undefined;
    return { storedAt: row.stored_at.getTime(), data: row.data, ...(row.validators ? { validators: row.validators } : {}) };
  }

  async put(scrape: CachedScrape, data: PageData, validators?: Validators): Promise<void> {
    await this.pool.query(
      `INSERT INTO webjobs_page_cache (key, stored_at, data, validators) VALUES ($1, now(), $2, $3)
       ON CONFLICT (key) DO UPDATE SET stored_at = excluded.stored_at, data = excluded.data, validators = excluded.validators`,
      [cacheKey(scrape), data, validators ?? null],
    );
  }

  async renew(scrape: CachedScrape, _entry: CacheEntry): Promise<void> {
    await this.pool.query('UPDATE webjobs_page_cache SET stored_at = now() WHERE key = $1', [cacheKey(scrape)]);
  }
}
