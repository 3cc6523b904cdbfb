/**
 * The contract cases of remoteSuite.ts that need sites of their own: extract (a loopback model), files
 * (screenshots served by URL), robots.txt after a redirect to another origin, Crawl-delay and per-key limits.
 * They run, unchanged, against serve on the file store and against serve --database with worker processes,
 * concurrently with each other (each has its own site, job ids and key).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DEFAULTS } from '../../src/server/defaults.js';
import type { CliResult } from './cli.js';
import { toolUse, type FakeAnthropic } from './fakeAnthropic.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './fixtureServer.js';
import { pngSize } from './png.js';

export interface ContractTarget {
  /** serve's URL. */
  url(): string;
  key: string;
  /** Another key of the same serve: it must see none of the first one's files. */
  otherKey: string;
  /** A key no other case uses, for the per-key limit. */
  limitedKey: string;
  /** The loopback model that local runs and serve's extract jobs ask. */
  llm(): FakeAnthropic;
  local(args: string[]): Promise<CliResult>;
  remote(args: string[]): Promise<CliResult>;
  /** Fails unless both runs printed the same bytes and exit code (job ids and scrape times aside). */
  expectSame(a: CliResult, b: CliResult): void;
}

interface Entry {
  url: string;
  status: string;
  screenshot?: string;
}

function page(title: string, links: string[] = []): string {
  const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return html(`<article><h1>${title}</h1>${articleText(title, 2)}<ul>${anchors}</ul></article>`, { title });
}

function text(body: string): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
  };
}

const paths = (site: FixtureServer) => site.requests.map((r) => r.split(' ')[1]!.split('?')[0]!);

/** What the loopback model answers an extract with. */
const MODEL_REPLY = { name: 'Aurora Teapot', price: 49.9 };

