/**
 * The crawl's contract cases (issue 52): what a crawl does on the file store it does on PostgreSQL too, where
 * the same visit (src/jobs/crawlVisit.ts) runs page by page on workers: a redirect to a page crawled already is
 * dropped, change tracking lists the pages the crawl no longer reached, and a sitemap's <lastmod> spares a page's
 * request. Each case has a site of its own; run by remoteSuite.ts against both stores, each local and remote.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractTarget } from './contractCases.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './fixtureServer.js';

interface Entry {
  url: string;
  status: string;
  metadata?: { sourceURL?: string; statusCode?: number };
  changeTracking?: { changeStatus: string; visibility: string };
}

function page(title: string, links: string[] = []): string {
  const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return html(`<article><h1>${title}</h1>${articleText(title, 2)}<ul>${anchors}</ul></article>`, { title });
}

function redirect(to: string): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (_req, res) => {
    res.writeHead(301, { location: to });
    res.end();
  };
}

/** Four crawls each, run by the CLI: more than the default minute on a loaded machine. */
const CASE_MS = 240_000;

const entries = (stdout: string) => (JSON.parse(stdout) as { data: Entry[] }).data;
/** What change tracking said of each page, in the crawl's order. */
const changes = (stdout: string) => entries(stdout).map((e) => [e.url, e.changeTracking?.changeStatus, e.changeTracking?.visibility]);

