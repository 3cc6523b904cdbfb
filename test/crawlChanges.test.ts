/**
 * Change tracking across a crawl (issue 41): a page of the previous crawl that
 * this one did not reach is listed as `removed` (and one that now answers 404),
 * in --jsonl, --output-dir's changes.json and --exit-code; a crawl cut by
 * --max-pages removes nothing. Sitemap lastmods decide revalidation: a page no
 * newer than its stored copy is not fetched blindly. The real CLI against a
 * server that records what it gets.
 */
import { promises as fs } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

interface Tracked {
  changeStatus: string;
  previousScrapeAt: string | null;
  visibility: string;
}
interface Line {
  url: string;
  status: string;
  markdown?: string;
  metadata: Record<string, string>;
  changeTracking?: Tracked;
}

const TRACK = ['--formats', 'markdown,changeTracking', '--engine', 'http'];
const SLOW = 240_000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const pageOf = (name: string, version = 1) => html(`<article><h1>${name} v${version}</h1>${articleText('crawl changes')}</article>`, { title: name });
const robots = (site: () => FixtureServer, sitemap: boolean) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(`User-agent: *\nAllow: /\n${sitemap ? `\nSitemap: ${site().at('/sitemap.xml')}\n` : ''}`);
};

describe('removed pages of a crawl', () => {
  let site: FixtureServer;
  /** What the start page links to, and pages that answer 404. */
  let links = ['/p1', '/p2', '/p3'];
  const gone = new Set<string>();

  beforeAll(async () => {
    const page = (name: string) => (_req: http.IncomingMessage, res: http.ServerResponse) =>
      gone.has(name) ? sendHtml(res, html('<h1>Not found</h1>'), 404) : sendHtml(res, pageOf(name));
    site = await startFixtureServer({
      '/robots.txt': robots(() => site, false),
      '/': (_req, res) => sendHtml(res, html(`<article><h1>Home</h1>${links.map((l) => `<p><a href="${l}">${l}</a></p>`).join('')}${articleText('home')}</article>`)),
      ...Object.fromEntries(['/p0', '/p1', '/p2', '/p3'].map((name) => [name, page(name)])),
    });
  });
  afterAll(() => site?.close());

  const crawl = async (env: NodeJS.ProcessEnv, extra: string[] = []) => {
    const result = await runCli(['crawl', site.at('/'), ...TRACK, '--exit-code', '--jsonl', ...extra], { env, timeoutMs: 120_000 });
    const lines = result.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Line);
    const status = Object.fromEntries(lines.map((line) => [new URL(line.url).pathname, line.changeTracking?.changeStatus ?? `none ${line.metadata.statusCode}`]));
    return { code: result.code, stderr: result.stderr, lines, status };
  };

  it('lists a page no longer linked, and one now answering 404, as removed; --exit-code 10; changes.json lists them', async () => {
    const env = { WEBJOBS_HOME: tempHome() };
    expect(await crawl(env)).toMatchObject({ code: 10, status: { '/': 'new', '/p1': 'new', '/p2': 'new', '/p3': 'new' } });
    expect(await crawl(env)).toMatchObject({ code: 0, status: { '/': 'same', '/p1': 'same', '/p2': 'same', '/p3': 'same' } });

    links = ['/p1', '/p2'];
    gone.add('/p2');
    const dir = path.join(tempHome(), 'out');
    const third = await runCli(['crawl', site.at('/'), ...TRACK, '--exit-code', '--output-dir', dir], { env, timeoutMs: 120_000 });
    expect(third.code, third.stderr).toBe(10);
    const index = JSON.parse(await fs.readFile(path.join(dir, 'index.json'), 'utf8')) as { pages: { url: string; changeStatus?: string; file: string | null; statusCode: number | null }[] };
    expect(index.pages.map((p) => [new URL(p.url).pathname, p.changeStatus, p.statusCode])).toEqual([
      // The home page lost a link: changed.
      ['/', 'changed', 200],
      ['/p1', 'same', 200],
      ['/p2', 'removed', 404],
      ['/p3', 'removed', null],
    ]);
    expect(index.pages[3]!.file).toBeNull();
    const changes = JSON.parse(await fs.readFile(path.join(dir, 'changes.json'), 'utf8')) as { pages: { url: string; changeStatus: string; previousScrapeAt: string | null; file: string | null }[] };
    expect(changes.pages.map((p) => [new URL(p.url).pathname, p.changeStatus, p.file])).toEqual([
      ['/', 'changed', index.pages[0]!.file],
      ['/p2', 'removed', null],
      ['/p3', 'removed', null],
    ]);
    for (const page of changes.pages) expect(page.previousScrapeAt).toMatch(ISO);
    await expect(fs.readdir(dir)).resolves.not.toContain(expect.stringMatching(/p3/));

    // Removed once: the next crawl compares with this one's pages, which no longer hold them.
    const fourth = await crawl(env);
    expect(fourth).toMatchObject({ code: 0, status: { '/': 'same', '/p1': 'same', '/p2': 'none 404' } });
    expect(fourth.lines).toHaveLength(3);
  }, SLOW);

  it('in --jsonl a removed page is an entry with visibility hidden and no content', async () => {
    const env = { WEBJOBS_HOME: tempHome() };
    links = ['/p1', '/p3'];
    gone.clear();
    await crawl(env);
    links = ['/p1'];
    const second = await crawl(env);
    expect(second.code).toBe(10);
    const removed = second.lines.find((line) => line.url === site.at('/p3'))!;
    expect(removed).toMatchObject({ status: 'completed', changeTracking: { changeStatus: 'removed', visibility: 'hidden' } });
    expect(removed.markdown).toBeUndefined();
    expect(second.lines.at(-1)).toBe(removed);
  }, SLOW);

  it('a crawl cut by --max-pages removes nothing: the pages it did not reach are compared next time', async () => {
    const env = { WEBJOBS_HOME: tempHome() };
    links = ['/p1', '/p2', '/p3'];
    expect(await crawl(env, ['--max-pages', '4'])).toMatchObject({ code: 10, status: { '/': 'new', '/p1': 'new', '/p2': 'new', '/p3': 'new' } });
    // A new page first in the list: /p3 falls past --max-pages; it is not reached, but not removed either.
    links = ['/p0', '/p1', '/p2', '/p3'];
    const cut = await crawl(env, ['--max-pages', '4']);
    expect(cut.status).toEqual({ '/': 'changed', '/p0': 'new', '/p1': 'same', '/p2': 'same' });
    links = ['/p1', '/p2'];
    // Now the crawl runs out of pages: /p3, kept from the first crawl, is removed.
    const full = await crawl(env, ['--max-pages', '4']);
    expect(full.status).toEqual({ '/': 'changed', '/p1': 'same', '/p2': 'same', '/p0': 'removed', '/p3': 'removed' });
  }, SLOW);
});

