/**
 * Change tracking's owed history on PostgreSQL (issue 56: an alert is owed until
 * it is delivered). A worker runs a page, not the job's end, so a page it finds new
 * or changed does not move its history: its version is kept owed beside the job
 * (webjobs_history_owed, migration 8), and the job's completion makes every owed
 * version the history, in the transaction that completes it (a trigger on the job's
 * status: every way a job completes, a batch's last page, a crawl's last page or
 * finishing step, a scrape, does it alike). A job stopped, failed or left by a
 * killed worker commits nothing: its changes are found again by the next run, or
 * committed by its resume's completion. The job's deletion deletes them.
 */
import type pg from 'pg';
import type { PageData } from '../api/types.js';
import { cacheKey } from '../jobs/cacheKey.js';
import type { OweVersion } from '../jobs/changeTracking.js';
import type { CachedScrape } from '../jobs/contracts.js';

/** Keeps the versions job `jobId`'s pages found new or changed owed until it completes; a page found again replaces its own. */
export function owedHistory(pool: pg.Pool, jobId: string): OweVersion {
  return async (history: CachedScrape, version: PageData) => {
    await pool.query(
      `INSERT INTO webjobs_history_owed (job_id, key, data) VALUES ($1, $2, $3)
       ON CONFLICT (job_id, key) DO UPDATE SET data = excluded.data`,
      [jobId, cacheKey(history), version],
    );
  };
}
