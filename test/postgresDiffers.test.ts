/**
 * serve on PostgreSQL against the file store (issue 40): map, the page cache (maxAge, cacheState, each key its
 * own entries) and screenshots (files served by URL) answer the same; and waiting on a job reports its pages as
 * they finish, as on the file store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobProgress } from '../src/api/backend.js';
import type { PageEntry } from '../src/api/types.js';
import { PgBackend } from '../src/pg/backend.js';
import { connect, pgSettings, type PgConnection } from '../src/pg/connect.js';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { pngSize } from './helpers/png.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'differs-test-key-0123456789';
const OTHER_KEY = 'differs-other-key-0123456789';

let site: FixtureServer;
let pg: TestPostgres;
let serve: ServeProcess;
let connection: PgConnection;
let changing = 1;

beforeAll(async () => {
  site = await startFixtureServer({
    '/': (_req, res) => sendHtml(res, html(`<article><h1>Home</h1>${articleText('home')}<p><a href="/a">A</a> <a href="/b">B</a></p></article>`, { title: 'Home' })),
    '/a': (_req, res) => sendHtml(res, html(`<article><h1>A</h1>${articleText('alpha')}</article>`)),
    '/b': (_req, res) => sendHtml(res, html(`<article><h1>B</h1>${articleText('beta')}</article>`)),
    '/changing': (_req, res) => sendHtml(res, html(`<article><h1>Changing v${changing}</h1>${articleText('gamma')}</article>`)),
  });
  pg = await startPostgres();
  // The API node runs a worker too: the jobs started here through PgBackend run on it.
  serve = await startServe({ args: ['--allow-private', '--quiet', '--database', pg.url], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale,${OTHER_KEY}:scale` } });
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

describe('serve --database offers what the file store does', () => {
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

  it('scrapeOptions.maxAge: the page cache, each key its own entries, as on the file store', async () => {
    const cacheState = async (key: string, path: string) => {
      const run = await runCli(['batch', site.at(path), '--max-age', '1h', '--json', '--remote', serve.url, '--api-key', key], { env: { WEBJOBS_HOME: tempHome() } });
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { data: PageEntry[] }).data.map((entry) => entry.metadata.cacheState);
    };
    const home = tempHome();
    const local = async () => {
      const run = await runCli(['batch', site.at('/b'), '--max-age', '1h', '--json'], { env: { WEBJOBS_HOME: home } });
      return (JSON.parse(run.stdout) as { data: PageEntry[] }).data.map((entry) => entry.metadata.cacheState);
    };
    expect([await local(), await local()]).toEqual([['miss'], ['hit']]);
    expect([await cacheState(KEY, '/b'), await cacheState(KEY, '/b'), await cacheState(OTHER_KEY, '/b')]).toEqual([['miss'], ['hit'], ['miss']]);
    // A scrape and a Firecrawl scrape read the same cache; maxAge 0 asks for no cache.
    const scrape = await post('/api/scrape', { url: site.at('/b'), scrapeOptions: { maxAge: 3_600_000 } });
    expect(scrape.status).toBe(200);
    const { jobId } = (await scrape.json()) as { jobId: string };
    const remoteArgs = ['--remote', serve.url, '--api-key', KEY];
    expect((await runCli(['wait', jobId, ...remoteArgs], { env: { WEBJOBS_HOME: tempHome() } })).stdout.trim()).toBe('completed');
    const run = await runCli(['result', jobId, '--json', ...remoteArgs], { env: { WEBJOBS_HOME: tempHome() } });
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { data: PageEntry }).data.metadata.cacheState).toBe('hit');
    const firecrawl = await post('/v1/scrape', { url: site.at('/b'), maxAge: 3_600_000 });
    expect(((await firecrawl.json()) as { data: { metadata: Record<string, string> } }).data.metadata.cacheState).toBe('hit');
  });

  it('changeTracking: the last result is kept in the database: new, same, changed with its diff, each tag its own history', async () => {
    const track = async (...extra: string[]) => {
      const run = await runCli(['batch', site.at('/changing'), '--formats', 'markdown,changeTracking', '--exit-code', '--json', '--remote', serve.url, '--api-key', KEY, ...extra], {
        env: { WEBJOBS_HOME: tempHome() },
      });
      const page = (JSON.parse(run.stdout) as { data: PageEntry[] }).data[0]!;
      return { code: run.code, status: page.changeTracking?.changeStatus, diff: page.changeTracking?.diff?.text };
    };
    expect(await track()).toEqual({ code: 10, status: 'new', diff: undefined });
    expect(await track()).toEqual({ code: 0, status: 'same', diff: undefined });
    changing = 2;
    const changed = await track();
    expect(changed).toMatchObject({ code: 10, status: 'changed' });
    expect(changed.diff).toContain('\n-# Changing v1\n+# Changing v2\n');
    expect(await track('--change-tag', 'weekly')).toMatchObject({ code: 10, status: 'new' });
    const v2 = await post('/v2/scrape', { url: site.at('/changing'), formats: ['markdown', { type: 'changeTracking', tag: 'weekly' }] });
    expect(((await v2.json()) as { data: PageEntry }).data.changeTracking).toMatchObject({ changeStatus: 'same', visibility: 'visible' });
  });

  it('screenshots: kept beside the job, not in its record, and served by URL to its key only', async () => {
    const run = await runCli(['batch', site.at('/a'), site.at('/b'), '--formats', 'screenshot', '--json', '--remote', serve.url, '--api-key', KEY], {
      env: { WEBJOBS_HOME: tempHome() },
    });
    expect(run.code, run.stderr).toBe(0);
    const shots = (JSON.parse(run.stdout) as { data: PageEntry[] }).data.map((entry) => entry.screenshot!);
    const jobId = new RegExp(`^${serve.url}/api/files/([0-9a-f-]{36})/screenshot-1\\.png$`).exec(shots[0]!)?.[1];
    expect(jobId, shots[0]).toBeDefined();
    expect(shots).toEqual([1, 2].map((n) => `${serve.url}/api/files/${jobId}/screenshot-${n}.png`));
    for (const shot of shots) {
      const served = await fetch(shot, { headers: { 'x-api-key': KEY } });
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(pngSize(Buffer.from(await served.arrayBuffer())).width).toBeGreaterThan(0);
      expect((await fetch(shot, { headers: { 'x-api-key': OTHER_KEY } })).status).toBe(404);
    }
    expect((await fetch(`${serve.url}/api/files/${jobId}/..%2F..%2Fkeys.json`, { headers: { 'x-api-key': KEY } })).status).toBe(404);
    const { rows } = await connection.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM webjobs_pages WHERE job_id = $1 AND entry::text LIKE '%data:image%'`, [jobId]);
    expect(rows[0]!.n).toBe(0);
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