describe("a crawl's sitemap lastmod", () => {
  let site: FixtureServer;
  const version: Record<string, number> = { '/fresh': 1, '/newer': 1, '/tagged': 1 };
  const lastmod: Record<string, string> = { '/fresh': '2024-01-01', '/newer': '2024-01-01T00:00:00Z', '/tagged': '2024-01-01' };

  beforeAll(async () => {
    site = await startFixtureServer({
      '/robots.txt': robots(() => site, true),
      '/sitemap.xml': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        const urls = Object.keys(version).map((name) => `<url><loc>${site.at(name)}</loc><lastmod>${lastmod[name]}</lastmod></url>`);
        res.end(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`);
      },
      '/': (_req, res) => sendHtml(res, html(`<article><h1>Home</h1>${articleText('home')}</article>`)),
      '/fresh': (_req, res) => sendHtml(res, pageOf('/fresh', version['/fresh'])),
      '/newer': (_req, res) => sendHtml(res, pageOf('/newer', version['/newer'])),
      '/tagged': (req, res) => {
        if (req.headers['if-none-match'] === '"t-1"') {
          res.writeHead(304, { etag: '"t-1"' });
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: '"t-1"' });
        res.end(pageOf('/tagged', version['/tagged']));
      },
    });
  });
  afterAll(() => site?.close());

  const got = (name: string) => site.received.filter((r) => r.path === name).map((r) => r.headers['if-none-match'] ?? null);

  it('no newer than the stored copy: kept without a request (no validators) or revalidated (ETag); newer: fetched whole', async () => {
    const env = { WEBJOBS_HOME: tempHome() };
    const args = ['crawl', site.at('/'), ...TRACK, '--jsonl'];
    const first = await runCli(args, { env, timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    expect([got('/fresh'), got('/newer'), got('/tagged')]).toEqual([[null], [null], [null]]);

    for (const name of Object.keys(version)) version[name] = 2;
    lastmod['/newer'] = new Date().toISOString();
    const second = await runCli(args, { env, timeoutMs: 120_000 });
    expect(second.code, second.stderr).toBe(0);
    const lines = second.stdout.trim().split('\n').map((line) => JSON.parse(line) as Line);
    const byPath = Object.fromEntries(lines.map((line) => [new URL(line.url).pathname, line]));
    // /fresh: the sitemap vouches for the stored copy: no request at all.
    expect(got('/fresh')).toEqual([null]);
    expect(byPath['/fresh']!.changeTracking!.changeStatus).toBe('same');
    expect(byPath['/fresh']!.markdown).toContain('/fresh v1');
    // /tagged: asked If-None-Match, 304: the stored copy stands.
    expect(got('/tagged')).toEqual([null, '"t-1"']);
    expect(byPath['/tagged']!.changeTracking!.changeStatus).toBe('same');
    // /newer: changed since the stored copy, says the sitemap: fetched whole.
    expect(got('/newer')).toEqual([null, null]);
    expect(byPath['/newer']!.changeTracking!.changeStatus).toBe('changed');
    expect(byPath['/newer']!.markdown).toContain('/newer v2');
  }, SLOW);
});
