/**
 * The PostgreSQL job store: job records, one row per batch/crawl page, API keys'
 * active-job counts, and (through pg-boss, in the same transactions) the work
 * queue. API nodes and workers on any machine share it.
 *
 * Leases: the worker that takes a page (or a scrape/extract job) holds it until
 * lease_until, which it renews while it lives (a heartbeat); a lease that ran out
 * is taken back (reapExpired) and the page queued again. Writes are fenced by
 * attempt: each delivery bumps the row's attempt and may only write while the row
 * still carries its number and its lease was not taken back, so a worker presumed
 * dead that comes back cannot overwrite a retry.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { JobNotFoundError, TooManyJobsError } from '../api/errors.js';
import { LIMITS } from '../api/limits.js';
import { normalizeUrl } from '../api/normalizeUrl.js';
import { requestUrls, withoutCredentials } from '../api/redact.js';
import { JOB_ID_PATTERN, validatePageQuery } from '../api/validate.js';
import type { BatchScrapeRequest, CrawlRequest, JobKind, JobRecord, JobRequest, JobStatus, JobSummary, PageEntry, PageQuery } from '../api/types.js';
import type { JobRecords, RecordHeader } from '../jobs/jobStore.js';
import type { Held, WorkLeases } from '../jobs/leases.js';
import { inTransaction } from './client.js';
import { BOSS_SCHEMA, JOB_QUEUE, MAX_ATTEMPTS, PAGE_QUEUE, type PgConnection } from './connect.js';

export interface PageJobData {
  jobId: string;
  index: number;
}
export interface WholeJobData {
  jobId: string;
}

interface JobRow {
  id: string;
  kind: JobKind;
  status: JobStatus;
  created_at: Date;
  url: string;
  request: JobRequest;
  record: Record<string, unknown>;
  total_pages: number;
  done_pages: number;
  attempt: number;
}

/** Who starts a job on serve, and how many pending or running jobs that key may have. */
export interface JobOwner {
  key: string;
  maxActive: number;
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

/** Channel on which a job's end (stopped by a user, or failed) is announced to workers, payload its id. */
export const ENDED_CHANNEL = 'webjobs_job_ended';

const ACTIVE = `('pending', 'running')`;
/** A scrape/extract job's write by attempt $2: still that attempt's, its lease not taken back. */
const HOLDS_JOB = 'AND attempt = $2 AND lease_until IS NOT NULL';
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

/** A pg client as pg-boss wants it, so its inserts join our transaction. */
function bossDb(client: pg.PoolClient): PgBoss.Db {
  return { executeSql: (text, values) => client.query(text, values) };
}

export class PgJobStore implements JobRecords, WorkLeases {
  private readonly pool: pg.Pool;
  private readonly boss: PgBoss;
  private readonly leaseSeconds: number;

  constructor(connection: PgConnection) {
    this.pool = connection.pool;
    this.boss = connection.boss;
    this.leaseSeconds = connection.settings.leaseSeconds;
  }

  /**
   * pg-boss's own expiry (one lease) is for a queue job taken but never begun: its
   * worker died, or the database restarted under the fetch, before the page's lease
   * was written. Past that, the lease on our row, renewed by the heartbeat, is what
   * decides: a page on a live lease delivered again is refused by beginPage (once:
   * that delivery completes the queue job).
   */
  private queueJob(name: string, data: PageJobData | WholeJobData): PgBoss.JobInsert & { id: string } {
    // Our id, not pg-boss's: the page's row names the queue job it waits for, so one that ended without beginning
    // the page (its deliveries spent by workers that died before the begin) is found by the sweep.
    return { id: randomUUID(), name, data, retryLimit: MAX_ATTEMPTS + 1, retryDelay: 1, expireInSeconds: this.leaseSeconds };
  }

