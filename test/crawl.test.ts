import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const env = { WEBJOBS_HOME: tempHome() };

function page(title: string, links: string[] = []): string {
  const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return html(`<article><h1>${title}</h1>${articleText(title, 3)}<ul>${anchors}</ul></article>`, {
    title,
    head: `<meta name="description" content="About ${title}">`,
  });
}

let site: FixtureServer;

beforeAll(async () => {
  // Handlers read `site` when a request comes, so they can link to the server's own address.
  const otherHost = () => site.url.replace('127.0.0.1', 'localhost');
  const routes: Record<string, (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void> = {
    '/robots.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`User-agent: *\nDisallow: /private\n\nUser-agent: webjobs\nDisallow: /private\nDisallow: /no-webjobs\n\nSitemap: ${site.at('/sitemap-index.xml')}\n`);
    },
    '/sitemap-index.xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${site.at('/pages.xml.gz')}</loc></sitemap></sitemapindex>`);
    },
    '/pages.xml.gz': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      res.end(gzipSync(`<?xml version="1.0"?><urlset><url><loc>${site.at('/from-sitemap')}</loc></url><url><loc>${site.at('/a')}</loc></url></urlset>`));
    },
    '/': (_req, res) =>
      sendHtml(
        res,
        page('Home', ['/a', '/a/', '/a#top', '/b?x=1&y=2', '/b?y=2&x=1', '/b?x=1&y=2&utm_source=mail', '/private/secret', '/no-webjobs', `${otherHost()}/other-host`, '/moved']),
      ),
    '/a': (_req, res) => sendHtml(res, page('Page A', ['/deep'])),
    '/b': (_req, res) => sendHtml(res, page('Page B')),
    '/deep': (_req, res) => sendHtml(res, page('Deep page')),
    '/from-sitemap': (_req, res) => sendHtml(res, page('Sitemap page')),
    '/moved': (_req, res) => {
      res.writeHead(302, { location: '/landed' });
      res.end();
    },
    '/landed': (_req, res) => sendHtml(res, page('Landed page')),
    '/trap': (_req, res) => sendHtml(res, page('Trap', [`/trap?session=${Math.random().toString(36).slice(2)}`])),
    '/docs': (_req, res) => sendHtml(res, page('Docs', ['/docs/intro', '/docs/old/v1', '/blog/post'])),
    '/docs/intro': (_req, res) => sendHtml(res, page('Intro')),
    '/docs/old/v1': (_req, res) => sendHtml(res, page('Old docs')),
    '/blog/post': (_req, res) => sendHtml(res, page('Blog post')),
  };
  site = await startFixtureServer(routes);
});

afterAll(async () => {
  await site.close();
});

interface Entry {
  url: string;
  status: string;
  error?: string | null;
  markdown?: string;
  links?: string[];
  metadata: Record<string, string>;
}

function paths(requests: string[]): string[] {
  return requests.map((r) => r.split(' ')[1]!.split('?')[0]!);
}

describe('webjobs crawl', () => {
  it('crawls breadth-first, once per page, obeying robots.txt and scope, with sitemap pages after the start page links', async () => {
    site.requests.length = 0;
    const result = await runCli(['crawl', site.at('/'), '--max-pages', '20', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout) as { status: string; totalCrawledPages: number; data: Entry[] };
    expect(record.status).toBe('completed');
    const urls = record.data.map((e) => e.url);
    expect(record.totalCrawledPages).toBe(urls.length);
    expect(urls).toEqual([
      site.at('/'),
      site.at('/a'),
      site.at('/b?x=1&y=2'),
      site.at('/landed'),
      site.at('/from-sitemap'),
      site.at('/deep'),
    ]);
    for (const entry of record.data) {
      expect(entry.status).toBe('completed');
      expect(entry.metadata.title).toBeTruthy();
      expect(entry.metadata.description).toMatch(/^About /);
      expect(entry.metadata.url).toBe(entry.url);
      expect(entry.markdown).toContain('Paragraph 1 about');
      expect(entry.links).toBeUndefined();
    }
    const requested = paths(site.requests);
    expect(requested.filter((p) => p === '/a' || p === '/a/')).toHaveLength(1);
    expect(requested.filter((p) => p === '/b')).toHaveLength(1);
    expect(requested).not.toContain('/private/secret');
    expect(requested).not.toContain('/no-webjobs');
    expect(requested).not.toContain('/other-host');
    expect(requested).toContain('/pages.xml.gz');
  });

  it('stops a crawler trap at maxPages', async () => {
    const result = await runCli(['crawl', site.at('/trap'), '--max-pages', '5', '--ignore-sitemap', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout) as { totalCrawledPages: number; data: Entry[] };
    expect(record.totalCrawledPages).toBe(5);
    expect(record.data).toHaveLength(5);
    expect(new Set(record.data.map((e) => e.url)).size).toBe(5);
  });

  it('narrows the scope with include and exclude patterns', async () => {
    const result = await runCli(
      ['crawl', site.at('/docs'), '--include-patterns', '/docs/**', '--exclude-patterns', '/docs/old/*', '--ignore-sitemap', '--jsonl'],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const urls = result.stdout.trim().split('\n').map((line) => (JSON.parse(line) as Entry).url);
    expect(urls.sort()).toEqual([site.at('/docs'), site.at('/docs/intro')]);
  });

  it('crawls only the start page and the sitemap with --no-follow-links, and keeps links when asked', async () => {
    const result = await runCli(['crawl', site.at('/'), '--no-follow-links', '--formats', 'markdown,links', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout) as { data: Entry[] };
    expect(record.data.map((e) => e.url)).toEqual([site.at('/'), site.at('/from-sitemap'), site.at('/a')]);
    expect(record.data[0]!.links).toContain(site.at('/moved'));
  });

  it('refuses --max-pages over 100000 here, and over 100 with --remote, before anything starts', async () => {
    const before = site.requests.length;
    const result = await runCli(['crawl', site.at('/'), '--max-pages', '100001'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--max-pages must be at most 100,000, got 100001/);
    const remote = await runCli(['crawl', site.at('/'), '--max-pages', '101', '--remote', 'http://127.0.0.1:9'], { env });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/--max-pages must be at most 100 with --remote \(the service's limit\), got 101/);
    expect(site.requests.length).toBe(before);
  });
});
