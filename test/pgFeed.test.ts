/**
 * How a PostgreSQL worker takes queue jobs (src/pg/feed.ts), on a real PostgreSQL
 * and pg-boss: fetched several at a time and ahead of its slots when its jobs are
 * short, and given back to the queue, for any worker, when they would wait here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BOSS_SCHEMA, JOB_QUEUE, PAGE_QUEUE } from '../src/pg/connect.js';
import { Feed } from '../src/pg/feed.js';
import type { PageJobData } from '../src/pg/store.js';
import { PgWorkStore } from '../src/pg/workStore.js';
import { articleText, html, sendHtml, startFixtureServer } from './helpers/fixtureServer.js';
import { usePgQueue } from './helpers/pgQueue.js';
import { startWorker } from './helpers/worker.js';

const SLOW = 120_000;
const db = usePgQueue();

/** A batch of six pages: six page jobs on the queue. */
async function batchOfSix(): Promise<string> {
  const { jobId } = await db.backend.start('batch', { urls: Array.from({ length: 6 }, (_, i) => `http://127.0.0.1:9/feed/${i}`) });
  return jobId;
}

/** What another worker fetches from the page queue now. */
async function fetchNow(): Promise<PageJobData[]> {
  return (await db.connection.boss.fetch<PageJobData>(PAGE_QUEUE, { batchSize: 10 })).map((job) => job.data);
}

/** A feed for one slot whose recent jobs were short: it fetches ahead. */
function feedAhead(): Feed<PageJobData> {
  const feed = new Feed<PageJobData>(db.connection.boss, new PgWorkStore(db.connection), PAGE_QUEUE, 1, () => undefined);
  feed.took(1);
  return feed;
}

const indexes = (data: PageJobData[]) => data.map((d) => d.index).sort((a, b) => a - b);
const allBut = (index: number) => [0, 1, 2, 3, 4, 5].filter((i) => i !== index);

describe('a worker\'s queue feed', () => {
  it('jobs fetched ahead and held up (the slot busy) go back to the queue, for any worker, each once', async () => {
    const jobId = await batchOfSix();
    const feed = feedAhead();
    const first = (await feed.next(new AbortController().signal, 50))!;
    expect(first.data.jobId).toBe(jobId);
    // One fetch took all six; the slot holds the first. Until the others are given back, no other worker gets them.
    expect(await fetchNow()).toEqual([]);
    const others: PageJobData[] = [];
    while (others.length < 5) {
      const got = await fetchNow();
      others.push(...got);
      if (got.length === 0) await sleep(50);
    }
    expect(indexes(others)).toEqual(allBut(first.data.index));
    expect(others.every((d) => d.jobId === jobId)).toBe(true);
    // The jobs given back are not delivered as well.
    expect(await fetchNow()).toEqual([]);
  }, SLOW);

  it('a worker that stops gives back at once the jobs it fetched ahead', async () => {
    await batchOfSix();
    const feed = feedAhead();
    const first = (await feed.next(new AbortController().signal, 50))!;
    await feed.giveBack();
    expect(indexes(await fetchNow())).toEqual(allBut(first.data.index));
  }, SLOW);
});

describe('a page whose queue job ended without beginning it', () => {
  it('is queued again, and recorded failed saying why once that spent its last attempt; its job completes', async () => {
    // The jobs the tests above left queued are no concern of this one.
    for (const { jobId } of await db.backend.list()) await db.backend.cancel(jobId);
    const site = await startFixtureServer({}, (req, res) => sendHtml(res, html(`<article><h1>Stuck ${req.url}</h1>${articleText('Stuck', 2)}</article>`)));
    try {
      const urls = [0, 1, 2, 3].map((i) => site.at(`/stuck/${i}`));
      const batch = (await db.backend.start('batch', { urls })).jobId;
      const scrape = (await db.backend.start('scrape', { url: site.at('/stuck/scrape') })).jobId;
      // Before any worker runs, the queue jobs as pg-boss leaves them when every delivery ended before the page
      // was begun (each fetched by a worker that died): page 1's and the scrape's failed after their 5 deliveries,
      // page 2's completed. Page 3's failed too, and its three attempts were spent already (workers killed
      // mid-page), so this was its last.
      const leave = (queue: string, state: string, where: string, values: unknown[]) =>
        db.connection.pool.query(
          `UPDATE ${BOSS_SCHEMA}.job SET state = '${state}', started_on = now(), completed_on = now(), retry_count = retry_limit,
             output = '{"value": {"message": "job failed by timeout in active state"}}'
           WHERE name = '${queue}' AND ${where}`,
          [queue === PAGE_QUEUE ? batch : scrape, ...values],
        );
      const page = `data->>'jobId' = $1 AND (data->>'index')::int = $2`;
      await leave(PAGE_QUEUE, 'failed', page, [1]);
      await leave(PAGE_QUEUE, 'completed', page, [2]);
      await leave(PAGE_QUEUE, 'failed', page, [3]);
      await leave(JOB_QUEUE, 'failed', `data->>'jobId' = $1`, []);
      await db.connection.pool.query(`UPDATE webjobs_pages SET attempt = 3, last_error = 'killed' WHERE job_id = $1 AND idx = 3`, [batch]);
      const worker = await startWorker(db.pg.url, ['--concurrency', '2'], { WEBJOBS_LEASE_SECONDS: '3' });
      try {
        expect(await db.backend.wait('batch', batch)).toBe('completed');
        expect(await db.backend.wait('scrape', scrape)).toBe('completed');
      } finally {
        await worker.stop();
      }
      const data = (await db.backend.result('batch', batch)).data;
      expect(data.map((e) => e.status)).toEqual(['completed', 'completed', 'completed', 'failed']);
      expect(data[1]!.markdown).toContain('Stuck /stuck/1');
      expect(data[3]!.error).toBe(
        `${urls[3]}: given up after 3 attempts; the last ended because its queue job was failed after 5 deliveries without the page being begun (job failed by timeout in active state)`,
      );
      expect((await db.backend.result('scrape', scrape)).data?.markdown).toContain('Stuck /stuck/scrape');
      // The spent page was not loaded; the others once each.
      expect([...site.requests].sort()).toEqual(['GET /stuck/0', 'GET /stuck/1', 'GET /stuck/2', 'GET /stuck/scrape']);
    } finally {
      await site.close();
    }
  }, SLOW);
});
