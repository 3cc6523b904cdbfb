/**
 * crawl --max-depth (issue 59, Firecrawl's maxDiscoveryDepth): links followed from the start page at most, the
 * sitemap's pages at depth 0; a bad value is a one-line usage error (exit 2) before anything starts. The same on
 * PostgreSQL and through serve: test/helpers/crawlContractCases.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const page = (title: string, links: string[] = []) =>
  html(`<article><h1>${title}</h1>${articleText(title, 2)}<ul>${links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('')}</ul></article>`, { title });

let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({
    '/': (_req, res) => sendHtml(res, page('Zero', ['/1', '/1b'])),
    '/1': (_req, res) => sendHtml(res, page('One', ['/2'])),
    '/1b': (_req, res) => sendHtml(res, page('One b')),
    '/2': (_req, res) => sendHtml(res, page('Two', ['/3'])),
    '/3': (_req, res) => sendHtml(res, page('Three')),
    '/sitemap.xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.at('/3')}</loc></url></urlset>`);
    },
  });
});

afterAll(() => site?.close());

const crawl = (args: string[]) => runCli(['crawl', site.at('/'), '--engine', 'http', '--json', ...args], { env: { WEBJOBS_HOME: tempHome() } });
const urls = (stdout: string) => (JSON.parse(stdout) as { data: { url: string }[] }).data.map((e) => new URL(e.url).pathname);

describe('crawl --max-depth', () => {
  it('follows at most N links from the start page; without it, every page', async () => {
    const runs = await Promise.all([crawl(['--ignore-sitemap', '--max-depth', '0']), crawl(['--ignore-sitemap', '--max-depth', '1']), crawl(['--ignore-sitemap'])]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(runs.map((run) => urls(run.stdout))).toEqual([['/'], ['/', '/1', '/1b'], ['/', '/1', '/1b', '/2', '/3']]);
  });

  it("counts the sitemap's pages at depth 0: --max-depth 0 crawls them with the start page", async () => {
    const run = await crawl(['--max-depth', '0']);
    expect(run.code, run.stderr).toBe(0);
    expect(urls(run.stdout)).toEqual(['/', '/3']);
  });

  it('refuses a value that is not a whole number from 0 to 1,000: one line, exit 2', async () => {
    for (const value of ['-1', '1.5', 'deep', '1001']) {
      const run = await crawl(['--max-depth', value]);
      expect({ value, code: run.code, stdout: run.stdout }).toEqual({ value, code: 2, stdout: '' });
      expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
      expect(run.stderr).toContain('--max-depth');
    }
  });
});
