/**
 * Where serve on PostgreSQL differs from the file store, it says so (issue 40): a feature it lacks is refused
 * with UnsupportedError (HTTP 501, exit code 9) naming it, never silently ignored; and waiting on a job reports
 * its pages as they finish, as on the file store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobProgress } from '../src/api/backend.js';
import type { PageEntry } from '../src/api/types.js';
import { PgBackend } from '../src/pg/backend.js';
import { connect, pgSettings, type PgConnection } from '../src/pg/connect.js';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'differs-test-key-0123456789';

let site: FixtureServer;
let pg: TestPostgres;
let serve: ServeProcess;
let connection: PgConnection;

beforeAll(async () => {
  site = await startFixtureServer({
    '/a': (_req, res) => sendHtml(res, html(`<article><h1>A</h1>${articleText('alpha')}</article>`)),
    '/b': (_req, res) => sendHtml(res, html(`<article><h1>B</h1>${articleText('beta')}</article>`)),
  });
  pg = await startPostgres();
  // The API node runs a worker too: the jobs started here through PgBackend run on it.
  serve = await startServe({ args: ['--allow-private', '--quiet', '--database', pg.url], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
  connection = await connect(pgSettings(pg.url));
});

afterAll(async () => {
  await connection?.close();
  await serve?.stop();
  await site?.close();
  await pg?.stop();
});

const post = (path: string, body: unknown) =>
  fetch(`${serve.url}${path}`, {
    method: 'POST',
    // /api takes x-api-key, the Firecrawl routes a bearer token.
    headers: { 'x-api-key': KEY, authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('serve --database refuses what it lacks, naming it', () => {
  it('map: 501 on /api/map and on the Firecrawl route; map --remote exits 9', async () => {
    for (const path of ['/api/map', '/v1/map']) {
      const response = await post(path, { url: site.at('/a') });
      expect(response.status, path).toBe(501);
      expect(JSON.stringify(await response.json()), path).toMatch(/map is not supported on this server/);
    }
    const remote = await runCli(['map', site.at('/a'), '--remote', serve.url, '--api-key', KEY], { env: { WEBJOBS_HOME: tempHome() } });
    expect(remote.code, remote.stderr).toBe(9);
    expect(remote.stderr).toMatch(/map is not supported/);
  });

  it('scrapeOptions.maxAge: 501 naming the page cache, before any job exists; --max-age --remote exits 9', async () => {
    const scrape = await post('/api/scrape', { url: site.at('/a'), scrapeOptions: { maxAge: 60_000 } });
    expect(scrape.status).toBe(501);
    expect(((await scrape.json()) as { message: string }).message).toMatch(/scrapeOptions\.maxAge \(the page cache\) is not supported on PostgreSQL/);
    const batch = await post('/api/scrape/batch', { urls: [site.at('/a')], scrapeOptions: { maxAge: 60_000 } });
    expect(batch.status).toBe(501);
    const remote = await runCli(['batch', site.at('/a'), '--max-age', '1h', '--remote', serve.url, '--api-key', KEY], { env: { WEBJOBS_HOME: tempHome() } });
    expect(remote.code, remote.stderr).toBe(9);
    expect(remote.stderr).toMatch(/maxAge/);
    const jobs = await fetch(`${serve.url}/api/jobs`, { headers: { 'x-api-key': KEY } });
    expect(await jobs.json()).toEqual([]);
    // maxAge 0 asks for no cache: nothing to refuse.
    expect((await post('/api/scrape', { url: site.at('/a'), scrapeOptions: { maxAge: 0 } })).status).toBe(200);
  });
});

describe('PgBackend.wait', () => {
  it("reports the batch's pages finished and failed, and hands each finished entry over once, in order", async () => {
    const backend = new PgBackend(connection);
    const urls = [site.at('/a'), 'http://127.0.0.1:1/refused', site.at('/b')];
    const { jobId } = await backend.start('batch', { urls });
    const progress: JobProgress[] = [];
    const pages: [number, PageEntry][] = [];
    const status = await backend.wait('batch', jobId, { onProgress: (p) => progress.push(p), onPage: (entry, index) => pages.push([index, entry]) });
    expect(status).toBe('completed');
    expect(progress.at(-1)).toEqual({ status: 'completed', done: 3, failed: 1, total: 3 });
    expect(pages.map(([index, entry]) => [index, entry.url, entry.status])).toEqual([
      [0, urls[0], 'completed'],
      [1, urls[1], 'failed'],
      [2, urls[2], 'completed'],
    ]);
  });
});
