/**
 * PostgreSQL workers take the pages of each API key in turn (issue 54, finding 1; src/pg/fairTurns.ts): one key's
 * big batch queued first no longer holds every worker until it ends. On a real PostgreSQL and pg-boss, what is
 * asserted is the order in which pages are claimed from the queue (pg-boss's fetch, as a worker's feed asks),
 * never time.
 */
import { describe, expect, it } from 'vitest';
import { PAGE_QUEUE } from '../src/pg/connect.js';
import type { PageJobData } from '../src/pg/store.js';
import { usePgQueue } from './helpers/pgQueue.js';

const db = usePgQueue();

/** A batch of `count` pages of key `key` (nothing serves them: only the queue is looked at); its job id, named `name` in the claims. */
async function batch(key: string, count: number): Promise<string> {
  const urls = Array.from({ length: count }, (_, i) => `http://127.0.0.1:9/${key}/${i}`);
  const { jobId } = await db.backend.startOwned('batch', { urls }, { key, maxActive: 10 });
  return jobId;
}

/** Claims the queue's pages one at a time, as free worker slots do: each claim as `name` of its job and the page's index. */
async function claims(names: Map<string, string>, count: number): Promise<string[]> {
  const order: string[] = [];
  for (let i = 0; i < count; i++) {
    const [job] = await db.connection.boss.fetch<PageJobData>(PAGE_QUEUE, { batchSize: 1 });
    if (!job) break;
    order.push(`${names.get(job.data.jobId)}${job.data.index}`);
  }
  return order;
}

describe('PostgreSQL page queue shared per key', () => {
  it("takes key B's and C's pages in turn with key A's batch queued before them, not after it", async () => {
    const a = await batch('key-a', 6);
    const b = await batch('key-b', 1);
    const c = await batch('key-c', 2);
    const names = new Map([[a, 'a'], [b, 'b'], [c, 'c']]);
    expect(await claims(names, 10)).toEqual(['a0', 'b0', 'c0', 'a1', 'c1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('a key that queues while another key\'s batch is half claimed waits behind one of its pages, not the rest', async () => {
    const a = await batch('key-a', 6);
    const names = new Map([[a, 'a']]);
    expect(await claims(names, 3)).toEqual(['a0', 'a1', 'a2']);
    const b = await batch('key-b', 2);
    names.set(b, 'b');
    // A second batch of key A queues behind its first, not beside B's.
    const a2 = await batch('key-a', 2);
    names.set(a2, 'A');
    expect(await claims(names, 10)).toEqual(['a3', 'b0', 'a4', 'b1', 'a5', 'A0', 'A1']);
  });
});
