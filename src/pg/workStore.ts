/**
 * The PostgreSQL job store as workers see it (store.ts, plus the work it hands
 * out on leases).
 *
 * Leases: the worker that takes a page (or a scrape/extract job) holds it until
 * lease_until, which it renews while it lives (a heartbeat); a lease that ran out
 * is taken back (reapExpired) and the page queued again. Writes are fenced by
 * attempt: each delivery bumps the row's attempt and may only write while the row
 * still carries its number and its lease was not taken back, so a worker presumed
 * dead that comes back cannot overwrite a retry.
 */
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { JobKind, JobRequest, PageEntry } from '../api/types.js';
import type { RecordHeader } from '../jobs/jobStore.js';
import { inTransaction } from './client.js';
import { BOSS_SCHEMA, JOB_QUEUE, MAX_ATTEMPTS, PAGE_QUEUE } from './connect.js';
import { endCrawl, finishCrawlPage, type CrawlFinish, type Queues } from './crawlPages.js';
import { ACTIVE, bossDb, ENDED_CHANNEL, HOLDS_JOB, PgJobStore, type JobRow } from './store.js';

/**
 * A piece of work held on a lease: page `index` of a batch or crawl, or a whole scrape/extract job (no index), at
 * one attempt. The model is Crawlee's RequestQueueClient: renew (prolongRequestLock), requeue (deleteRequestLock),
 * reapExpired (a lock that ran out).
 */
export interface Held {
  jobId: string;
  index?: number;
  /** Deliveries so far: a write by an earlier attempt, whose lease was taken back, is fenced off. */
  attempt: number;
}

export interface PageLease extends Held {
  index: number;
  url: string;
  kind: JobKind;
  /** Absent when the worker said it holds it already. */
  request?: JobRequest;
  /** Why the attempt before this one ended without a result (its worker's lease ran out, or an error). */
  lastError: string | null;
  /** Whose entries of the page cache the job reads and writes (serve: its API key); none: the shared ones. */
  cacheTenant?: string;
  /** A crawl's page: the <lastmod> its sitemap gave it (ms), when the crawl tracks changes. */
  lastmod?: number;
  /** A crawl's page: links from the start page (the sitemap's pages: 0). */
  depth: number;
}

/**
 * A page (no index: a scrape/extract job) whose queue job ended without beginning it, and for which that was the
 * last attempt: the sweep holds it on a lease, for the worker to record it failed saying why.
 */
export interface SpentTake extends Held {
  url: string;
  lastError: string;
}

export interface JobLease extends Held {
  kind: JobKind;
  request: JobRequest;
  record: Record<string, unknown>;
  lastError: string | null;
  cacheTenant?: string;
}

/** What became of a page's result: stored, dropped because the job ended meanwhile, or fenced off (a later attempt holds the page). */
export type PageWrite = 'stored' | 'ended' | 'fenced';

/** Why a page whose worker went silent is run again. */
export const LEASE_EXPIRED = 'its worker stopped renewing its lease (killed, stopped, or cut off from the database)';

/** Expired leases taken back per pass. */
const REAP_BATCH = 100;
/** Pages and jobs the sweep queues again per pass. */
const SWEEP_BATCH = 100;
/** Names the transaction lock of the sweep (one node sweeps at a time); any constant all nodes agree on. */
const SWEEP_LOCK = 7_734_500_013;

/** Why a page (or job) waits with no live queue job: what became of the one it had, as pg-boss left it. */
function orphanReason(what: 'page' | 'job', row: { state: string | null; started: boolean | null; retry_count: number | null; message: string | null }): string {
  if (row.state === null) return `its queue job was lost before the ${what} was begun`;
  const deliveries = row.started ? (row.retry_count ?? 0) + 1 : 0;
  const why = row.message ? ` (${row.message})` : '';
  return `its queue job was ${row.state} after ${deliveries} deliver${deliveries === 1 ? 'y' : 'ies'} without the ${what} being begun${why}`;
}

