/**
 * Hostile robots.txt and sitemaps against the real CLI and a real Chromium:
 * endless bodies, gzip bombs and bad character references must neither take
 * the process's memory nor fail the crawl.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipBomb, stream } from '../bench/hostileSites.js';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const env = { WEBJOBS_HOME: tempHome() };
const MiB = 1024 * 1024;

function page(title: string, links: string[] = []): string {
  const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return html(`<article><h1>${title}</h1>${articleText(title, 3)}<ul>${anchors}</ul></article>`, { title });
}

let site: FixtureServer;
let bomb: Buffer;
/** Bytes the endless robots.txt got out before webjobs hung up. */
let robotsBytesSent: Promise<number>;

beforeAll(async () => {
  // 120 MiB of XML once inflated: over the old 100 MiB inflate limit, which lost the whole file.
  bomb = await gzipBomb(`<?xml version="1.0"?><urlset><url><loc>/from-bomb</loc></url>`, 120 * MiB);
  let sentResolve!: (bytes: number) => void;
  robotsBytesSent = new Promise((resolve) => (sentResolve = resolve));
  site = await startFixtureServer({
    // 300 MB of robots.txt, chunked (no Content-Length): the rule at the top must still count.
    '/robots.txt': async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const line = Buffer.from(`# ${'padding '.repeat(120)}\n`);
      sentResolve(await stream(res, 'User-agent: *\nDisallow: /private\n', Buffer.concat(Array(64).fill(line)), 300 * 1000 * 1000));
    },
    '/sitemap.xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0"?><sitemapindex><sitemap><loc>${site.at('/bomb.xml.gz')}</loc></sitemap>` +
          `<sitemap><loc>${site.at('/entities.xml')}</loc></sitemap></sitemapindex>`,
      );
    },
    '/bomb.xml.gz': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      res.end(bomb);
    },
    '/entities.xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0"?><urlset><url><loc>/bad-&#99999999999;-entity</loc></url>` +
          `<url><loc>/surrogate-&#xD800;</loc></url><url><loc>/after-entity?a=1&amp;b=2</loc></url></urlset>`,
      );
    },
    '/': (_req, res) => sendHtml(res, page('Home', ['/private', '/public'])),
    '/public': (_req, res) => sendHtml(res, page('Public')),
    '/private': (_req, res) => sendHtml(res, page('Private')),
    '/from-bomb': (_req, res) => sendHtml(res, page('From the bomb')),
    '/after-entity': (_req, res) => sendHtml(res, page('After the entity')),
  });
});

afterAll(async () => {
  await site?.close();
});

interface CrawlRecord {
  status: string;
  data: { url: string; status: string }[];
}

describe('a crawl of a hostile site', () => {
  it('reads the first 500 KiB of an endless robots.txt, the first 10 MiB of a gzip bomb, and skips a sitemap entry with a bad character reference', async () => {
    const result = await runCli(['crawl', site.at('/'), '--max-pages', '20', '--json'], { env, timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout) as CrawlRecord;
    expect(record.status).toBe('completed');
    const paths = record.data.map((e) => new URL(e.url).pathname + new URL(e.url).search).sort();
    // /private is disallowed by the first lines of the endless robots.txt; the bomb's and the good entity's pages are crawled.
    expect(paths).toEqual(['/', '/after-entity?a=1&b=2', '/from-bomb', '/public']);
    expect(record.data.every((e) => e.status === 'completed')).toBe(true);
    // The client hung up after its cap: a few MiB at most were in flight, not 300 MB.
    expect(await robotsBytesSent).toBeLessThan(16 * MiB);
  }, 150_000);
});