  /**
   * Creates the job, its pages and their queue jobs in one transaction. With an
   * owner, the key's active jobs are counted under a per-key transaction lock
   * first: two API nodes starting jobs for one key at once take turns, so the
   * limit holds exactly.
   */
  async create(kind: JobKind, request: JobRequest, initial: RecordHeader, owner?: JobOwner, cacheTenant?: string): Promise<string> {
    const jobId = randomUUID();
    const { status: _status, jobId: _id, data: _data, ...record } = initial as RecordHeader & Record<string, unknown>;
    const url = withoutCredentials(requestUrls(request)[0] ?? '');
    return inTransaction(this.pool, async (client) => {
      if (owner) {
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('webjobs-key:' || $1))`, [owner.key]);
        const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM webjobs_jobs WHERE owner_key = $1 AND status IN ${ACTIVE}`, [owner.key]);
        if (rows[0]!.n >= owner.maxActive) {
          throw TooManyJobsError.forKey(owner.maxActive);
        }
      }
      const urls = kind === 'batch' ? (request as BatchScrapeRequest).urls : kind === 'crawl' ? [(request as CrawlRequest).url] : [];
      const maxPages = kind === 'batch' ? urls.length : kind === 'crawl' ? ((request as CrawlRequest).maxPages ?? LIMITS.defaultCrawlPages) : 0;
      const whole = urls.length === 0 ? this.queueJob(JOB_QUEUE, { jobId }) : undefined;
      await client.query(
        `INSERT INTO webjobs_jobs (id, kind, status, url, request, record, owner_key, total_pages, max_pages, queue_job, cache_tenant)
         VALUES ($1, $2, 'pending', $3, $4, $5, $6, $7, $8, $9, $10)`,
        [jobId, kind, url, request, record, owner?.key ?? null, urls.length, maxPages, whole?.id ?? null, cacheTenant ?? null],
      );
      if (whole) {
        await this.boss.insert([whole], { db: bossDb(client) });
      } else {
        // A batch keeps duplicate URLs (each has its place); a crawl's URLs are unique by normalised form.
        const keys = urls.map((u) => (kind === 'crawl' ? (normalizeUrl(u) ?? u) : null));
        const queued = urls.map((_, index) => this.queueJob(PAGE_QUEUE, { jobId, index }));
        await client.query(
          `INSERT INTO webjobs_pages (job_id, idx, url, url_key, queue_job)
           SELECT $1, i - 1, u, k, q FROM unnest($2::text[], $3::text[], $4::uuid[]) WITH ORDINALITY AS t (u, k, q, i)`,
          [jobId, urls, keys, queued.map((q) => q.id)],
        );
        await this.boss.insert(queued, { db: bossDb(client) });
      }
      return jobId;
    });
  }

  private async row(jobId: string, columns = '*'): Promise<JobRow> {
    if (!JOB_ID_PATTERN.test(jobId)) throw new JobNotFoundError(jobId);
    const { rows } = await this.pool.query<JobRow>(`SELECT ${columns} FROM webjobs_jobs WHERE id = $1`, [jobId]);
    if (!rows[0]) throw new JobNotFoundError(jobId);
    return rows[0];
  }

  async header(jobId: string): Promise<{ jobId: string; kind: JobKind; status: JobStatus }> {
    const row = await this.row(jobId, 'id, kind, status');
    return { jobId: row.id, kind: row.kind, status: row.status };
  }

  async request(jobId: string): Promise<{ kind: JobKind; request: JobRequest }> {
    const row = await this.row(jobId, 'kind, request');
    return { kind: row.kind, request: row.request };
  }

  /** The record as the spec's GET result endpoint returns it; batch and crawl paged. */
  async result(jobId: string, query: PageQuery = {}): Promise<JobRecord> {
    const row = await this.row(jobId, 'id, kind, status, record, total_pages, done_pages, request');
    const head = { jobId: row.id, status: row.status, ...row.record };
    if (row.kind !== 'batch' && row.kind !== 'crawl') return head as JobRecord;
    const { page, batchSize } = validatePageQuery(query);
    const start = (page - 1) * batchSize;
    // A batch lists every submitted URL, finished or not; a crawl lists the pages it finished, in discovery order.
    const total = row.kind === 'batch' ? row.total_pages : row.done_pages;
    const { rows } = await this.pool.query<{ url: string; entry: PageEntry | null }>(
      row.kind === 'batch'
        ? 'SELECT url, entry FROM webjobs_pages WHERE job_id = $1 AND idx >= $2 ORDER BY idx LIMIT $3'
        : 'SELECT url, entry FROM webjobs_pages WHERE job_id = $1 AND entry IS NOT NULL ORDER BY idx OFFSET $2 LIMIT $3',
      [jobId, start, batchSize],
    );
    const data = rows.map(({ url, entry }) => entry ?? { url: withoutCredentials(url), status: 'pending', error: null, metadata: {} });
    const counter = row.kind === 'batch' ? { totalScrapedPages: row.done_pages } : { totalCrawledPages: row.done_pages };
    return { ...head, ...counter, totalPageBatches: Math.max(1, Math.ceil(total / batchSize)), currentPageBatch: page, batchSize, data } as JobRecord;
  }

  async list(jobIds?: readonly string[]): Promise<JobSummary[]> {
    const ids = jobIds?.filter((id) => JOB_ID_PATTERN.test(id));
    const { rows } = await this.pool.query<JobRow>(
      `SELECT id, kind, status, created_at, url FROM webjobs_jobs ${ids ? 'WHERE id = ANY($1::uuid[])' : ''} ORDER BY created_at`,
      ids ? [ids] : [],
    );
    return rows.map((r) => ({ jobId: r.id, kind: r.kind, status: r.status, createdAt: r.created_at.toISOString(), url: r.url }));
  }

  async jobsOf(key: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>('SELECT id FROM webjobs_jobs WHERE owner_key = $1 ORDER BY created_at', [key]);
    return rows.map((r) => r.id);
  }

  async owns(key: string, jobId: string): Promise<boolean> {
    if (!JOB_ID_PATTERN.test(jobId)) return false;
    const { rowCount } = await this.pool.query('SELECT 1 FROM webjobs_jobs WHERE id = $1 AND owner_key = $2', [jobId, key]);
    return rowCount === 1;
  }

  /**
   * Marks the job stopped and announces it (NOTIFY, delivered at commit): workers
   * abort its pages at once, and see the row before taking another.
   */
  async cancel(jobId: string): Promise<JobStatus> {
    await this.pool.query(
      `WITH stopped AS (UPDATE webjobs_jobs SET status = 'stopped' WHERE id = $1 AND status IN ${ACTIVE} RETURNING id)
       SELECT pg_notify('${ENDED_CHANNEL}', id::text) FROM stopped`,
      [jobId],
    );
    return (await this.header(jobId)).status;
  }

  async remove(jobId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(`DELETE FROM webjobs_jobs WHERE id = $1 AND status NOT IN ${ACTIVE}`, [jobId]);
    if (rowCount === 0) await this.header(jobId); // unknown id: JobNotFoundError
    return rowCount === 1;
  }

  /** Of the given jobs, those that ended (stopped by a user, or failed) while pages of theirs run. */
  async ended(jobIds: readonly string[]): Promise<string[]> {
    if (jobIds.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string }>(`SELECT id FROM webjobs_jobs WHERE id = ANY($1::uuid[]) AND status NOT IN ${ACTIVE}`, [jobIds]);
    return rows.map((r) => r.id);
  }

  // --- Worker side -------------------------------------------------------------

  /**
   * Takes page `index` for one more attempt; undefined when there is nothing to do
   * (the job ended, or another delivery already finished the page). One statement:
   * the job row is written only by the first page (pending -> running), not by
   * every page, and its request (every URL of a batch) is read only when the
   * worker does not hold it already (`withRequest`).
   */
  async beginPage(jobId: string, index: number, queueJob: string, withRequest = true): Promise<PageLease | undefined> {
    const { rows } = await this.pool.query<{ attempt: number; url: string; last_error: string | null; kind: JobKind; request: JobRequest | null; cache_tenant: string | null }>({
      name: 'webjobs-begin-page',
      text: `WITH job AS (SELECT kind, CASE WHEN $5 THEN request END AS request, cache_tenant FROM webjobs_jobs WHERE id = $1 AND status IN ${ACTIVE}),
       -- A page another worker holds on a live lease is not taken from it (a duplicate delivery).
       page AS (
         UPDATE webjobs_pages SET attempt = attempt + 1, status = 'running', lease_until = now() + make_interval(secs => $3), queue_job = $4
         WHERE job_id = $1 AND idx = $2 AND entry IS NULL AND (status <> 'running' OR lease_until IS NULL OR lease_until < now())
           AND EXISTS (SELECT 1 FROM job)
         RETURNING attempt, url, last_error),
       -- Re-checked under the row lock: a job stopped meanwhile stays stopped.
       started AS (UPDATE webjobs_jobs SET status = 'running' WHERE id = $1 AND status = 'pending' AND EXISTS (SELECT 1 FROM page))
       SELECT page.attempt, page.url, page.last_error, job.kind, job.request, job.cache_tenant FROM page, job`,
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
      kind: taken.kind,
      request: taken.request ?? undefined,
      cacheTenant: taken.cache_tenant ?? undefined,
    };
  }

  /**
   * Stores a page's entry if this attempt still holds the page and the job runs;
   * for a crawl, records the page's new links (each once, up to maxPages) and
   * queues them, in the same transaction. Ends the job when its last page is in.
   */
  async finishPage(jobId: string, index: number, attempt: number, entry: PageEntry, discovered: { url: string; key: string }[] = []): Promise<PageWrite> {
    if (discovered.length === 0) return this.finishLeaf(jobId, index, attempt, entry);
    return inTransaction(this.pool, async (client): Promise<PageWrite> => {
      // The job row is locked first: the page counts and the cap move under it, one writer at a time.
      const { rows } = await client.query<{ total_pages: number; max_pages: number }>(
        `SELECT total_pages, max_pages FROM webjobs_jobs WHERE id = $1 AND status = 'running' FOR UPDATE`,
        [jobId],
      );
      const job = rows[0];
      if (!job) return 'ended';
      // Still this attempt's, and its lease not taken back (status 'running'): else a retry owns the page.
      const { rowCount } = await client.query(
        `UPDATE webjobs_pages SET entry = $4, status = $5, lease_until = NULL
         WHERE job_id = $1 AND idx = $2 AND attempt = $3 AND status = 'running' AND entry IS NULL`,
        [jobId, index, attempt, entry, entry.status],
      );
      if (rowCount !== 1) return 'fenced';
      let total = job.total_pages;
      const queued: PgBoss.JobInsert[] = [];
      for (const link of discovered) {
        if (total >= job.max_pages) break;
        const queueJob = this.queueJob(PAGE_QUEUE, { jobId, index: total });
        const inserted = await client.query(
          `INSERT INTO webjobs_pages (job_id, idx, url, url_key, queue_job) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (job_id, url_key) DO NOTHING`,
          [jobId, total, link.url, link.key, queueJob.id],
        );
        if (inserted.rowCount === 1) {
          queued.push(queueJob);
          total++;
        }
      }
      if (queued.length > 0) await this.boss.insert(queued, { db: bossDb(client) });
      await client.query(
        `UPDATE webjobs_jobs SET total_pages = $2, done_pages = done_pages + 1,
           status = CASE WHEN done_pages + 1 >= $2 THEN 'completed' ELSE status END
         WHERE id = $1`,
        [jobId, total],
      );
      return 'stored';
    });
  }

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

  /**
   * Cancels the queue jobs of takes that ended without a result, and queues each once more under a new one that
   * its row names, in the caller's transaction (also for the pages of a job resumed: pg/resume.ts).
   */
  async queueAgain(client: pg.PoolClient, takes: { jobId: string; index: number | undefined; queueJob: string | null }[]): Promise<void> {
    if (takes.length === 0) return;
    const db = { db: bossDb(client) };
    for (const [queue, ofQueue] of [
      [PAGE_QUEUE, takes.filter((t) => t.index !== undefined)],
      [JOB_QUEUE, takes.filter((t) => t.index === undefined)],
    ] as const) {
      // The old delivery is cancelled so pg-boss does not deliver it again as well; a worker still on it is fenced.
      const old = ofQueue.flatMap((t) => (t.queueJob ? [t.queueJob] : []));
      if (old.length > 0) await this.boss.cancel(queue, old, db);
      if (ofQueue.length === 0) continue;
      const queued = ofQueue.map((t) => this.queueJob(queue, t.index === undefined ? { jobId: t.jobId } : { jobId: t.jobId, index: t.index }));
      await this.boss.insert(queued, db);
      await (queue === PAGE_QUEUE
        ? client.query(
            `UPDATE webjobs_pages p SET queue_job = t.queue_job FROM unnest($1::uuid[], $2::int[], $3::uuid[]) AS t (job_id, idx, queue_job)
             WHERE p.job_id = t.job_id AND p.idx = t.idx`,
            [ofQueue.map((t) => t.jobId), ofQueue.map((t) => t.index), queued.map((q) => q.id)],
          )
        : client.query(`UPDATE webjobs_jobs j SET queue_job = t.queue_job FROM unnest($1::uuid[], $2::uuid[]) AS t (id, queue_job) WHERE j.id = t.id`, [
            ofQueue.map((t) => t.jobId),
            queued.map((q) => q.id),
          ]));
    }
  }
}