export class PgWorkStore extends PgJobStore {
  /**
   * Takes page `index` for one more attempt; undefined when there is nothing to do
   * (the job ended, or another delivery already finished the page). One statement:
   * the job row is written only by the first page (pending -> running), not by
   * every page, and its request (every URL of a batch) is read only when the
   * worker does not hold it already (`withRequest`).
   */
  async beginPage(jobId: string, index: number, queueJob: string, withRequest = true): Promise<PageLease | undefined> {
    const { rows } = await this.pool.query<{ attempt: number; url: string; last_error: string | null; lastmod: string | null; depth: number | null; kind: JobKind; request: JobRequest | null; cache_tenant: string | null }>({
      name: 'webjobs-begin-page',
      text: `WITH job AS (SELECT kind, CASE WHEN $5 THEN request END AS request, cache_tenant FROM webjobs_jobs WHERE id = $1 AND status IN ${ACTIVE}),
       -- A page another worker holds on a live lease is not taken from it (a duplicate delivery).
       page AS (
         UPDATE webjobs_pages SET attempt = attempt + 1, status = 'running', lease_until = now() + make_interval(secs => $3), queue_job = $4
         WHERE job_id = $1 AND idx = $2 AND entry IS NULL AND (status <> 'running' OR lease_until IS NULL OR lease_until < now())
           AND EXISTS (SELECT 1 FROM job)
         RETURNING attempt, url, last_error, lastmod, depth),
       -- Re-checked under the row lock: a job stopped meanwhile stays stopped.
       started AS (UPDATE webjobs_jobs SET status = 'running' WHERE id = $1 AND status = 'pending' AND EXISTS (SELECT 1 FROM page))
       SELECT page.attempt, page.url, page.last_error, page.lastmod, page.depth, job.kind, job.request, job.cache_tenant FROM page, job`,
      values: [jobId, index, this.leaseSeconds, queueJob, withRequest],
    });
    const taken = rows[0];
    if (!taken) return undefined;
    return {
      jobId,
      index,
      attempt: taken.attempt,
      url: taken.url,
      lastError: taken.last_error,
      ...(taken.lastmod !== null ? { lastmod: Number(taken.lastmod) } : {}),
      depth: taken.depth ?? 0,
      kind: taken.kind,
      request: taken.request ?? undefined,
      cacheTenant: taken.cache_tenant ?? undefined,
    };
  }

  /**
   * Stores a page's entry if this attempt still holds the page and the job runs; for a crawl (`crawl`), what the
   * page adds, in the same transaction (crawlPages.ts). Ends the job when its last page is in.
   */
  async finishPage(jobId: string, index: number, attempt: number, entry: PageEntry, crawl?: CrawlFinish): Promise<PageWrite> {
    if (!crawl) return this.finishLeaf(jobId, index, attempt, entry);
    return inTransaction(this.pool, (client) => finishCrawlPage(client, this.queues, { jobId, index, attempt }, entry, crawl));
  }

  /** Ends the finishing step of a crawl with change tracking held by `attempt`: the pages it no longer reached added, the job completed. */
  async finishCrawl(jobId: string, attempt: number, removed: PageEntry[]): Promise<void> {
    await inTransaction(this.pool, (client) => endCrawl(client, jobId, attempt, removed));
  }

  private readonly queues: Queues = {
    boss: this.boss,
    page: (jobId, index) => this.queueJob(PAGE_QUEUE, { jobId, index }),
    whole: (jobId) => this.queueJob(JOB_QUEUE, { jobId }),
  };

