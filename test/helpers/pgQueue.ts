/**
 * The set-up of the tests that look at PostgreSQL's queue from this process (pgFeed.test.ts, pgFairTurns.test.ts):
 * the test suite's own PostgreSQL, a connection (pool and pg-boss) and a PgBackend that starts jobs on it, made
 * before the file's tests and closed after them. No worker: a test claims the queue's jobs itself, or starts one.
 */
import { afterAll, beforeAll } from 'vitest';
import { PgBackend } from '../../src/pg/backend.js';
import { connect, pgSettings, type PgConnection } from '../../src/pg/connect.js';
import { startPostgres, type TestPostgres } from './postgres.js';

const SLOW = 120_000;

export interface PgQueue {
  pg: TestPostgres;
  connection: PgConnection;
  backend: PgBackend;
}

/** Registers the file's beforeAll and afterAll; the returned object is filled in before its first test. */
export function usePgQueue(): PgQueue {
  const queue = {} as PgQueue;
  beforeAll(async () => {
    queue.pg = await startPostgres();
    queue.connection = await connect(pgSettings(queue.pg.url));
    queue.backend = new PgBackend(queue.connection);
  }, SLOW);
  afterAll(async () => {
    await queue.connection?.close();
    await queue.pg?.stop();
  }, SLOW);
  return queue;
}
