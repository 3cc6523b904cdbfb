/**
 * Webhooks on PostgreSQL (serve --database): not sent there yet, so a request with one is refused whole (501
 * naming the feature, no job started), never accepted and left unsent. Issue 60's PostgreSQL part is open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const KEY = 'pg-hook-key-0123456789';
let pg: TestPostgres;
let serve: ServeProcess;
const client = serveClient(() => serve.url, KEY);

beforeAll(async () => {
  pg = await startPostgres();
  serve = await startServe({ args: ['--allow-private', '--quiet', '--database', pg.url, '--no-worker'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
});

afterAll(async () => {
  await serve?.stop();
  await pg?.stop();
});

describe('webhooks on PostgreSQL', () => {
  it.each([
    ['crawl', { url: 'http://127.0.0.1:9/', webhook: 'http://127.0.0.1:9/hook' }],
    ['scrape/batch', { urls: ['http://127.0.0.1:9/'], webhook: { url: 'http://127.0.0.1:9/hook' } }],
  ])('%s with a webhook is refused (501, naming it) and starts no job', async (kind, body) => {
    const answer = await client.call('POST', `/api/${kind}`, { body });
    expect(answer.status).toBe(501);
    expect(answer.body.message).toMatch(/^webhook is not supported on PostgreSQL/);
    expect((await client.call('GET', '/api/jobs')).body).toEqual([]);
  });
});
