/**
 * Crawling politely and correctly: robots.txt per origin, Crawl-delay and
 * --delay, sitemaps read alongside the crawl, --max-pages beyond 100 locally.
 * The real CLI against fixture servers on 127.0.0.1 (each port is an origin).
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const env = { WEBJOBS_HOME: tempHome() };

function page(title: string, links: string[] = []): string {
  const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return html(`<article><h1>${title}</h1>${articleText(title, 2)}<ul>${anchors}</ul></article>`, { title });
}

function text(body: string, status = 200): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  };
}

interface Entry {
  url: string;
  status: string;
  error?: string | null;
}

const servers: FixtureServer[] = [];
async function server(...args: Parameters<typeof startFixtureServer>): Promise<FixtureServer> {
  const started = await startFixtureServer(...args);
  servers.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function paths(site: FixtureServer): string[] {
  return site.requests.map((r) => r.split(' ')[1]!.split('?')[0]!);
}

describe('robots.txt per origin', () => {
  let start: FixtureServer;
  let landing: FixtureServer;
  beforeAll(async () => {
    // The start origin has no robots.txt (404: allow all); the origin it redirects to disallows /private.
    landing = await server({
      '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
      '/': (_req, res) => sendHtml(res, page('Landing', ['/private/secret', '/open'])),
      '/open': (_req, res) => sendHtml(res, page('Open')),
      '/private/secret': (_req, res) => sendHtml(res, page('Secret')),
    });
    start = await server({
      '/': (_req, res) => {
        res.writeHead(301, { location: landing.at('/') });
        res.end();
      },
    });
  });

  it("obeys the robots.txt of the origin the start URL redirects to", async () => {
    const result = await runCli(['crawl', start.at('/'), '--ignore-sitemap', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const urls = (JSON.parse(result.stdout) as { data: Entry[] }).data.map((e) => e.url);
    expect(urls).toEqual([landing.at('/'), landing.at('/open')]);
    expect(paths(landing)).toContain('/robots.txt');
    expect(paths(landing)).not.toContain('/private/secret');
  });

  it('crawls nothing on an origin whose robots.txt answers 5xx, and says why', async () => {
    const down = await server({ '/robots.txt': text('busy', 503), '/': (_req, res) => sendHtml(res, page('Home')) });
    const result = await runCli(['crawl', down.at('/'), '--ignore-sitemap', '--json'], { env });
    expect(result.code, result.stderr).toBe(3);
    const data = (JSON.parse(result.stdout) as { data: Entry[] }).data;
    expect(data).toHaveLength(1);
    expect(data[0]!.status).toBe('failed');
    expect(data[0]!.error).toMatch(/robots\.txt answered HTTP 503/);
    expect(paths(down)).not.toContain('/');
  });
});

interface Seen {
  path: string;
  /** Date.now() when the request arrived. */
  at: number;
  userAgent: string;
}

/** A site whose pages each link to /p1../pN, recording when each request arrived and with which User-Agent. */
async function recordingSite(robots: string, pages: number, hold?: { until: number; ms: number }) {
  const seen: Seen[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const waiting: (() => void)[] = [];
  const links = Array.from({ length: pages }, (_, i) => `/p${i + 1}`);
  const site = await server({}, async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push({ path, at: Date.now(), userAgent: String(req.headers['user-agent']) });
    if (path === '/robots.txt') return text(robots)(req, res);
    if (path !== '/' && !links.includes(path)) return sendHtml(res, html('<p>Not found</p>'), 404);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    if (hold && path !== '/') {
      // Holds each page until `until` are in flight at once (then all go), or `ms` passed: what a crawl sends at once shows.
      if (inFlight >= hold.until) waiting.splice(0).forEach((go) => go());
      else await new Promise<void>((resolve) => {
        waiting.push(resolve);
        setTimeout(resolve, hold.ms);
      });
    }
    inFlight--;
    sendHtml(res, page(path, path === '/' ? links : []));
  });
  return { site, seen, maxInFlight: () => maxInFlight };
}

/** The shortest gap between two requests the server saw, robots.txt left out (it is read before any rule is known). */
function shortestGap(seen: Seen[]): number {
  const times = seen.filter((s) => s.path !== '/robots.txt').map((s) => s.at);
  return Math.min(...times.slice(1).map((at, i) => at - times[i]!));
}

