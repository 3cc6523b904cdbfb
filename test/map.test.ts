/**
 * `webjobs map` and serve's POST /api/map: sitemaps (index, gzip, robots.txt
 * Sitemap: lines), the start page's links, normalisation as crawl does, scope,
 * --search, --limit, --depth, and the same answer locally, over HTTP and remotely.
 */
import type http from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runShell, tempHome } from './helpers/cli.js';
import { html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'map-test-key-0123456789';
const env = { WEBJOBS_HOME: tempHome() };

let site: FixtureServer;
let down: FixtureServer;
let serve: ServeProcess;

function page(title: string, links: [string, string][], description = `About ${title}`): string {
  const anchors = links.map(([href, text]) => `<li><a href="${href}">${text}</a></li>`).join('');
  return html(`<h1>${title}</h1><ul>${anchors}</ul>`, { title, head: `<meta name="description" content="${description}">` });
}

beforeAll(async () => {
  const other = () => site.url.replace('127.0.0.1', 'localhost');
  const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
    '/robots.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`User-agent: *\nDisallow: /private\n\nSitemap: ${site.at('/sitemap-index.xml')}\n`);
    },
    '/sitemap-index.xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><sitemapindex><sitemap><loc>${site.at('/pages.xml.gz')}</loc></sitemap></sitemapindex>`);
    },
    '/pages.xml.gz': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      const locs = ['/from-sitemap', '/about', '/private/hidden', '/docs/guide', `${other()}/elsewhere`].map((p) => `<url><loc>${p.startsWith('http') ? p : site.at(p)}</loc></url>`);
      res.end(gzipSync(`<?xml version="1.0"?><urlset>${locs.join('')}</urlset>`));
    },
    '/sitemap.xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><urlset><url><loc>${site.at('/plain-sitemap')}</loc></url></urlset>`);
    },
    '/': (_req, res) =>
      sendHtml(
        res,
        page('Home', [
          ['/about', 'About us'],
          ['/about/', 'About again'],
          ['/about#team', 'Team'],
          ['/b?x=1&y=2', 'Bee'],
          ['/b?y=2&x=1&utm_source=mail', 'Bee again'],
          ['/logo.png', 'Logo'],
          ['/private/secret', 'Secret'],
          [`${other()}/offsite`, 'Offsite'],
          ['/docs/guide', 'Guide'],
          ['/plans', 'Pricing plans'],
          ['mailto:a@b.c', 'Mail'],
        ]),
      ),
    '/about': (_req, res) => sendHtml(res, page('About', [['/team', 'Our team']])),
    '/docs/guide': (_req, res) => sendHtml(res, page('Guide', [['/docs/deep', 'Deeper']])),
  };
  site = await startFixtureServer(routes);
  down = await startFixtureServer({
    '/robots.txt': (_req, res) => {
      res.writeHead(503);
      res.end('down');
    },
  });
  serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:free` } });
});

afterAll(async () => {
  await serve?.stop();
  await site?.close();
  await down?.close();
});

const lines = (text: string) => text.trim().split('\n').filter(Boolean);

describe('webjobs map', () => {
  it('lists the start page, its links and the sitemaps, normalised, de-duplicated and in scope', async () => {
    const before = site.requests.length;
    const result = await runCli(['map', site.url], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      site.at('/'),
      site.at('/about'),
      site.at('/b?x=1&y=2'),
      site.at('/docs/guide'),
      site.at('/plans'),
      // sitemaps breadth-first: robots.txt's index and /sitemap.xml, then the gzip file the index names
      site.at('/plain-sitemap'),
      site.at('/from-sitemap'),
    ]);
    // Pages are read over HTTP: only the start page; robots.txt and the three sitemap files besides.
    expect(site.requests.slice(before).sort()).toEqual(
      ['GET /', 'GET /robots.txt', 'GET /sitemap-index.xml', 'GET /pages.xml.gz', 'GET /sitemap.xml'].sort(),
    );
  }, 180_000);

  it('--json gives title and description of the pages it read', async () => {
    const result = await runCli(['map', site.url, '--json', '--depth', '2', '--ignore-sitemap'], { env });
    expect(result.code).toBe(0);
    const { links } = JSON.parse(result.stdout) as { links: { url: string; title?: string; description?: string }[] };
    expect(links[0]).toEqual({ url: site.at('/'), title: 'Home', description: 'About Home' });
    expect(links.find((l) => l.url === site.at('/about'))).toEqual({ url: site.at('/about'), title: 'About', description: 'About About' });
    // depth 2 reaches the links of linked pages; /plans answers 404 and has no title.
    expect(links.map((l) => l.url)).toEqual(expect.arrayContaining([site.at('/team'), site.at('/docs/deep'), site.at('/plans')]));
    expect(links.find((l) => l.url === site.at('/plans'))).toEqual({ url: site.at('/plans') });
  }, 180_000);

  it('--search matches the address or the link text; --limit cuts the list', async () => {
    const byText = await runCli(['map', site.url, '--search', 'PRICING'], { env });
    expect(lines(byText.stdout)).toEqual([site.at('/plans')]);
    const byAddress = await runCli(['map', site.url, '--search', 'sitemap'], { env });
    expect(lines(byAddress.stdout)).toEqual([site.at('/plain-sitemap'), site.at('/from-sitemap')]);
    const limited = await runCli(['map', site.url, '--limit', '2'], { env });
    expect(lines(limited.stdout)).toEqual([site.at('/'), site.at('/about')]);
  }, 180_000);

  it('--depth 0 reads sitemaps only; patterns scope as in crawl', async () => {
    const sitemapsOnly = await runCli(['map', site.url, '--depth', '0'], { env });
    expect(lines(sitemapsOnly.stdout)).toEqual([site.at('/plain-sitemap'), site.at('/from-sitemap'), site.at('/about'), site.at('/docs/guide')]);
    const docs = await runCli(['map', site.url, '--include-patterns', '/docs/**'], { env });
    expect(lines(docs.stdout)).toEqual([site.at('/docs/guide')]);
    const noDocs = await runCli(['map', site.url, '--exclude-patterns', '/docs/**,/b', '--ignore-sitemap'], { env });
    expect(lines(noDocs.stdout)).toEqual([site.at('/'), site.at('/about'), site.at('/plans')]);
  }, 180_000);

  it('fails with exit 1 when robots.txt answers 5xx, and refuses bad input with exit 2', async () => {
    const failed = await runCli(['map', down.url], { env });
    expect(failed.code).toBe(1);
    // One line, not a stack.
    expect(failed.stderr).toMatch(/^webjobs: http:\/\/\S+\/robots\.txt answered HTTP 503, so nothing on \S+ is crawled \(RFC 9309\)\n$/);
    expect(failed.stdout).toBe('');
    const bad = await runCli(['map', 'example.com'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/did you mean https:\/\/example\.com/);
    const badDepth = await runCli(['map', site.url, '--depth', '9'], { env });
    expect(badDepth.code).toBe(2);
  }, 180_000);

  it('feeds batch - directly', async () => {
    const result = await runShell(`webjobs map ${site.url} --include-patterns '/about' | webjobs batch - --formats links --json --quiet`, { env });
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout) as { data: { url: string; links: string[] }[] };
    expect(record.data.map((entry) => entry.url)).toEqual([site.at('/about')]);
    expect(record.data[0]!.links).toContain(site.at('/team'));
  }, 180_000);
});

describe('POST /api/map on serve, and map --remote', () => {
  it('answers the same map as the local CLI, synchronously, for any plan', async () => {
    const response = await fetch(`${serve.url}/api/map`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url, search: 'about' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ links: [{ url: site.at('/about') }] });
    const local = await runCli(['map', site.url, '--json'], { env });
    const remote = await runCli(['map', site.url, '--json', '--remote', serve.url, '--api-key', KEY], { env: { WEBJOBS_HOME: tempHome() } });
    expect(remote.code).toBe(0);
    expect(remote.stdout).toBe(local.stdout);
  }, 180_000);

  it('refuses a bad request with 400 and the field named, and no key with 401', async () => {
    const bad = await fetch(`${serve.url}/api/map`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url, limit: 0 }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/request\.limit must be between 1 and/);
    const remoteBad = await runCli(['map', site.url, '--remote', serve.url, '--api-key', KEY, '--depth', '7'], { env });
    expect(remoteBad.code).toBe(2);
    const noKey = await fetch(`${serve.url}/api/map`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(noKey.status).toBe(401);
  }, 180_000);

  it('refuses private addresses unless the server allows them', async () => {
    const guarded = await startServe({ args: ['--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:free` } });
    try {
      const response = await fetch(`${guarded.url}/api/map`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ url: site.url }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toMatch(/loopback|private/);
    } finally {
      await guarded.stop();
    }
  }, 180_000);
});
