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