export function crawlContractCases(target: ContractTarget): void {
  /** Two pages that redirect to pages of the crawl: the start page, and a page found before the redirect is. */
  let dup: FixtureServer;
  /** A site that changes between two crawls: a page gone (404), a page no longer linked. */
  let tracked: FixtureServer;
  let secondCrawl = false;
  /** A sitemap that dates its pages long ago. */
  let dated: FixtureServer;
  /** A chain of pages, each one link deeper. */
  let deep: FixtureServer;

  beforeAll(async () => {
    dup = await startFixtureServer({
      '/': (_req, res) => sendHtml(res, page('Home', ['/home', '/a', '/b'])),
      '/home': redirect('/'),
      '/a': (_req, res) => sendHtml(res, page('Page A', ['/a-alias'])),
      '/a-alias': redirect('/a'),
      '/b': (_req, res) => sendHtml(res, page('Page B')),
    });
    tracked = await startFixtureServer({
      '/': (_req, res) => sendHtml(res, page('Tracked home', secondCrawl ? ['/one', '/gone'] : ['/one', '/two', '/gone'])),
      '/one': (_req, res) => sendHtml(res, page('Tracked one')),
      '/two': (_req, res) => sendHtml(res, page('Tracked two')),
      '/gone': (_req, res) => sendHtml(res, page(secondCrawl ? 'Not found' : 'Tracked gone'), secondCrawl ? 404 : 200),
    });
    dated = await startFixtureServer({
      '/': (_req, res) => sendHtml(res, page('Dated home')),
      '/sitemap.xml': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        const urls = ['/1', '/2'].map((p) => `<url><loc>${dated.at(p)}</loc><lastmod>2001-02-03</lastmod></url>`).join('');
        res.end(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
      },
      '/1': (_req, res) => sendHtml(res, page('Dated one')),
      '/2': (_req, res) => sendHtml(res, page('Dated two')),
    });
    deep = await startFixtureServer({
      '/': (_req, res) => sendHtml(res, page('Depth zero', ['/1'])),
      '/1': (_req, res) => sendHtml(res, page('Depth one', ['/2'])),
      '/2': (_req, res) => sendHtml(res, page('Depth two', ['/3'])),
      '/3': (_req, res) => sendHtml(res, page('Depth three')),
    });
  });

  afterAll(async () => {
    await Promise.all([dup, tracked, dated, deep].map((s) => s?.close()));
  });

  describe.concurrent('the contract: a crawl, the same on either store', () => {
    it('a redirect to a page crawled already is dropped, and its place under --max-pages goes to the next URL found', async () => {
      for (const cap of [[], ['--max-pages', '3']]) {
        const args = ['crawl', dup.at('/'), '--ignore-sitemap', '--json', ...cap];
        const l = await target.local(args);
        const r = await target.remote(args);
        expect(l.code, l.stderr).toBe(0);
        target.expectSame(l, r);
        expect(entries(r.stdout).map((e) => [e.url, e.metadata?.sourceURL])).toEqual(['/', '/a', '/b'].map((p) => [dup.at(p), dup.at(p)]));
      }
    }, CASE_MS);

    it('changeTracking in a crawl: a page that now answers 404 and a page no longer reached are removed', async () => {
      const args = ['crawl', tracked.at('/'), '--ignore-sitemap', '--formats', 'markdown,changeTracking', '--json'];
      const first = [await target.local(args), await target.remote(args)];
      secondCrawl = true;
      const second = [await target.local(args), await target.remote(args)];
      for (const run of [...first, ...second]) expect(run.code, run.stderr).toBe(0);
      const at = (p: string) => tracked.at(p);
      expect(first.map((run) => changes(run.stdout))).toEqual(Array(2).fill(['/', '/one', '/two', '/gone'].map((p) => [at(p), 'new', 'visible'])));
      const expected = [
        [at('/one'), 'same', 'visible'],
        [at('/gone'), 'removed', 'visible'],
        [at('/two'), 'removed', 'hidden'],
      ];
      // The start page's links changed: whether its Markdown did depends on what main content keeps of a list of links.
      const [local, remote] = second.map((run) => changes(run.stdout));
      expect(remote).toEqual(local);
      expect(local!.slice(1)).toEqual(expected);
    }, CASE_MS);

    it('maxDepth: links followed from the start page at most', async () => {
      for (const depth of [0, 2]) {
        const args = ['crawl', deep.at('/'), '--ignore-sitemap', '--max-depth', String(depth), '--json'];
        const l = await target.local(args);
        const r = await target.remote(args);
        expect(l.code, l.stderr).toBe(0);
        target.expectSame(l, r);
        expect(entries(r.stdout).map((e) => e.url)).toEqual(['/', '/1', '/2'].slice(0, depth + 1).map((p) => deep.at(p)));
      }
      const refused = await target.remote(['crawl', deep.at('/'), '--max-depth', '-1']);
      expect({ code: refused.code, lines: refused.stderr.trim().split('\n').length }).toEqual({ code: 2, lines: 1 });
      expect(refused.stderr).toContain('--max-depth');
      const answer = await fetch(`${target.url()}/api/crawl`, {
        method: 'POST',
        headers: { 'x-api-key': target.key, 'content-type': 'application/json' },
        body: JSON.stringify({ url: deep.at('/'), maxDepth: 1.5 }),
      });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(await answer.json())).toContain('maxDepth must be an integer');
    }, CASE_MS);

    it("a sitemap's <lastmod> no newer than a page's last result spares the page's request, with changeTracking", async () => {
      const args = ['crawl', dated.at('/'), '--formats', 'markdown,changeTracking', '--json'];
      const asked = (from: number) => dated.requests.slice(from).filter((r) => r === 'GET /1' || r === 'GET /2').length;
      for (const run of [target.local, target.remote]) {
        let from = dated.requests.length;
        const first = await run(args);
        expect(first.code, first.stderr).toBe(0);
        expect(asked(from)).toBe(2);
        from = dated.requests.length;
        const second = await run(args);
        expect(second.code, second.stderr).toBe(0);
        expect(changes(second.stdout)).toEqual(['/', '/1', '/2'].map((p) => [dated.at(p), 'same', 'visible']));
        // Dated 2001 in the sitemap, stored today: neither page is asked for again.
        expect(asked(from)).toBe(0);
      }
    }, CASE_MS);
  });
}
