/**
 * The PostgreSQL job store, as API nodes see it: job records, one row per
 * batch/crawl page, API keys' active-job counts, and (through pg-boss, in the
 * same transactions) the work queue. API nodes and workers on any machine share
 * it; what workers do with it (taking pages and jobs on leases) is workStore.ts.
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
import { tracksChanges } from '../jobs/changeTracking.js';
import type { RecordHeader } from '../jobs/jobStore.js';
import { inTransaction } from './client.js';
import { JOB_QUEUE, MAX_ATTEMPTS, PAGE_QUEUE, type PgConnection } from './connect.js';
import { inTurn } from './fairTurns.js';

export interface PageJobData {
  jobId: string;
  index: number;
}
export interface WholeJobData {
  jobId: string;
}

/** A row of webjobs_jobs. */
export interface JobRow {
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
  /** result() only: the crawl's rows past maxPages (NOT_CRAWLED). */
  not_crawled: number;
  /** result() only: webhook deliveries dropped after their last retry, and for room (pg/webhooks.ts). */
  webhook_failures: number;
  webhook_dropped: number;
}

/** Who starts a job on serve, and how many pending or running jobs that key may have. */
export interface JobOwner {
  key: string;
  maxActive: number;
}

/** Channel on which a job's end (stopped by a user, or failed) is announced to workers, payload its id. */
export const ENDED_CHANNEL = 'webjobs_job_ended';

/** The status of a page row a crawl found past maxPages: never queued, counted as the record's urlsNotCrawled. */
export const NOT_CRAWLED = 'notCrawled';

/**
 * The index of a crawl's first NOT_CRAWLED row: far past its pages, whose indexes go past maxPages by the pages
 * dropped (a redirect to a page crawled already: DROPPED).
 */
export const NOT_CRAWLED_FROM = 1_000_000_000;

/** The status of a crawl's page that landed where another page of the crawl had: no entry, its place given to the next URL. */
export const DROPPED = 'dropped';

/** The states of a job that may still change. */
export const ACTIVE = `('pending', 'running')`;
/** A scrape/extract job's write by attempt $2: still that attempt's, its lease not taken back. */
export const HOLDS_JOB = 'AND attempt = $2 AND lease_until IS NOT NULL';

/** A pg client as pg-boss wants it, so its inserts join our transaction. */
export function bossDb(client: pg.PoolClient): PgBoss.Db {
  return { executeSql: (text, values) => client.query(text, values) };
}

export class PgJobStore {
  protected readonly pool: pg.Pool;
  protected readonly boss: PgBoss;
  protected readonly leaseSeconds: number;

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
  protected queueJob(name: string, data: PageJobData | WholeJobData): PgBoss.JobInsert & { id: string } {
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
        `INSERT INTO webjobs_jobs (id, kind, status, url, request, record, owner_key, total_pages, max_pages, queue_job, cache_tenant, tracks_changes)
         VALUES ($1, $2, 'pending', $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [jobId, kind, url, request, record, owner?.key ?? null, urls.length, maxPages, whole?.id ?? null, cacheTenant ?? null, kind === 'crawl' && tracksChanges((request as CrawlRequest).scrapeOptions)],
      );
      if (whole) {
        await this.boss.insert([whole], { db: bossDb(client) });
      } else {
        // A batch keeps duplicate URLs (each has its place); a crawl's URLs are unique by normalised form.
        const keys = urls.map((u) => (kind === 'crawl' ? (normalizeUrl(u) ?? u) : null));
        // Each page at its key's turn (fairTurns.ts): another key's pages never wait behind this whole batch.
        const queued = await inTurn(client, jobId, urls.map((_, index) => this.queueJob(PAGE_QUEUE, { jobId, index })));
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
    const row = await this.row(
      jobId,
      `id, kind, status, record, total_pages, done_pages, request, webhook_failures, webhook_dropped,
       (SELECT count(*)::int FROM webjobs_pages p WHERE p.job_id = webjobs_jobs.id AND p.status = '${NOT_CRAWLED}') AS not_crawled`,
    );
    // Webhook deliveries dropped after their last retry, or for room (pg/webhooks.ts): counted apart from the record.
    const hooks = {
      ...(row.webhook_failures > 0 ? { webhookFailures: row.webhook_failures } : {}),
      ...(row.webhook_dropped > 0 ? { webhookDropped: row.webhook_dropped } : {}),
    };
    const head = { jobId: row.id, status: row.status, ...row.record, ...hooks };
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
    // A crawl that maxPages stopped says how many more URLs it found, as the in-process crawl does once it ends.
    const left = row.kind === 'crawl' && row.status === 'completed' && row.not_crawled > 0 ? { urlsNotCrawled: row.not_crawled } : {};
    return { ...head, ...counter, totalPageBatches: Math.max(1, Math.ceil(total / batchSize)), currentPageBatch: page, batchSize, ...left, data } as JobRecord;
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
      // Pages queued again take their key's next turns (fairTurns.ts), as pages queued the first time.
      if (queue === PAGE_QUEUE) {
        for (const jobId of new Set(ofQueue.map((t) => t.jobId))) {
          const places = ofQueue.flatMap((t, i) => (t.jobId === jobId ? [i] : []));
          const turned = await inTurn(client, jobId, places.map((i) => queued[i]!));
          places.forEach((place, n) => (queued[place] = turned[n]!));
        }
      }
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
