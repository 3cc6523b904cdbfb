/**
 * How a PostgreSQL worker takes queue jobs (src/pg/feed.ts), on a real PostgreSQL
 * and pg-boss: fetched several at a time and ahead of its slots when its jobs are
 * short, and given back to the queue, for any worker, when they would wait here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgBackend } from '../src/pg/backend.js';
import { PAGE_QUEUE, connect, pgSettings, type PgConnection } from '../src/pg/connect.js';
import { Feed } from '../src/pg/feed.js';
import type { PageJobData } from '../src/pg/store.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

const SLOW = 120_000;
let pg: TestPostgres;
let connection: PgConnection;
let backend: PgBackend;

beforeAll(async () => {
  pg = await startPostgres();
  connection = await connect(pgSettings(pg.url));
  backend = new PgBackend(connection);
}, SLOW);

afterAll(async () => {
  await connection?.close();
  await pg?.stop();
}, SLOW);

/** A batch of six pages: six page jobs on the queue. */
async function batchOfSix(): Promise<string> {
  const { jobId } = await backend.start('batch', { urls: Array.from({ length: 6 }, (_, i) => `http://127.0.0.1:9/feed/${i}`) });
  return jobId;
}

/** What another worker fetches from the page queue now. */
async function fetchNow(): Promise<PageJobData[]> {
  return (await connection.boss.fetch<PageJobData>(PAGE_QUEUE, { batchSize: 10 })).map((job) => job.data);
}

/** A feed for one slot whose recent jobs were short: it fetches ahead. */
function feedAhead(): Feed<PageJobData> {
  const feed = new Feed<PageJobData>(connection.boss, backend.store, PAGE_QUEUE, 1, () => undefined);
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