describe('politeness per host', () => {
  it("honours robots.txt Crawl-delay: the server sees no two requests closer than the delay", async () => {
    const { site, seen } = await recordingSite('User-agent: *\nCrawl-delay: 1\n', 3);
    const result = await runCli(['crawl', site.at('/'), '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { data: Entry[] }).data).toHaveLength(4);
    expect(seen.filter((s) => s.path !== '/robots.txt').length).toBeGreaterThanOrEqual(5); // 4 pages and /sitemap.xml
    expect(shortestGap(seen)).toBeGreaterThanOrEqual(1000);
  });

  it('spaces a batch by --delay, and a crawl by --delay when robots.txt asks for less', async () => {
    const { site, seen } = await recordingSite('User-agent: *\nAllow: /\n', 3);
    const batch = await runCli(['batch', site.at('/p1'), site.at('/p2'), site.at('/p3'), '--delay', '400', '--json'], { env });
    expect(batch.code, batch.stderr).toBe(0);
    expect(seen.map((s) => s.path)).toEqual(['/p1', '/p2', '/p3']);
    expect(shortestGap(seen)).toBeGreaterThanOrEqual(400);
    seen.length = 0;
    const crawl = await runCli(['crawl', site.at('/'), '--delay', '400', '--json'], { env });
    expect(crawl.code, crawl.stderr).toBe(0);
    expect(shortestGap(seen)).toBeGreaterThanOrEqual(400);
  });

  it('refuses a --delay over the limit as bad usage', async () => {
    const result = await runCli(['crawl', 'http://127.0.0.1:9/', '--delay', '600000'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--delay must be at most 60,000/);
  });

  it(`sends at most 4 requests to one host at once`, async () => {
    const { site, maxInFlight } = await recordingSite('User-agent: *\nAllow: /\n', 12, { until: 5, ms: 1500 });
    const result = await runCli(['crawl', site.at('/'), '--max-pages', '13', '--ignore-sitemap', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { data: Entry[] }).data).toHaveLength(13);
    expect(maxInFlight()).toBeLessThanOrEqual(4);
  });

  it('sends one User-Agent, naming webjobs, for pages, robots.txt and sitemaps', async () => {
    const { site, seen } = await recordingSite('User-agent: *\nAllow: /\n', 1);
    const result = await runCli(['crawl', site.at('/'), '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const paths = seen.map((s) => s.path);
    expect(paths).toEqual(expect.arrayContaining(['/robots.txt', '/sitemap.xml', '/', '/p1']));
    expect(new Set(seen.map((s) => s.userAgent)).size).toBe(1);
    expect(seen[0]!.userAgent).toMatch(/\bwebjobs\/\d/);
  });
});

describe('sitemaps read alongside the crawl', () => {
  it('crawls the start page links while a sitemap file is still loading', async () => {
    const order: string[] = [];
    let p1Requested: () => void = () => undefined;
    const p1Seen = new Promise<void>((resolve) => (p1Requested = resolve));
    const site = await server({
      '/robots.txt': text('User-agent: *\nAllow: /\n'),
      '/sitemap.xml': async (_req, res) => {
        // Answers once the crawl asked for /p1, or after 8 s: a crawl that waits for its sitemaps first gets it late.
        await Promise.race([p1Seen, new Promise((resolve) => setTimeout(resolve, 8000))]);
        order.push('sitemap answered');
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<urlset><url><loc>${site.at('/from-sitemap')}</loc></url></urlset>`);
      },
      '/': (_req, res) => sendHtml(res, page('Home', ['/p1'])),
      '/p1': (_req, res) => {
        order.push('/p1');
        p1Requested();
        sendHtml(res, page('P1'));
      },
      '/from-sitemap': (_req, res) => sendHtml(res, page('From the sitemap')),
    });
    const result = await runCli(['crawl', site.at('/'), '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const urls = (JSON.parse(result.stdout) as { data: Entry[] }).data.map((e) => e.url);
    expect(urls).toEqual([site.at('/'), site.at('/p1'), site.at('/from-sitemap')]);
    expect(order).toEqual(['/p1', 'sitemap answered']);
  });

  it('stops reading sitemaps once enough URLs are known', async () => {
    const files = 30;
    const site = await server(
      {
        '/robots.txt': text('User-agent: *\nAllow: /\n'),
        '/sitemap.xml': (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/xml' });
          const locs = Array.from({ length: files }, (_, i) => `<sitemap><loc>${site.at(`/sitemap-${i}.xml`)}</loc></sitemap>`);
          res.end(`<sitemapindex>${locs.join('')}</sitemapindex>`);
        },
      },
      (req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const file = /^\/sitemap-(\d+)\.xml$/.exec(path);
        if (!file) return sendHtml(res, page(path));
        res.writeHead(200, { 'content-type': 'application/xml' });
        const locs = Array.from({ length: 500 }, (_, i) => `<url><loc>${site.at(`/s${file[1]}/page-${i}`)}</loc></url>`);
        res.end(`<urlset>${locs.join('')}</urlset>`);
      },
    );
    const result = await runCli(['crawl', site.at('/'), '--max-pages', '5', '--no-follow-links', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { data: Entry[] }).data).toHaveLength(5);
    const sitemapFiles = site.requests.filter((r) => /\/sitemap-\d+\.xml/.test(r));
    expect(sitemapFiles.length).toBeLessThanOrEqual(2);
  });
});

describe('--max-pages beyond the service limit, locally', () => {
  it('crawls 110 pages on this machine', async () => {
    const pages = 120;
    const links = Array.from({ length: pages }, (_, i) => `/n${i}`);
    const site = await server({ '/robots.txt': text('User-agent: *\nAllow: /\n') }, (req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      // Small pages: the start page links to all; the rest link nowhere.
      sendHtml(res, html(`<h1>${path}</h1><p>Page ${path}.</p>${path === '/' ? links.map((l) => `<a href="${l}">${l}</a>`).join(' ') : ''}`));
    });
    const result = await runCli(['crawl', site.at('/'), '--max-pages', '110', '--ignore-sitemap', '--jsonl'], { env, timeoutMs: 300_000 });
    expect(result.code, result.stderr).toBe(0);
    const urls = result.stdout.trim().split('\n').map((line) => (JSON.parse(line) as Entry).url);
    expect(urls).toHaveLength(110);
    expect(new Set(urls).size).toBe(110);
  });
});
