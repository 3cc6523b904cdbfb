/**
 * A crawl's pages as they finish on PostgreSQL (PgWorkStore.finishPage and
 * finishCrawl), what the in-process crawl does in memory (runners/crawl.ts): each
 * page's new links recorded and queued up to maxPages, each URL once; a page that
 * landed where another one had (a second redirect to a page crawled) dropped, its
 * place given to the next URL found past maxPages; and with change tracking, a
 * finishing step once the last page is in, which adds the pages of the previous
 * crawl that this one did not reach (jobs/crawlChanges.ts).
 *
 * Each runs in the caller's transaction, the job's row locked first: the counts,
 * the cap and the landed pages move under that lock, one writer at a time.
 */
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { PageEntry } from '../api/types.js';
import type { FoundLink } from '../jobs/crawlPage.js';
import { bossDb, DROPPED, HOLDS_JOB, NOT_CRAWLED, NOT_CRAWLED_FROM } from './store.js';
import { inTurn } from './fairTurns.js';

/** What a crawl's page adds when it finishes (CrawledPage of jobs/crawlPage.ts). */
export interface CrawlFinish {
  links?: FoundLink[];
  /** The normalised URL it landed on; none for a page robots.txt refused. */
  landed?: string;
}

/** How the store queues work (PgJobStore.queueJob), inside the caller's transaction. */
export interface Queues {
  boss: PgBoss;
  page(jobId: string, index: number): PgBoss.JobInsert & { id: string };
  whole(jobId: string): PgBoss.JobInsert & { id: string };
}

interface CrawlCounts {
  total_pages: number;
  max_pages: number;
  dropped_pages: number;
  done_pages: number;
  tracks_changes: boolean;
}

/** Stores page `index` of a running crawl if `attempt` still holds it; 'ended' when the job ended, 'fenced' when another attempt holds it. */
export async function finishCrawlPage(
  client: pg.PoolClient,
  queues: Queues,
  lease: { jobId: string; index: number; attempt: number },
  entry: PageEntry,
  { links = [], landed }: CrawlFinish,
): Promise<'stored' | 'ended' | 'fenced'> {
  const { jobId, index, attempt } = lease;
  const { rows } = await client.query<CrawlCounts>(
    `SELECT total_pages, max_pages, dropped_pages, done_pages, tracks_changes FROM webjobs_jobs WHERE id = $1 AND status = 'running' FOR UPDATE`,
    [jobId],
  );
  const job = rows[0];
  if (!job) return 'ended';
  const duplicate =
    landed !== undefined && ((await client.query('SELECT 1 FROM webjobs_pages WHERE job_id = $1 AND landed_key = $2 AND idx <> $3', [jobId, landed, index])).rowCount ?? 0) > 0;
  // Still this attempt's, and its lease not taken back (status 'running'): else a retry owns the page.
  const { rowCount } = await client.query(
    `UPDATE webjobs_pages SET entry = $4, status = $5, landed_key = $6, lease_until = NULL
     WHERE job_id = $1 AND idx = $2 AND attempt = $3 AND status = 'running' AND entry IS NULL`,
    duplicate ? [jobId, index, attempt, null, DROPPED, null] : [jobId, index, attempt, entry, entry.status, landed ?? null],
  );
  if (rowCount !== 1) return 'fenced';
  let total = job.total_pages;
  let dropped = job.dropped_pages;
  let done = job.done_pages;
  if (duplicate) {
    // Its place goes to the next URL found: it does not count toward maxPages.
    total--;
    dropped++;
  } else done++;
  const queued: PgBoss.JobInsert[] = [];
  let next = 0;
  for (; !duplicate && next < links.length && total < job.max_pages; next++) {
    const link = links[next]!;
    const queueJob = queues.page(jobId, total + dropped);
    // A URL some page landed on already is no new page (the in-process crawl's frontier has it seen).
    const inserted = await client.query(
      `INSERT INTO webjobs_pages (job_id, idx, url, url_key, queue_job, lastmod, depth)
       SELECT $1, $2, $3, $4, $5, $6, $7 WHERE NOT EXISTS (SELECT 1 FROM webjobs_pages WHERE job_id = $1 AND landed_key = $4)
       ON CONFLICT (job_id, url_key) DO NOTHING`,
      [jobId, total + dropped, link.url, link.key, queueJob.id, link.lastmod ?? null, link.depth],
    );
    if (inserted.rowCount === 1) {
      queued.push(queueJob);
      total++;
    }
  }
  // Past the cap: kept, never queued, for the record's urlsNotCrawled (each URL once, as the in-process crawl's frontier).
  if (!duplicate && next < links.length) await keepNotCrawled(client, jobId, links.slice(next));
  if (duplicate && total < job.max_pages) {
    const queueJob = queues.page(jobId, total + dropped);
    const promoted = await client.query(
      `UPDATE webjobs_pages SET idx = $2, status = 'pending', queue_job = $3
       WHERE job_id = $1 AND idx = (
         SELECT p.idx FROM webjobs_pages p WHERE p.job_id = $1 AND p.status = '${NOT_CRAWLED}'
           AND NOT EXISTS (SELECT 1 FROM webjobs_pages x WHERE x.job_id = $1 AND x.landed_key = p.url_key)
         ORDER BY p.idx LIMIT 1)`,
      [jobId, total + dropped, queueJob.id],
    );
    if (promoted.rowCount === 1) {
      queued.push(queueJob);
      total++;
    }
  }
  const db = { db: bossDb(client) };
  // The pages found take the turns of the crawl's key (fairTurns.ts).
  if (queued.length > 0) await queues.boss.insert(await inTurn(client, jobId, queued), db);
  const last = done >= total;
  // With change tracking the last page does not end the crawl: its finishing step (a job of the job queue) does.
  const finishing = last && job.tracks_changes ? queues.whole(jobId) : undefined;
  if (finishing) await queues.boss.insert([finishing], db);
  await client.query(
    `UPDATE webjobs_jobs SET total_pages = $2, dropped_pages = $3, done_pages = $4,
       status = CASE WHEN $5 THEN 'completed' ELSE status END, queue_job = coalesce($6, queue_job)
     WHERE id = $1`,
    [jobId, total, dropped, done, last && !finishing, finishing?.id ?? null],
  );
  return 'stored';
}