  /**
   * finishPage for a page that adds no pages (every batch page; a crawl page with
   * no new links): one statement. The job row is locked first, so the page is
   * stored only while the job runs, and counted under that lock.
   */
  private async finishLeaf(jobId: string, index: number, attempt: number, entry: PageEntry): Promise<PageWrite> {
    const { rows } = await this.pool.query<{ running: boolean; stored: boolean }>({
      name: 'webjobs-finish-page',
      text: `WITH job AS (SELECT id FROM webjobs_jobs WHERE id = $1 AND status = 'running' FOR UPDATE),
       -- Still this attempt's, and its lease not taken back (status 'running'): else a retry owns the page.
       page AS (
         UPDATE webjobs_pages SET entry = $4, status = $5, lease_until = NULL
         WHERE job_id = $1 AND idx = $2 AND attempt = $3 AND status = 'running' AND entry IS NULL AND EXISTS (SELECT 1 FROM job)
         RETURNING 1),
       counted AS (
         UPDATE webjobs_jobs SET done_pages = done_pages + 1, status = CASE WHEN done_pages + 1 >= total_pages THEN 'completed' ELSE status END
         WHERE id = $1 AND EXISTS (SELECT 1 FROM page)
         RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM job) AS running, EXISTS (SELECT 1 FROM counted) AS stored`,
      values: [jobId, index, attempt, entry, entry.status],
    });
    const { running, stored } = rows[0]!;
    return !running ? 'ended' : stored ? 'stored' : 'fenced';
  }

  /** Takes a scrape or extract job for one more attempt; undefined when it has ended or a live lease holds it. */
  async beginJob(jobId: string, queueJob: string): Promise<JobLease | undefined> {
    const { rows } = await this.pool.query<JobRow & { last_error: string | null; cache_tenant: string | null }>(
      `UPDATE webjobs_jobs SET status = 'running', attempt = attempt + 1, lease_until = now() + make_interval(secs => $2), queue_job = $3
       WHERE id = $1 AND status IN ${ACTIVE} AND (lease_until IS NULL OR lease_until < now())
       RETURNING attempt, kind, request, record, last_error, cache_tenant`,
      [jobId, this.leaseSeconds, queueJob],
    );
    const row = rows[0];
    return row
      ? { jobId, attempt: row.attempt, kind: row.kind, request: row.request, record: row.record, lastError: row.last_error, cacheTenant: row.cache_tenant ?? undefined }
      : undefined;
  }