export function contractCases(target: ContractTarget): void {
  let site: FixtureServer;
  /** The origin a crawl's start URL redirects to, whose robots.txt disallows /private. */
  let landing: FixtureServer;
  let start: FixtureServer;
  /** A site whose robots.txt asks for a second between requests; when each request arrived. */
  let slow: FixtureServer;
  const slowSeen: { path: string; at: number }[] = [];
  /** The per-key limit's requests, held until the test lets go (the job's cancel closes their connection). */
  const heldOpen = new Set<http.ServerResponse>();
  let shotTwoServed: () => void = () => undefined;
  const secondShot = new Promise<void>((resolve) => (shotTwoServed = resolve));

  beforeAll(async () => {
    // Every extract of these cases (locally, on serve, through the Firecrawl API) gets this answer.
    target.llm().fallback = toolUse(MODEL_REPLY, { input_tokens: 321, output_tokens: 12 });
    site = await startFixtureServer({
      '/product': (_req, res) => sendHtml(res, html(`<main><h1>Aurora Teapot</h1><p>A cast-iron teapot. Price: 49.90 EUR</p>${articleText('teapots', 2)}</main>`, { title: 'Aurora Teapot' })),
      // The first page is answered only once the second has been: it finishes last.
      '/shot/1': async (_req, res) => {
        await secondShot;
        sendHtml(res, page('Shot one'));
      },
      '/shot/2': (_req, res) => {
        sendHtml(res, page('Shot two'));
        shotTwoServed();
      },
      '/cap/': (_req, res) => sendHtml(res, page('Capped home', ['/cap/1', '/cap/2', '/cap/3', '/cap/4'])),
      '/cap/1': (_req, res) => sendHtml(res, page('Capped one', ['/cap/', '/cap/2', '/cap/5'])),
      '/cap/2': (_req, res) => sendHtml(res, page('Capped two')),
      '/cap/5': (_req, res) => sendHtml(res, page('Capped five')),
      // The same tree under its own path, for the one case that checks what each request carried.
      '/opt/': (_req, res) => sendHtml(res, page('Options home', ['/opt/1', '/opt/2', '/opt/3', '/opt/4'])),
      '/opt/1': (_req, res) => sendHtml(res, page('Options one', ['/opt/', '/opt/2', '/opt/5'])),
      '/opt/2': (_req, res) => sendHtml(res, page('Options two')),
      '/opt/5': (_req, res) => sendHtml(res, page('Options five')),
      '/held': (_req, res) => {
        heldOpen.add(res);
        res.on('close', () => heldOpen.delete(res));
      },
    });
    landing = await startFixtureServer({
      '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
      '/': (_req, res) => sendHtml(res, page('Landing', ['/private/secret', '/open'])),
      '/open': (_req, res) => sendHtml(res, page('Open')),
      '/private/secret': (_req, res) => sendHtml(res, page('Secret')),
    });
    start = await startFixtureServer({
      '/': (_req, res) => {
        res.writeHead(301, { location: landing.at('/') });
        res.end();
      },
    });
    slow = await startFixtureServer({}, (req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      slowSeen.push({ path, at: Date.now() });
      if (path === '/robots.txt') return text('User-agent: *\nCrawl-delay: 1\n')(req, res);
      if (path === '/') return sendHtml(res, page('Slow home', ['/s1', '/s2']));
      if (path === '/s1' || path === '/s2') return sendHtml(res, page(`Slow ${path}`));
      sendHtml(res, html('<p>Not found</p>'), 404);
    });
  });

  afterAll(async () => {
    for (const res of heldOpen) res.destroy();
    await Promise.all([site, landing, start, slow].map((s) => s?.close()));
  });

  const post = (path: string, body: unknown, key = target.key) =>
    fetch(`${target.url()}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  describe.concurrent('the contract: what either store offers', () => {
    it('chunks and maxTokens: the same pages locally and remotely, cut first, then chunked', async () => {
      const args = ['batch', site.at('/product'), site.at('/cap/'), '--formats', 'markdown,chunks', '--chunk-tokens', '32', '--max-tokens', '100', '--json'];
      const [local, remote] = await Promise.all([target.local(args), target.remote(args)]);
      target.expectSame(local, remote);
      const pages = (JSON.parse(remote.stdout) as { data: { markdown: string; chunks: { tokens: number; text: string }[]; metadata: { truncated?: boolean } }[] }).data;
      for (const entry of pages) {
        expect(entry.chunks.length).toBeGreaterThan(1);
        for (const chunk of entry.chunks) expect(chunk.tokens).toBeLessThanOrEqual(32);
      }
      expect(pages.some((entry) => entry.metadata.truncated === true)).toBe(true);
    });

    it('extract: the same record locally and remotely, from the page text sent to the model', async () => {
      const reply = MODEL_REPLY;
      const schema = JSON.stringify({ type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name'] });
      const args = ['extract', site.at('/product'), '--schema', schema, '--prompt', 'the teapot', '--json'];
      const l = await target.local(args);
      const r = await target.remote(args);
      expect(l.code, l.stderr).toBe(0);
      // A failed job's record says why (its error), where the comparison below shows only the fields it names.
      expect(JSON.parse(r.stdout).status, r.stdout).toBe('completed');
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', data: reply, metadata: { inputTokens: 321, outputTokens: 12, numPagesScraped: 1 } });
      target.expectSame(l, r);
      // This case's requests (its prompt), local and remote: the Firecrawl case's extract asks about the same page.
      const asked = target.llm().requests.filter((q) => JSON.stringify(q.body).includes('the teapot'));
      expect(asked).toHaveLength(2);
      expect(JSON.stringify(asked[1]!.body.messages)).toContain('Aurora Teapot');
    });

    it("files: screenshots come back as URLs on serve, each named by its page's place, served to the job's key only", async () => {
      const run = await target.remote(['batch', site.at('/shot/1'), site.at('/shot/2'), '--formats', 'screenshot', '--concurrency', '2', '--json']);
      expect(run.code, run.stderr).toBe(0);
      const record = JSON.parse(run.stdout) as { jobId: string; data: Entry[] };
      expect(record.data.map((entry) => entry.screenshot)).toEqual([1, 2].map((n) => `${target.url()}/api/files/${record.jobId}/screenshot-${n}.png`));
      for (const shot of record.data.map((entry) => entry.screenshot!)) {
        const served = await fetch(shot, { headers: { 'x-api-key': target.key } });
        expect(served.status).toBe(200);
        expect(served.headers.get('content-type')).toBe('image/png');
        expect(pngSize(Buffer.from(await served.arrayBuffer())).width).toBeGreaterThan(0);
        expect((await fetch(shot, { headers: { 'x-api-key': target.otherKey } })).status).toBe(404);
      }
    });

    it("page actions: a batch's screenshots and PDFs come back as URLs named by the page's place, served to the job's key only; script values as they are", async () => {
      const actions = JSON.stringify([{ type: 'executeJavascript', script: 'document.title' }, { type: 'screenshot' }, { type: 'pdf' }]);
      const run = await target.remote(['batch', site.at('/shot/1'), site.at('/shot/2'), '--actions', actions, '--concurrency', '2', '--json']);
      expect(run.code, run.stderr).toBe(0);
      const record = JSON.parse(run.stdout) as { jobId: string; data: (Entry & { actions: { screenshots: string[]; pdfs: string[]; javascriptReturns: unknown[] } })[] };
      const files = `${target.url()}/api/files/${record.jobId}`;
      expect(record.data.map((entry) => entry.actions.screenshots)).toEqual([1, 2].map((n) => [`${files}/screenshot-${n}-1.png`]));
      expect(record.data.map((entry) => entry.actions.pdfs)).toEqual([1, 2].map((n) => [`${files}/pdf-${n}-1.pdf`]));
      expect(record.data.every((entry) => (entry.actions.javascriptReturns[0] as { type: string }).type === 'string')).toBe(true);
      const pdf = await fetch(`${files}/pdf-2-1.pdf`, { headers: { 'x-api-key': target.key } });
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
      expect((await fetch(`${files}/screenshot-1-1.png`, { headers: { 'x-api-key': target.otherKey } })).status).toBe(404);
    });

    it('robots.txt after a redirect: the crawl obeys the rules of the origin the start URL lands on', async () => {
      const args = ['crawl', start.at('/'), '--ignore-sitemap', '--json'];
      const l = await target.local(args);
      const r = await target.remote(args);
      expect(l.code, l.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { data: Entry[] }).data.map((e) => e.url)).toEqual([landing.at('/'), landing.at('/open')]);
      target.expectSame(l, r);
      expect(paths(landing)).toContain('/robots.txt');
      expect(paths(landing)).not.toContain('/private/secret');
    });

    it('a crawl cut by maxPages: the same pages, and the URLs it found and did not crawl counted', async () => {
      const args = ['crawl', site.at('/cap/'), '--max-pages', '2', '--ignore-sitemap', '--json'];
      const l = await target.local(args);
      const r = await target.remote(args);
      expect(l.code, l.stderr).toBe(0);
      target.expectSame(l, r);
      expect(r.stderr).toContain('stopped at --max-pages 2; 4 more URLs were found and not crawled');
      const run = JSON.parse(r.stdout) as { urlsNotCrawled?: number; data: Entry[] };
      // /cap/2, /cap/3 and /cap/4, each once (/cap/1 links to /cap/2 again), and /cap/5 found on /cap/1.
      expect({ urls: run.data.map((e) => e.url), left: run.urlsNotCrawled }).toEqual({ urls: [site.at('/cap/'), site.at('/cap/1')], left: 4 });
    });

    it("a crawl's options (patterns, no links followed, a site's own header): the pages they allow", async () => {
      const crawl = ['crawl', site.at('/opt/'), '--ignore-sitemap', '--json', '--header', 'X-Contract: yes'];
      const runs = [[...crawl, '--exclude-patterns', '/opt/3,/opt/4'], [...crawl, '--include-patterns', '/opt/,/opt/2'], [...crawl, '--no-follow-links']];
      const urls: string[][] = [];
      for (const args of runs) {
        const r = await target.remote(args);
        expect(r.code, r.stderr).toBe(0);
        urls.push((JSON.parse(r.stdout) as { data: Entry[] }).data.map((e) => e.url));
      }
      expect(urls).toEqual([
        ['/opt/', '/opt/1', '/opt/2', '/opt/5'].map((p) => site.at(p)),
        ['/opt/', '/opt/2'].map((p) => site.at(p)),
        [site.at('/opt/')],
      ]);
      const asked = site.received.filter((r) => r.path.startsWith('/opt/'));
      expect(asked.length).toBeGreaterThanOrEqual(7);
      expect(asked.filter((r) => r.headers['x-contract'] !== 'yes').map((r) => r.path)).toEqual([]);
    });

    it('--output-dir: the same files locally and remotely, screenshots downloaded beside the pages', async () => {
      const dirs = [mkdtempSync(path.join(os.tmpdir(), 'webjobs-contract-')), mkdtempSync(path.join(os.tmpdir(), 'webjobs-contract-'))];
      const args = (dir: string) => ['batch', site.at('/cap/1'), site.at('/cap/2'), '--formats', 'markdown,screenshot', '--output-dir', dir];
      const l = await target.local(args(dirs[0]!));
      const r = await target.remote(args(dirs[1]!));
      expect(l.code, l.stderr).toBe(0);
      expect(r.code, r.stderr).toBe(0);
      const [local, remote] = dirs.map((dir) => readdirSync(dir).sort());
      expect(remote).toEqual(local);
      expect(local!.filter((name) => name.endsWith('.png'))).toHaveLength(2);
      for (const name of local!.filter((n) => n.endsWith('.md'))) expect(readFileSync(path.join(dirs[1]!, name), 'utf8')).toBe(readFileSync(path.join(dirs[0]!, name), 'utf8'));
      for (const name of local!.filter((n) => n.endsWith('.png'))) expect(pngSize(readFileSync(path.join(dirs[1]!, name))).width).toBeGreaterThan(0);
    });

    it('the Firecrawl API: a crawl paged by next, a batch scrape and an extract, polled until done', async () => {
      const firecrawl = async (method: string, route: string, body?: unknown) => {
        const response = await fetch(`${target.url()}${route}`, {
          method,
          headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return (await response.json()) as { id?: string; status?: string; next?: string; data?: unknown } & Record<string, unknown>;
      };
      const untilDone = async (route: string, busy: string) => {
        for (let answer = await firecrawl('GET', route); ; answer = await firecrawl('GET', route)) {
          if (answer.status !== busy) return answer;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      };
      const sources = (data: unknown) => (data as { metadata: { sourceURL: string } }[]).map((doc) => doc.metadata.sourceURL);
      const crawl = await firecrawl('POST', '/v2/crawl', { url: site.at('/cap/'), limit: 3, sitemap: 'skip' });
      expect(await untilDone(`/v2/crawl/${crawl.id}`, 'scraping')).toMatchObject({ success: true, status: 'completed', completed: 3, total: 3 });
      const first = await firecrawl('GET', `/v2/crawl/${crawl.id}?limit=2`);
      expect(first.next).toBe(`${target.url()}/v2/crawl/${crawl.id}?skip=2&limit=2`);
      const rest = await firecrawl('GET', `/v2/crawl/${crawl.id}?skip=2&limit=2`);
      expect([...sources(first.data), ...sources(rest.data)]).toEqual(['/cap/', '/cap/1', '/cap/2'].map((p) => site.at(p)));
      const batch = await firecrawl('POST', '/v1/batch/scrape', { urls: [site.at('/cap/2'), site.at('/cap/5')] });
      const scraped = await untilDone(`/v1/batch/scrape/${batch.id}`, 'scraping');
      expect(scraped).toMatchObject({ success: true, status: 'completed', completed: 2, total: 2 });
      expect(sources(scraped.data)).toEqual([site.at('/cap/2'), site.at('/cap/5')]);
      const extract = await firecrawl('POST', '/v2/extract', { urls: [site.at('/product')], schema: { type: 'object', properties: { name: { type: 'string' } } } });
      expect(await untilDone(`/v2/extract/${extract.id}`, 'processing')).toMatchObject({ success: true, status: 'completed', data: MODEL_REPLY });
    });

    it('Crawl-delay: the site sees no two page requests closer than robots.txt asks', async () => {
      const run = await target.remote(['crawl', slow.at('/'), '--ignore-sitemap', '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect((JSON.parse(run.stdout) as { data: Entry[] }).data.map((e) => e.url).sort()).toEqual([slow.at('/'), slow.at('/s1'), slow.at('/s2')]);
      // robots.txt is read before any rule is known; the pages after it, each at least a second after the one before.
      const pages = slowSeen.filter((s) => ['/', '/s1', '/s2'].includes(s.path));
      expect(pages.map((s) => s.path).slice(0, 1)).toEqual(['/']);
      expect(pages.map((s) => s.path).sort()).toEqual(['/', '/s1', '/s2']);
      const gaps = pages.slice(1).map((s, i) => s.at - pages[i]!.at);
      expect(Math.min(...gaps), `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(1000);
    });

    it('paging: page, skip, batchSize and limit out of range are refused (400 naming the field); the furthest page is empty', async () => {
      const started = await post('/api/scrape/batch', { urls: [site.at('/product')] });
      expect(started.status).toBe(200);
      const { jobId } = (await started.json()) as { jobId: string };
      const get = async (route: string, bearer = false) => {
        const headers: Record<string, string> = bearer ? { authorization: `Bearer ${target.key}` } : { 'x-api-key': target.key };
        const response = await fetch(`${target.url()}${route}`, { headers });
        return { status: response.status, body: (await response.json()) as { data?: unknown[]; error?: string; message?: string } };
      };
      const huge = '9007199254740991';
      const refused: [string, string, boolean][] = [
        [`/api/scrape/batch/${jobId}?page=${huge}`, 'page', false],
        [`/api/scrape/batch/${jobId}?page=2147483649&batchSize=1`, 'page', false],
        [`/api/scrape/batch/${jobId}?batchSize=${huge}`, 'batchSize', false],
        [`/v2/batch/scrape/${jobId}?skip=${huge}`, 'skip', true],
        [`/v1/batch/scrape/${jobId}?skip=2147483648`, 'skip', true],
        [`/v2/batch/scrape/${jobId}?limit=${huge}`, 'limit', true],
      ];
      for (const [route, field, bearer] of refused) {
        const answer = await get(route, bearer);
        expect(answer.status, route).toBe(400);
        expect(answer.body.error ?? answer.body.message, route).toMatch(new RegExp(`^${field} must be an integer from`));
      }
      const furthest = await get(`/api/scrape/batch/${jobId}?page=2147483648&batchSize=1`);
      expect(furthest.status).toBe(200);
      expect(furthest.body.data).toEqual([]);
      const skipped = await get(`/v2/batch/scrape/${jobId}?skip=2147483647`, true);
      expect(skipped.status).toBe(200);
      expect(skipped.body.data).toEqual([]);
    });

    it('per-key limits: of 20 starts at once, exactly the limit are accepted; cancelling frees a place', async () => {
      const limit = SERVER_DEFAULTS.maxActiveJobsPerKey;
      const starts = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const response = await post('/api/scrape', { url: site.at(`/held?limit${i}`), scrapeOptions: { timeout: 120_000 } }, target.limitedKey);
          return { status: response.status, body: (await response.json()) as { jobId?: string; message?: string } };
        }),
      );
      const accepted = starts.filter((s) => s.status === 200);
      try {
        expect(accepted).toHaveLength(limit);
        const refused = starts.filter((s) => s.status === 429);
        expect(refused).toHaveLength(20 - limit);
        expect(refused[0]!.body.message).toContain(`${limit} pending or running`);
        // Another key is not held back by this one.
        expect((await post('/api/scrape', { url: site.at('/product') }, target.otherKey)).status).toBe(200);
      } finally {
        for (const { body } of accepted) {
          const cancel = await fetch(`${target.url()}/api/scrape/${body.jobId}`, { method: 'DELETE', headers: { 'x-api-key': target.limitedKey } });
          expect(((await cancel.json()) as { status: string }).status).toBe('stopped');
        }
      }
      const again = await post('/api/scrape', { url: site.at('/product') }, target.limitedKey);
      expect(again.status).toBe(200);
    });
  });
}
