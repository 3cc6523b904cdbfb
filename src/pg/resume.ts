/**
 * `webjobs resume` on PostgreSQL: a stopped batch or crawl goes on. Its pages
 * already live in webjobs_pages: those with an entry are kept; those without (a
 * crawl's frontier, a batch's rest, pages cut short by the stop) are queued
 * again, each under a new queue job, in the transaction that makes the job
 * active again. A worker killed on this back end interrupts nothing (its pages'
 * leases run out and other workers take them), so only a stopped job resumes.
 */
import type pg from 'pg';
import { JobNotFoundError, TooManyJobsError } from '../api/errors.js';
import type { JobKind, JobStatus } from '../api/types.js';
import { JOB_ID_PATTERN } from '../api/validate.js';
import { checkResumable } from '../jobs/resume.js';
import { inTransaction } from './client.js';
import { DROPPED, NOT_CRAWLED, type JobOwner, type PgJobStore } from './store.js';

/** Resumes `jobId` (within `owner`'s limit of active jobs); its status after: pending, or completed when no page was left. */
export async function resumeJob(pool: pg.Pool, store: PgJobStore, jobId: string, owner?: JobOwner): Promise<JobStatus> {
  if (!JOB_ID_PATTERN.test(jobId)) throw new JobNotFoundError(jobId);
  return inTransaction(pool, async (client) => {
    if (owner) {
      // As create() does: the key's starts and resumes take turns, so the limit holds exactly.
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('webjobs-key:' || $1))`, [owner.key]);
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM webjobs_jobs WHERE owner_key = $1 AND status IN ('pending', 'running')`, [owner.key]);
      if (rows[0]!.n >= owner.maxActive) throw TooManyJobsError.forKey(owner.maxActive);
    }
    const { rows } = await client.query<{ kind: JobKind; status: JobStatus }>('SELECT kind, status FROM webjobs_jobs WHERE id = $1 FOR UPDATE', [jobId]);
    const job = rows[0];
    if (!job) throw new JobNotFoundError(jobId);
    checkResumable(jobId, job.kind, job.status, false);
    const left = await client.query<{ idx: number; queue_job: string | null }>(
      `UPDATE webjobs_pages SET status = 'pending', lease_until = NULL WHERE job_id = $1 AND entry IS NULL AND status <> ALL($2::text[]) RETURNING idx, queue_job`,
      // Not the URLs a crawl found past maxPages (they were never its pages), nor its pages dropped as a redirect to a page crawled.
      [jobId, [NOT_CRAWLED, DROPPED]],
    );
    const status: JobStatus = left.rows.length > 0 ? 'pending' : 'completed';
    await client.query('UPDATE webjobs_jobs SET status = $2 WHERE id = $1', [jobId, status]);
    await store.queueAgain(client, left.rows.map((row) => ({ jobId, index: row.idx, queueJob: row.queue_job })));
    return status;
  });
}