/**
 * Rows for links found past maxPages, status NOT_CRAWLED, numbered from NOT_CRAWLED_FROM on; a URL known already
 * (crawled, queued or kept) is not kept again. The result counts them.
 */
async function keepNotCrawled(client: pg.PoolClient, jobId: string, links: FoundLink[]): Promise<void> {
  await client.query(
    `INSERT INTO webjobs_pages (job_id, idx, url, url_key, status, lastmod, depth)
     SELECT $1, (SELECT coalesce(max(idx) + 1, $2) FROM webjobs_pages WHERE job_id = $1 AND idx >= $2) + i - 1, u, k, '${NOT_CRAWLED}', m, d
     FROM unnest($3::text[], $4::text[], $5::bigint[], $6::int[]) WITH ORDINALITY AS t (u, k, m, d, i)
     ON CONFLICT (job_id, url_key) DO NOTHING`,
    [jobId, NOT_CRAWLED_FROM, links.map((l) => l.url), links.map((l) => l.key), links.map((l) => l.lastmod ?? null), links.map((l) => l.depth)],
  );
}

/** How far a crawl came, for its finishing step: its pages stored, and its cap. */
export async function crawlCounts(client: pg.Pool, jobId: string): Promise<{ done: number; maxPages: number }> {
  const { rows } = await client.query<CrawlCounts>('SELECT done_pages, max_pages FROM webjobs_jobs WHERE id = $1', [jobId]);
  return { done: rows[0]?.done_pages ?? 0, maxPages: rows[0]?.max_pages ?? 0 };
}

/** Ends a crawl's finishing step held by `attempt`: its `added` entries (the pages removed) after the crawl's, and the job completed. */
export async function endCrawl(client: pg.PoolClient, jobId: string, attempt: number, added: PageEntry[]): Promise<void> {
  const { rows } = await client.query<CrawlCounts>(
    `SELECT total_pages, dropped_pages FROM webjobs_jobs WHERE id = $1 AND status = 'running' ${HOLDS_JOB} FOR UPDATE`,
    [jobId, attempt],
  );
  const job = rows[0];
  if (!job) return;
  const from = job.total_pages + job.dropped_pages;
  if (added.length > 0) {
    await client.query(
      `INSERT INTO webjobs_pages (job_id, idx, url, status, entry)
       SELECT $1, $2 + i - 1, e ->> 'url', 'completed', e FROM unnest($3::json[]) WITH ORDINALITY AS t (e, i)`,
      [jobId, from, added.map((entry) => JSON.stringify(entry))],
    );
  }
  await client.query(`UPDATE webjobs_jobs SET done_pages = done_pages + $2, status = 'completed', lease_until = NULL WHERE id = $1`, [jobId, added.length]);
}
