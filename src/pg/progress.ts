/**
 * How far a job on PostgreSQL has come, for whoever waits on it (PgBackend.wait):
 * its pages finished and failed, expected and discovered, and the finished
 * entries themselves, in their order, once each.
 */
import type pg from 'pg';
import type { JobProgress } from '../api/backend.js';
import { JobNotFoundError } from '../api/errors.js';
import type { JobKind, JobStatus, PageEntry } from '../api/types.js';
import { JOB_ID_PATTERN } from '../api/validate.js';
import { DROPPED } from './store.js';

/** Entries read per query while replaying a job's finished pages. */
const ENTRIES_PER_READ = 100;

export class PgProgress {
  constructor(private readonly pool: pg.Pool) {}

  /** Batch: every URL is expected; crawl: maxPages, of which the pages recorded so far are discovered. */
  async progress(jobId: string): Promise<JobProgress & { kind: JobKind }> {
    if (!JOB_ID_PATTERN.test(jobId)) throw new JobNotFoundError(jobId);
    const { rows } = await this.pool.query<{ kind: JobKind; status: JobStatus; total_pages: number; max_pages: number; done_pages: number; failed: number }>(
      `SELECT kind, status, total_pages, max_pages, done_pages,
              (SELECT count(*)::int FROM webjobs_pages WHERE job_id = $1 AND status = 'failed') AS failed
       FROM webjobs_jobs WHERE id = $1`,
      [jobId],
    );
    const row = rows[0];
    if (!row) throw new JobNotFoundError(jobId);
    const { kind, status } = row;
    if (kind === 'batch') return { kind, status, done: row.done_pages, failed: row.failed, total: row.total_pages };
    if (kind === 'crawl') return { kind, status, done: row.done_pages, failed: row.failed, total: row.max_pages, discovered: row.total_pages };
    return { kind, status, done: 0, failed: 0 };
  }

  /** Finished entries from page `from` on, in page order, with their page numbers; a crawl's dropped page (DROPPED) has none. */
  async finished(jobId: string, from: number): Promise<{ idx: number; entry: PageEntry | null }[]> {
    const { rows } = await this.pool.query<{ idx: number; entry: PageEntry | null }>(
      `SELECT idx, entry FROM webjobs_pages WHERE job_id = $1 AND idx >= $2 AND (entry IS NOT NULL OR status = '${DROPPED}') ORDER BY idx LIMIT $3`,
      [jobId, from, ENTRIES_PER_READ],
    );
    return rows;
  }
}
