/**
 * Pages of the queue taken in turn per API key (issue 54, finding 1): pg-boss hands out a queue's jobs by
 * priority, then in the order they were queued, so one key's 1,000-page batch queued first held every worker
 * until it ended. Each page is queued with a turn instead (its priority, negated): a key's pages take the turns
 * after its pages still waiting, starting no earlier than the first turn any page waits for. A key that queues
 * pages while another's batch waits gets the turns that batch's next pages have, and the two alternate (a tie
 * goes to the page queued first): a key's page waits behind one page of every other key with work, never
 * behind a whole batch. Jobs without a key share one turn. What a worker takes is the claim order of
 * pg-boss's fetch (priority desc, created_on), unchanged.
 */
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { BOSS_SCHEMA, PAGE_QUEUE } from './connect.js';

/**
 * The turns of `count` pages of job `jobId` about to be queued, as pg-boss priorities (higher first): the
 * first after the pages of the job's key that wait, and no earlier than the first turn any page waits for.
 * In the caller's transaction; the key's own pages are counted alike by every API node and worker.
 */
export async function pageTurns(client: pg.PoolClient, jobId: string, count: number): Promise<number[]> {
  if (count === 0) return [];
  const { rows } = await client.query<{ now: number; next: number }>(
    `WITH waiting AS (
       SELECT b.priority, j.owner_key FROM ${BOSS_SCHEMA}.job b JOIN webjobs_jobs j ON j.id = (b.data->>'jobId')::uuid
       WHERE b.name = '${PAGE_QUEUE}' AND b.state < 'active')
     SELECT coalesce(-max(priority), 0)::int AS now,
            coalesce(1 - min(priority) FILTER (WHERE owner_key IS NOT DISTINCT FROM (SELECT owner_key FROM webjobs_jobs WHERE id = $1)), 0)::int AS next
     FROM waiting`,
    [jobId],
  );
  const first = Math.max(rows[0]!.now, rows[0]!.next);
  return Array.from({ length: count }, (_, i) => -(first + i));
}

/** `queued` (pages of job `jobId`) with their turns (pageTurns). */
export async function inTurn<T extends PgBoss.JobInsert>(client: pg.PoolClient, jobId: string, queued: T[]): Promise<T[]> {
  const turns = await pageTurns(client, jobId, queued.length);
  return queued.map((job, i) => ({ ...job, priority: turns[i] }));
}
