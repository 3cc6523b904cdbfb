/**
 * The extraction workers are shared fairly per key (issue 54, finding 1): a free worker takes the first
 * waiting page of the key served longest ago, so one key's page waits behind one extraction of every other
 * key with work, never behind a whole batch. The real pool (engine/http/extractPool.ts over
 * api/workerPool.ts) with one worker; what is asserted is the order in which extractions finish, not time.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { InPageOptions } from '../src/engine/content/inPage.js';
import { ExtractPool } from '../src/engine/http/extractPool.js';
import { articleText, html } from './helpers/fixtureServer.js';

const pool = new ExtractPool(1);
afterAll(() => pool.close());

const OPTIONS: InPageOptions = { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: false };

function extract(key: string, name: string, finished: string[]): Promise<void> {
  const page = html(`<article><h1>${name}</h1>${articleText(name, 3)}</article>`);
  return pool.run(page, `https://${key}.example/${name}`, OPTIONS, { timeoutMs: 60_000, key }).then((done) => {
    expect(done.result.markdown).toContain(`# ${name}`);
    finished.push(name);
  });
}

describe('extraction workers shared per key', () => {
  it("takes the keys' waiting pages in turn: key B's page runs after one of key A's, not after A's batch", async () => {
    const finished: string[] = [];
    const heavy = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((name) => extract('key-a', name, finished));
    const small = [extract('key-b', 'b1', finished), extract('key-c', 'c1', finished)];
    await Promise.all([...heavy, ...small]);
    // a1 had the worker when the others came; then each key with work in turn.
    expect(finished).toEqual(['a1', 'b1', 'c1', 'a2', 'a3', 'a4', 'a5', 'a6']);
  });

  it('alternates two keys that both queue batches, and keeps each key in its own order', async () => {
    const finished: string[] = [];
    const a = ['a1', 'a2', 'a3'].map((name) => extract('key-a', name, finished));
    const b = ['b1', 'b2', 'b3'].map((name) => extract('key-b', name, finished));
    await Promise.all([...a, ...b]);
    expect(finished).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });
});
