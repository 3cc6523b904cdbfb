/**
 * serve on PostgreSQL against the file store (issue 40): map answers the same; a feature it lacks is refused
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
    '/': (_req, res) => sendHtml(res, html(`<article><h1>Home</h1>${articleText('home')}<p><a href="/a">A</a> <a href="/b">B</a></p></article>`, { title: 'Home' })),
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

describe('serve --database offers what the file store does, or refuses it naming it', () => {
  it('map: answered by the API node as on the file store, on /api/map, the Firecrawl route and map --remote', async () => {
    const local = await runCli(['map', site.at('/'), '--json'], { env: { WEBJOBS_HOME: tempHome() } });
    expect(local.code, local.stderr).toBe(0);
    const remote = await runCli(['map', site.at('/'), '--json', '--remote', serve.url, '--api-key', KEY], { env: { WEBJOBS_HOME: tempHome() } });
    expect(remote.code, remote.stderr).toBe(0);
    expect(remote.stdout).toBe(local.stdout);
    expect((JSON.parse(local.stdout) as { links: { url: string }[] }).links.map((link) => link.url)).toEqual([site.at('/'), site.at('/a'), site.at('/b')]);
    const api = await post('/api/map', { url: site.at('/') });
    expect(api.status).toBe(200);
    expect(await api.json()).toEqual(JSON.parse(local.stdout));
    const firecrawl = await post('/v1/map', { url: site.at('/') });
    expect(firecrawl.status).toBe(200);
    expect(await firecrawl.json()).toEqual({ success: true, links: (JSON.parse(local.stdout) as { links: { url: string }[] }).links.map((link) => link.url) });
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