  /** Read-modify-write of the record header by the attempt that holds the job (attempt undefined: any, for page jobs). */
  async updateRecord(jobId: string, attempt: number | undefined, change: (record: RecordHeader) => void): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<JobRow>(
        `SELECT status, record FROM webjobs_jobs WHERE id = $1 AND status = 'running' ${attempt === undefined ? '' : HOLDS_JOB} FOR UPDATE`,
        attempt === undefined ? [jobId] : [jobId, attempt],
      );
      if (!rows[0]) return;
      const record = { ...rows[0].record, jobId, status: rows[0].status } as RecordHeader;
      change(record);
      const { jobId: _id, status: _status, ...rest } = record as RecordHeader & Record<string, unknown>;
      await client.query('UPDATE webjobs_jobs SET record = $2 WHERE id = $1', [jobId, rest]);
    });
  }

  /** Ends a running job (completed, or failed with `error`); attempt undefined: whatever attempt holds it. */
  async endJob(jobId: string, attempt: number | undefined, error?: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<JobRow>(
        `SELECT record FROM webjobs_jobs WHERE id = $1 AND status IN ${ACTIVE} ${attempt === undefined ? '' : HOLDS_JOB} FOR UPDATE`,
        attempt === undefined ? [jobId] : [jobId, attempt],
      );
      if (!rows[0]) return;
      const record = error === undefined ? rows[0].record : { ...rows[0].record, error };
      await client.query('UPDATE webjobs_jobs SET status = $2, record = $3, lease_until = NULL WHERE id = $1', [jobId, error === undefined ? 'completed' : 'failed', record]);
      // A failed job's pages running on other workers are aborted there.
      if (error !== undefined) await client.query(`SELECT pg_notify('${ENDED_CHANNEL}', $1)`, [jobId]);
    });
  }

  /** Renews the leases this worker holds (those still its own: same attempt, not taken back). */
  async renew(held: readonly Held[]): Promise<void> {
    const pages = held.filter((h) => h.index !== undefined);
    const jobs = held.filter((h) => h.index === undefined);
    if (pages.length > 0) {
      await this.pool.query(
        `UPDATE webjobs_pages p SET lease_until = now() + make_interval(secs => $4)
         FROM unnest($1::uuid[], $2::int[], $3::int[]) AS h (job_id, idx, attempt)
         WHERE p.job_id = h.job_id AND p.idx = h.idx AND p.attempt = h.attempt AND p.status = 'running' AND p.entry IS NULL`,
        [pages.map((h) => h.jobId), pages.map((h) => h.index), pages.map((h) => h.attempt), this.leaseSeconds],
      );
    }
    if (jobs.length > 0) {
      await this.pool.query(
        `UPDATE webjobs_jobs j SET lease_until = now() + make_interval(secs => $3)
         FROM unnest($1::uuid[], $2::int[]) AS h (id, attempt)
         WHERE j.id = h.id AND j.attempt = h.attempt AND j.lease_until IS NOT NULL AND j.status IN ${ACTIVE}`,
        [jobs.map((h) => h.jobId), jobs.map((h) => h.attempt), this.leaseSeconds],
      );
    }
  }

  /**
   * Hands back what this worker holds and cannot finish (an error, or shutdown):
   * the same as an expired lease, at once. `reason` is kept for the message if
   * the attempts run out.
   */
  async requeue(held: Held, reason: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const page = held.index !== undefined;
      // Still this attempt's and not taken back: else whoever took it back queued it again already.
      const { rows } = page
        ? await client.query<{ queue_job: string | null }>(
            `SELECT queue_job FROM webjobs_pages WHERE job_id = $1 AND idx = $2 AND attempt = $3 AND status = 'running' AND entry IS NULL FOR UPDATE`,
            [held.jobId, held.index, held.attempt],
          )
        : await client.query<{ queue_job: string | null }>(
            `SELECT queue_job FROM webjobs_jobs WHERE id = $1 ${HOLDS_JOB} AND status IN ${ACTIVE} FOR UPDATE`,
            [held.jobId, held.attempt],
          );
      if (!rows[0]) return;
      await (page
        ? client.query(`UPDATE webjobs_pages SET status = 'pending', lease_until = NULL, queue_job = NULL, last_error = $3 WHERE job_id = $1 AND idx = $2`, [
            held.jobId,
            held.index,
            reason,
          ])
        : client.query('UPDATE webjobs_jobs SET lease_until = NULL, queue_job = NULL, last_error = $2 WHERE id = $1', [held.jobId, reason]));
      await this.queueAgain(client, [{ jobId: held.jobId, index: held.index, queueJob: rows[0].queue_job }]);
    });
  }

  /**
   * Takes back pages and jobs whose lease ran out (their worker died, froze or lost
   * the database) and queues them again; any node may run this at any time
   * (rows are skipped when another node holds them). Returns how many.
   */
  async reapExpired(): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const pages = await client.query<{ job_id: string; idx: number; queue_job: string | null }>(
        `WITH expired AS (
           SELECT p.job_id, p.idx, p.queue_job FROM webjobs_pages p JOIN webjobs_jobs j ON j.id = p.job_id
           WHERE p.status = 'running' AND p.lease_until < now() AND p.entry IS NULL AND j.status IN ${ACTIVE}
           ORDER BY p.lease_until LIMIT ${REAP_BATCH} FOR UPDATE OF p SKIP LOCKED)
         UPDATE webjobs_pages p SET status = 'pending', lease_until = NULL, queue_job = NULL, last_error = $1
         FROM expired e WHERE p.job_id = e.job_id AND p.idx = e.idx RETURNING p.job_id, p.idx, e.queue_job`,
        [LEASE_EXPIRED],
      );
      const jobs = await client.query<{ id: string; queue_job: string | null }>(
        `WITH expired AS (
           SELECT id, queue_job FROM webjobs_jobs WHERE lease_until < now() AND status IN ${ACTIVE}
           ORDER BY lease_until LIMIT ${REAP_BATCH} FOR UPDATE SKIP LOCKED)
         UPDATE webjobs_jobs j SET lease_until = NULL, queue_job = NULL, last_error = $1
         FROM expired e WHERE j.id = e.id RETURNING j.id, e.queue_job`,
        [LEASE_EXPIRED],
      );
      const again = [
        ...pages.rows.map((r) => ({ jobId: r.job_id, index: r.idx, queueJob: r.queue_job })),
        ...jobs.rows.map((r) => ({ jobId: r.id, index: undefined, queueJob: r.queue_job })),
      ];
      await this.queueAgain(client, again);
      return again.length;
    });
  }

  /**
   * Queues again, for any worker, queue jobs a worker fetched and gives back without having begun them: each
   * under a new queue job, the given one cancelled. One that is no longer what its page waits for (a duplicate
   * delivery; the page begun, finished or its job ended meanwhile) is only cancelled.
   */
  async queueUnbegun(takes: { jobId: string; index: number | undefined; queueJob: string }[]): Promise<void> {
    const pages = takes.filter((t) => t.index !== undefined);
    const jobs = takes.filter((t) => t.index === undefined);
    await inTransaction(this.pool, async (client) => {
      const waiting = await client.query<{ job_id: string; idx: number }>(
        `SELECT p.job_id, p.idx FROM webjobs_pages p
         JOIN unnest($1::uuid[], $2::int[], $3::uuid[]) AS t (job_id, idx, queue_job) ON p.job_id = t.job_id AND p.idx = t.idx AND p.queue_job = t.queue_job
         JOIN webjobs_jobs j ON j.id = p.job_id
         WHERE p.status = 'pending' AND p.entry IS NULL AND j.status IN ${ACTIVE}
         FOR UPDATE OF p`,
        [pages.map((t) => t.jobId), pages.map((t) => t.index), pages.map((t) => t.queueJob)],
      );
      const waitingJobs = await client.query<{ id: string }>(
        `SELECT j.id FROM webjobs_jobs j JOIN unnest($1::uuid[], $2::uuid[]) AS t (id, queue_job) ON j.id = t.id AND j.queue_job = t.queue_job
         WHERE j.status IN ${ACTIVE} AND j.lease_until IS NULL
         FOR UPDATE OF j`,
        [jobs.map((t) => t.jobId), jobs.map((t) => t.queueJob)],
      );
      const db = { db: bossDb(client) };
      if (pages.length > 0) await this.boss.cancel(PAGE_QUEUE, pages.map((t) => t.queueJob), db);
      if (jobs.length > 0) await this.boss.cancel(JOB_QUEUE, jobs.map((t) => t.queueJob), db);
      await this.queueAgain(client, [
        ...waiting.rows.map((r) => ({ jobId: r.job_id, index: r.idx, queueJob: null })),
        ...waitingJobs.rows.map((r) => ({ jobId: r.id, index: undefined, queueJob: null })),
      ]);
    });
  }

  /**
   * Pages (and scrape/extract jobs) that wait for a queue job which ended without beginning them: pg-boss gave it
   * up after its deliveries (each fetched by a worker that died, or could not reach the database, before the begin),
   * or it was lost. Nothing would ever deliver them again, so each is queued again, counted as an attempt that
   * ended that way; one whose attempts are spent is returned held on a lease, for the caller to record it failed.
   * Any node may run this at any time; one at a time does (a transaction lock), the others skip it.
   */
  async sweepOrphans(): Promise<{ queued: number; spent: SpentTake[] }> {
    return inTransaction(this.pool, async (client) => {
      const { rows: lock } = await client.query<{ ours: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ours', [SWEEP_LOCK]);
      if (!lock[0]!.ours) return { queued: 0, spent: [] };
      // pg-boss's own table (10.x), read for the state of the queue jobs the rows name: a job is live before 'completed'.
      const orphan = (queue: string) =>
        `LEFT JOIN ${BOSS_SCHEMA}.job b ON b.name = '${queue}' AND b.id = o.queue_job
         WHERE (b.id IS NULL OR b.state >= 'completed')`;
      const boss = `b.state::text AS state, b.started_on IS NOT NULL AS started, b.retry_count,
         coalesce(b.output #>> '{value,message}', b.output ->> 'message') AS message`;
      type Orphan = { state: string | null; started: boolean | null; retry_count: number | null; message: string | null };
      const pages = await client.query<Orphan & { job_id: string; idx: number }>(
        `SELECT o.job_id, o.idx, ${boss} FROM webjobs_jobs j JOIN webjobs_pages o ON o.job_id = j.id
         ${orphan(PAGE_QUEUE)} AND j.status IN ${ACTIVE} AND o.status = 'pending' AND o.entry IS NULL
         LIMIT ${SWEEP_BATCH} FOR UPDATE OF o SKIP LOCKED`,
      );
      const jobs = await client.query<Orphan & { id: string }>(
        `SELECT o.id, ${boss} FROM webjobs_jobs o
         ${orphan(JOB_QUEUE)} AND o.kind NOT IN ('batch', 'crawl') AND o.status IN ${ACTIVE} AND o.lease_until IS NULL
         LIMIT ${SWEEP_BATCH} FOR UPDATE OF o SKIP LOCKED`,
      );
      if (pages.rows.length + jobs.rows.length === 0) return { queued: 0, spent: [] };
      // One more attempt each; those past the last are held (a lease, as a begin would) and returned, the rest queued again.
      const taken = await client.query<{ job_id: string; idx: number; attempt: number; url: string; last_error: string }>(
        `UPDATE webjobs_pages p SET attempt = p.attempt + 1, last_error = t.reason, queue_job = NULL,
           status = CASE WHEN p.attempt + 1 > $4 THEN 'running' ELSE 'pending' END,
           lease_until = CASE WHEN p.attempt + 1 > $4 THEN now() + make_interval(secs => $5) END
         FROM unnest($1::uuid[], $2::int[], $3::text[]) AS t (job_id, idx, reason)
         WHERE p.job_id = t.job_id AND p.idx = t.idx RETURNING p.job_id, p.idx, p.attempt, p.url, p.last_error`,
        [pages.rows.map((r) => r.job_id), pages.rows.map((r) => r.idx), pages.rows.map((r) => orphanReason('page', r)), MAX_ATTEMPTS, this.leaseSeconds],
      );
      const takenJobs = await client.query<{ id: string; attempt: number; url: string; last_error: string }>(
        `UPDATE webjobs_jobs j SET attempt = j.attempt + 1, last_error = t.reason, queue_job = NULL,
           lease_until = CASE WHEN j.attempt + 1 > $3 THEN now() + make_interval(secs => $4) END
         FROM unnest($1::uuid[], $2::text[]) AS t (id, reason)
         WHERE j.id = t.id RETURNING j.id, j.attempt, j.url, j.last_error`,
        [jobs.rows.map((r) => r.id), jobs.rows.map((r) => orphanReason('job', r)), MAX_ATTEMPTS, this.leaseSeconds],
      );
      const all = [
        ...taken.rows.map((r) => ({ jobId: r.job_id, index: r.idx as number | undefined, attempt: r.attempt, url: r.url, lastError: r.last_error })),
        ...takenJobs.rows.map((r) => ({ jobId: r.id, index: undefined, attempt: r.attempt, url: r.url, lastError: r.last_error })),
      ];
      const again = all.filter((t) => t.attempt <= MAX_ATTEMPTS);
      const spent = all.filter((t) => t.attempt > MAX_ATTEMPTS);
      // A page's failure is stored only while its job runs, as a begin would have marked it.
      const spentPages = spent.filter((t) => t.index !== undefined).map((t) => t.jobId);
      if (spentPages.length > 0) await client.query(`UPDATE webjobs_jobs SET status = 'running' WHERE id = ANY($1::uuid[]) AND status = 'pending'`, [spentPages]);
      await this.queueAgain(client, again.map((t) => ({ jobId: t.jobId, index: t.index, queueJob: null })));
      return { queued: again.length, spent };
    });
  }
}
