/**
 * The Firecrawl-compatible API of `webjobs serve` driven by Firecrawl's own
 * JavaScript SDK (@mendable/firecrawl-js: `Firecrawl` speaks v2,
 * `FirecrawlAppV1` v1), running every call its README shows for scrape, batch
 * scrape, crawl (waiting, paging, watching) and extract against fixture pages,
 * plus what the SDK does not show: refusals of unsupported fields, auth, plans
 * and the per-key limit, all in Firecrawl's envelope.
 */
import { Firecrawl, FirecrawlAppV1 } from '@mendable/firecrawl-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tempHome } from './helpers/cli.js';
import { startFakeAnthropic, toolUse, type FakeAnthropic } from './helpers/fakeAnthropic.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { pngSize } from './helpers/png.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { WebSocket as UndiciWebSocket } from 'undici';
import { VIEWPORT } from '../src/api/types.js';

// Node 22's own WebSocket calls onerror again, without end, when close() is called from onerror while it is still
// connecting, which the SDK's watcher does when the upgrade is refused (Maximum call stack size exceeded); undici 7's,
// which Node 24 ships, does not. The SDK takes the global class: on Node 22 it gets undici's.
if (Number(process.versions.node.split('.')[0]) === 22) Object.assign(globalThis, { WebSocket: UndiciWebSocket });

const KEYS = { scale: 'fc-scale-key-0123456789', free: 'fc-free-key-0123456789', busy: 'fc-busy-key-0123456789' };
const MAX_JOBS_PER_KEY = 2;

let site: FixtureServer;
let llm: FakeAnthropic;
let server: ServeProcess;
let app: Firecrawl;
let v1: FirecrawlAppV1;

/** A one-page PDF showing `text`, written out by hand (objects, cross-reference table, trailer). */
function onePagePdf(text: string): Buffer {
  const content = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const offset = pdf.length;
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

const page = (title: string, links = '') => html(`<article><h1>${title}</h1>${articleText(title.toLowerCase())}${links}</article>`, { title });

interface Answer {
  status: number;
  body: any;
}

/** A raw request, for what the SDK does not send (or turns into an exception). */
async function call(method: string, path: string, options: { auth?: string | null; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const auth = options.auth === undefined ? `Bearer ${KEYS.scale}` : options.auth;
  if (auth !== null) headers.authorization = auth;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${path}`, { method, headers, body: options.body !== undefined ? JSON.stringify(options.body) : undefined });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  llm = await startFakeAnthropic();
  const links = ['/p1', '/p2', '/p3'].map((p) => `<a href="${p}">${p}</a>`).join(' ');
  site = await startFixtureServer({
    '/': (_req, res) => sendHtml(res, page('Home', `<p>${links} <a href="/docs">docs</a></p>`)),
    '/p1': (_req, res) => sendHtml(res, page('Page one')),
    '/p2': (_req, res) => sendHtml(res, page('Page two')),
    '/p3': (_req, res) => sendHtml(res, page('Page three')),
    '/docs': (_req, res) => sendHtml(res, page('Docs', '<a href="/docs/intro">intro</a> <a href="/docs/setup">setup</a> <a href="/p1">out of docs</a>')),
    '/docs/intro': (_req, res) => sendHtml(res, page('Docs intro')),
    '/docs/setup': (_req, res) => sendHtml(res, page('Docs setup')),
    // Over 64 KiB of HTML: a watcher frame this long needs the WebSocket's 64-bit length.
    '/big': (_req, res) => sendHtml(res, html(`<article><h1>Big page</h1>${articleText('size', 500)}</article>`, { title: 'Big page' })),
    '/tall': (_req, res) => sendHtml(res, html(`<article style="height: 3000px"><h1>Tall page</h1>${articleText('tall')}</article>`, { title: 'Tall page' })),
    '/hang': () => new Promise(() => undefined),
    '/report.pdf': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(onePagePdf('Quarterly figures of the report'));
    },
    '/robots.txt': (_req, res) => {
      res.writeHead(404);
      res.end();
    },
  });
  server = await startServe({
    args: ['--allow-host', new URL(site.url).host, '--max-jobs-per-key', String(MAX_JOBS_PER_KEY), '--quiet'],
    env: {
      WEBJOBS_HOME: tempHome(),
      WEBJOBS_API_KEYS: `${KEYS.scale}:scale,${KEYS.free}:free,${KEYS.busy}:scale`,
      ANTHROPIC_API_KEY: 'sk-test-key',
      ANTHROPIC_BASE_URL: llm.url,
    },
  });
  app = new Firecrawl({ apiKey: KEYS.scale, apiUrl: server.url });
  v1 = new FirecrawlAppV1({ apiKey: KEYS.scale, apiUrl: server.url });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
  await llm?.close();
});

beforeEach(() => llm.reset());

const sources = (docs: { metadata?: Record<string, unknown> }[]) => docs.map((d) => String(d.metadata?.sourceURL)).sort();

describe('v2 SDK (Firecrawl)', () => {
  it('scrape with formats markdown and html, and with none (markdown)', async () => {
    const doc = await app.scrape(site.at('/p1'), { formats: ['markdown', 'html'] });
    expect(doc.markdown).toMatch(/^# Page one/);
    expect(doc.html).toContain('<h1>Page one</h1>');
    expect(doc.metadata).toMatchObject({ title: 'Page one', sourceURL: site.at('/p1'), statusCode: 200 });
    expect(doc.metadata?.scrapeId).toMatch(/^[0-9a-f-]{36}$/);

    const plain = await app.scrape(site.at('/p2'));
    expect(plain.markdown).toMatch(/^# Page two/);
    expect(plain.html).toBeUndefined();
  });

  it('crawl (the waiter) with limit and scrapeOptions', async () => {
    const crawl = await app.crawl(site.at('/'), { limit: 3, scrapeOptions: { formats: ['markdown', 'html'] }, pollInterval: 1 });
    expect(crawl.status).toBe('completed');
    expect(crawl.data).toHaveLength(3);
    expect(crawl.completed).toBe(3);
    for (const doc of crawl.data) {
      expect(doc.markdown).toMatch(/^# /);
      expect(doc.html).toContain('<h1>');
      expect(doc.metadata?.statusCode).toBe(200);
    }
    expect(sources(crawl.data)).toContain(site.at('/'));
  });

  it('startCrawl with excludePaths, then getCrawlStatus until it is done', async () => {
    const start = await app.startCrawl(site.at('/'), { excludePaths: ['p2', '/docs/**'], limit: 5 });
    expect(start.url).toBe(`${server.url}/v2/crawl/${start.id}`);
    let status = await app.getCrawlStatus(start.id);
    while (status.status === 'scraping') status = await app.getCrawlStatus(start.id);
    expect(status.status).toBe('completed');
    expect(sources(status.data)).toEqual([site.at('/'), site.at('/p1'), site.at('/p3')]);
  });

  it('keeps a crawl below the start path unless crawlEntireDomain, as Firecrawl does', async () => {
    const below = await app.crawl(site.at('/docs'), { limit: 5, pollInterval: 1 });
    expect(sources(below.data)).toEqual([site.at('/docs'), site.at('/docs/intro'), site.at('/docs/setup')]);
    const entire = await app.crawl(site.at('/docs'), { limit: 5, crawlEntireDomain: true, pollInterval: 1 });
    expect(sources(entire.data)).toContain(site.at('/p1'));
  });

  it('pages a status with next: the SDK follows it and gets every page once', async () => {
    const start = await app.startCrawl(site.at('/'), { limit: 6, sitemap: 'skip' });
    let status = await app.getCrawlStatus(start.id);
    while (status.status === 'scraping') status = await app.getCrawlStatus(start.id);
    const first = await call('GET', `/v2/crawl/${start.id}?limit=2`);
    expect(first.body).toMatchObject({ success: true, status: 'completed', completed: 6, total: 6 });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next).toBe(`${server.url}/v2/crawl/${start.id}?skip=2&limit=2`);
    // The SDK's own paging: it follows `next` from the first answer on.
    const paged = await app.getCrawlStatus(start.id, { autoPaginate: true });
    expect(sources(paged.data)).toEqual(sources(status.data));
    const last = await call('GET', `/v2/crawl/${start.id}?skip=5&limit=2`);
    expect(last.body.data).toHaveLength(1);
    expect(last.body.next).toBeUndefined();
    const between = await call('GET', `/v2/crawl/${start.id}?skip=1&limit=2`);
    expect(sources(between.body.data)).toEqual(sources(first.body.data.concat(status.data[2])).slice(1));
  });

  it('watcher: documents and done for a crawl and a batch', async () => {
    for (const [kind, started] of [
      ['crawl', await app.startCrawl(site.at('/'), { limit: 3 })],
      ['batch', await app.startBatchScrape([site.at('/p1'), site.at('/big')], { options: { formats: ['markdown', 'html', 'screenshot'] } })],
    ] as const) {
      // A poll interval of ten minutes: were the SDK polling instead of watching the WebSocket, this would time out.
      const watch = app.watcher(started.id, { kind, pollInterval: 600 });
      const docs: string[] = [];
      const htmlLengths: number[] = [];
      const screenshots: string[] = [];
      let done: { status: string } | undefined;
      let error: unknown;
      watch.on('document', (doc) => {
        docs.push(String(doc.metadata?.sourceURL));
        htmlLengths.push(doc.html?.length ?? 0);
        if (doc.screenshot) screenshots.push(doc.screenshot);
      });
      watch.on('done', (state) => (done = state));
      watch.on('error', (err) => (error = err));
      await watch.start();
      expect(error).toBeUndefined();
      expect(done?.status).toBe('completed');
      expect(docs).toHaveLength(kind === 'crawl' ? 3 : 2);
      if (kind === 'batch') {
        expect(Math.max(...htmlLengths)).toBeGreaterThan(65_536);
        expect(screenshots.sort()).toEqual([`${server.url}/api/files/${started.id}/screenshot-1.png`, `${server.url}/api/files/${started.id}/screenshot-2.png`]);
      }
    }
  });

  it('watcher with a wrong key ends with an error, the WebSocket refused', async () => {
    const started = await app.startCrawl(site.at('/p1'), { limit: 1 });
    const watch = new Firecrawl({ apiKey: 'fc-wrong-key', apiUrl: server.url }).watcher(started.id, { kind: 'crawl', pollInterval: 600 });
    let error: { error?: string } | undefined;
    watch.on('error', (err) => (error = err));
    await watch.start();
    expect(error?.error).toBe('WebSocket error');
    let status = await app.getCrawlStatus(started.id);
    while (status.status === 'scraping') status = await app.getCrawlStatus(started.id);
  });

  it('batchScrape (the waiter), startBatchScrape and getBatchScrapeStatus', async () => {
    const batch = await app.batchScrape([site.at('/p1'), site.at('/p2')], { options: { formats: ['markdown', 'html'] }, pollInterval: 1 });
    expect(batch.status).toBe('completed');
    expect(batch.data.map((d) => d.metadata?.title).sort()).toEqual(['Page one', 'Page two']);
    expect(batch.data[0]!.html).toContain('<h1>');

    const start = await app.startBatchScrape([site.at('/p3'), 'not a url'], { options: { formats: ['markdown'] } });
    expect(start.invalidURLs).toEqual(['not a url']);
    let status = await app.getBatchScrapeStatus(start.id);
    while (status.status === 'scraping') status = await app.getBatchScrapeStatus(start.id);
    expect(status).toMatchObject({ status: 'completed', completed: 1, total: 1 });
    expect(status.data[0]!.markdown).toMatch(/^# Page three/);
  });

  it('extract with a prompt and a Zod schema', async () => {
    llm.queue.push(toolUse({ title: 'Page one' }, { input_tokens: 300, output_tokens: 12 }));
    const schema = z.object({ title: z.string() });
    const result = await app.extract({ urls: [site.at('/p1')], prompt: 'Extract the page title', schema, pollInterval: 1 });
    expect(result).toMatchObject({ success: true, status: 'completed', data: { title: 'Page one' }, tokensUsed: 312 });
    const sent = llm.requests[0]!.body;
    expect(JSON.stringify(sent.messages)).toContain('Page one');
    expect(sent.tools[0].input_schema.properties.title.type).toBe('string');
  });

  it('scrape with the json format {type: "json", prompt, schema: Zod}: the document’s json, by serve’s model', async () => {
    llm.queue.push(toolUse({ title: 'Page one' }));
    const doc = await app.scrape(site.at('/p1'), { formats: ['markdown', { type: 'json', prompt: 'Extract the page title', schema: z.object({ title: z.string() }) }] });
    expect(doc.json).toEqual({ title: 'Page one' });
    expect(doc.markdown).toMatch(/^# Page one/);
    const sent = llm.requests[0]!.body;
    expect(JSON.stringify(sent.messages)).toContain('Extract the page title');
    expect(sent.tools[0].input_schema.properties.title.type).toBe('string');
  });

  it('extract with showSources (as the README shows) is refused by name: sources are not traced', async () => {
    await expect(
      app.extract({ urls: [site.at('/p1')], prompt: 'Extract the page title', schema: z.object({ title: z.string() }), showSources: true }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^showSources is not supported by webjobs serve/) });
    expect(llm.requests).toHaveLength(0);
  });

  it('sends headers to the page; User-Agent and Cookie become webjobs’ userAgent and cookies', async () => {
    const doc = await app.scrape(site.at('/p2'), { headers: { 'User-Agent': 'FirecrawlClient/1.0', Cookie: 'sid=abc123; theme=dark', 'X-Team': 'blue' } });
    expect(doc.markdown).toMatch(/^# Page two/);
    const got = site.received.filter((r) => r.path === '/p2').at(-1)!.headers;
    expect(got).toMatchObject({ 'user-agent': 'FirecrawlClient/1.0', cookie: 'sid=abc123; theme=dark', 'x-team': 'blue' });
  });

  it('a scrape whose client hangs up is cancelled', async () => {
    const hangUp = new AbortController();
    const request = fetch(`${server.url}/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.scale}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.at('/hang?scrape') }),
      signal: hangUp.signal,
    }).catch((err: Error) => err);
    const jobs = async () => (await (await fetch(`${server.url}/api/jobs`, { headers: { 'x-api-key': KEYS.scale } })).json()) as { url: string; status: string }[];
    const job = async () => (await jobs()).find((j) => j.url === site.at('/hang?scrape'));
    while ((await job())?.status !== 'running') await new Promise((r) => setTimeout(r, 100));
    hangUp.abort();
    expect(await request).toBeInstanceOf(Error);
    while ((await job())?.status === 'running') await new Promise((r) => setTimeout(r, 100));
    expect((await job())?.status).toBe('stopped');
  });

  it('map lists the site’s URLs; scrape gives rawHtml', async () => {
    const mapped = await app.map(site.at('/'));
    expect(mapped.links.map((link) => link.url)).toEqual(expect.arrayContaining([site.at('/p1'), site.at('/p2'), site.at('/p3'), site.at('/docs')]));
    const raw = await app.scrape(site.at('/p3'), { formats: ['rawHtml'] });
    expect(raw.rawHtml).toContain('<h1>Page three</h1>');
    expect(raw.markdown).toBeUndefined();
  });

  it('scrape and batchScrape with screenshot: a URL that gives the PNG to the same key as Bearer, to no other', async () => {
    const doc = await app.scrape(site.at('/p1'), { formats: ['markdown', 'screenshot'] });
    expect(doc.markdown).toMatch(/^# Page one/);
    expect(doc.screenshot).toBe(`${server.url}/api/files/${doc.metadata?.scrapeId}/screenshot-1.png`);
    const served = await fetch(doc.screenshot!, { headers: { authorization: `Bearer ${KEYS.scale}` } });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(pngSize(Buffer.from(await served.arrayBuffer()))).toEqual({ width: VIEWPORT.width, height: VIEWPORT.height });
    expect((await fetch(doc.screenshot!, { headers: { authorization: `Bearer ${KEYS.free}` } })).status).toBe(404);
    const anonymous = await fetch(doc.screenshot!);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: 'missing API key: send it in the x-api-key header or the Authorization header as Bearer KEY' });
    // The Bearer key is taken on the file route only: the rest of /api keeps its own header.
    expect((await fetch(`${server.url}/api/jobs`, { headers: { authorization: `Bearer ${KEYS.scale}` } })).status).toBe(401);

    const full = await app.scrape(site.at('/tall'), { formats: [{ type: 'screenshot', fullPage: true }] });
    expect(full.markdown).toBeUndefined();
    const tall = await fetch(full.screenshot!, { headers: { authorization: `Bearer ${KEYS.scale}` } });
    expect(pngSize(Buffer.from(await tall.arrayBuffer())).height).toBeGreaterThan(3000);

    const batch = await app.batchScrape([site.at('/p2')], { options: { formats: ['screenshot'] }, pollInterval: 1 });
    expect(batch.data[0]!.screenshot).toMatch(new RegExp(`^${server.url}/api/files/[0-9a-f-]{36}/screenshot-1\\.png$`));
    expect((await fetch(batch.data[0]!.screenshot!, { headers: { authorization: `Bearer ${KEYS.scale}` } })).status).toBe(200);
  });

  it('screenshot options webjobs cannot honour are refused by name', async () => {
    await expect(app.scrape(site.at('/p1'), { formats: [{ type: 'screenshot', quality: 80 }] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^formats\[\{type: "screenshot"\}\]\.quality is not supported by webjobs serve: screenshots are PNG/),
    });
    await expect(app.scrape(site.at('/p1'), { formats: [{ type: 'screenshot', fullPage: true, viewport: { width: 1280, height: 720 } }] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^formats\[\{type: "screenshot"\}\]\.viewport is not supported by webjobs serve: the viewport is fixed/),
    });
  });

  it('cancelCrawl stops a running crawl', async () => {
    const start = await app.startCrawl(site.at('/hang'), { limit: 2 });
    expect(await app.cancelCrawl(start.id)).toBe(true);
    expect((await app.getCrawlStatus(start.id)).status).toBe('cancelled');
  });
});

describe('v1 SDK (FirecrawlAppV1)', () => {
  it('scrapeUrl with formats', async () => {
    const doc = await v1.scrapeUrl(site.at('/p3'), { formats: ['markdown', 'html'] });
    expect(doc).toMatchObject({ success: true, markdown: expect.stringMatching(/^# Page three/), metadata: { title: 'Page three', statusCode: 200 } });
    expect((doc as { html?: string }).html).toContain('<h1>Page three</h1>');
  });

  it('scrapeUrl with screenshot and screenshot@fullPage: URLs of PNGs, the second of the whole page', async () => {
    const doc = (await v1.scrapeUrl(site.at('/tall'), { formats: ['screenshot'] })) as { success: boolean; screenshot?: string };
    expect(doc.screenshot).toMatch(new RegExp(`^${server.url}/api/files/[0-9a-f-]{36}/screenshot-1\\.png$`));
    const viewport = await fetch(doc.screenshot!, { headers: { authorization: `Bearer ${KEYS.scale}` } });
    expect(pngSize(Buffer.from(await viewport.arrayBuffer()))).toEqual({ width: VIEWPORT.width, height: VIEWPORT.height });
    const full = (await v1.scrapeUrl(site.at('/tall'), { formats: ['markdown', 'screenshot@fullPage'] })) as { markdown?: string; screenshot?: string };
    expect(full.markdown).toMatch(/^# Tall page/);
    const whole = await fetch(full.screenshot!, { headers: { authorization: `Bearer ${KEYS.scale}` } });
    expect(pngSize(Buffer.from(await whole.arrayBuffer())).height).toBeGreaterThan(3000);
  });

  it('crawlUrl (waits) and asyncCrawlUrl with checkCrawlStatus paging by limit and next', async () => {
    const crawl = await v1.crawlUrl(site.at('/'), { limit: 3 }, 1);
    expect(crawl).toMatchObject({ success: true, status: 'completed' });
    expect((crawl as { data: unknown[] }).data).toHaveLength(3);

    const started = await v1.asyncCrawlUrl(site.at('/'), { limit: 4, ignoreSitemap: true });
    const id = (started as { id: string }).id;
    let status = await v1.checkCrawlStatus(id);
    while ((status as { status: string }).status === 'scraping') status = await v1.checkCrawlStatus(id);
    const one = await v1.checkCrawlStatus(id, false, undefined, 0, 2);
    expect((one as { data: unknown[] }).data).toHaveLength(2);
    expect((one as { next?: string }).next).toBe(`${server.url}/v1/crawl/${id}?skip=2&limit=2`);
    // getAllData follows next until the end.
    const all = await v1.checkCrawlStatus(id, true, undefined, undefined, 2);
    expect(sources((all as { data: { metadata: Record<string, unknown> }[] }).data)).toEqual(sources((status as { data: { metadata: Record<string, unknown> }[] }).data));
    expect((all as { data: unknown[] }).data).toHaveLength(4);
  });

  it('batchScrapeUrls (polled at /v1/crawl/ID, as the SDK does)', async () => {
    const batch = await v1.batchScrapeUrls([site.at('/p1'), site.at('/p2')], { formats: ['markdown'] }, 1);
    expect(batch).toMatchObject({ success: true, status: 'completed' });
    expect(sources((batch as { data: { metadata: Record<string, unknown> }[] }).data)).toEqual([site.at('/p1'), site.at('/p2')]);
  });

  it('scrapeUrl with formats ["json"] and jsonOptions', async () => {
    llm.queue.push(toolUse({ heading: 'Page two' }));
    const doc = await v1.scrapeUrl(site.at('/p2'), { formats: ['json'], jsonOptions: { prompt: 'the heading', schema: { type: 'object', properties: { heading: { type: 'string' } }, required: ['heading'] } } });
    expect(doc).toMatchObject({ success: true, json: { heading: 'Page two' }, metadata: { title: 'Page two', statusCode: 200 } });
    expect((doc as { markdown?: string }).markdown).toBeUndefined();
  });

  it('extract with a JSON schema', async () => {
    llm.queue.push(toolUse({ heading: 'Page two' }));
    const result = await v1.extract([site.at('/p2')], { prompt: 'the heading', schema: { type: 'object', properties: { heading: { type: 'string' } }, required: ['heading'] } });
    expect(result).toMatchObject({ success: true, data: { heading: 'Page two' } });
  });

  it('mapUrl: the links as strings', async () => {
    const mapped = (await v1.mapUrl(site.at('/'), {})) as { success: boolean; links: string[] };
    expect(mapped.success).toBe(true);
    expect(mapped.links).toEqual(expect.arrayContaining([site.at('/p1'), site.at('/p2')]));
  });
});

describe('fields webjobs does not support are refused by name, never ignored', () => {
  const url = () => site.at('/p1');
  it.each([
    ['/v2/scrape', () => ({ url: url(), formats: ['summary'] }), /formats: "summary" is not supported by webjobs serve \(supported: markdown, html, links, rawHtml, screenshot, structuredData, changeTracking, json, chunks, screenshot@fullPage\)/],
    ['/v1/scrape', () => ({ url: url(), formats: ['screenshot', 'screenshot@fullPage'] }), /^formats: a screenshot may be asked for once/],
    ['/v2/scrape', () => ({ url: url(), formats: [{ type: 'screenshot', fullPage: 'yes' }] }), /^formats\[\{type: "screenshot"\}\]\.fullPage must be true or false/],
    ['/v2/crawl', () => ({ url: url(), scrapeOptions: { formats: [{ type: 'screenshot', quality: 50 }] } }), /^scrapeOptions\.formats\[\{type: "screenshot"\}\]\.quality is not supported/],
    ['/v2/scrape', () => ({ url: url(), formats: [{ type: 'json', prompt: 'x', temperature: 0 }] }), /^formats\[\{type: "json"\}\]\.temperature is not supported by webjobs serve: the model's temperature is not set/],
    ['/v2/scrape', () => ({ url: url(), actions: [{ type: 'tap', selector: 'a' }] }), /scrapeOptions\.actions\[0\]: unknown action type "tap"/],
    ['/v1/scrape', () => ({ url: url(), profile: { name: 'shop' } }), /^profile is not supported/],
    ['/v2/scrape', () => ({ url: url(), mobile: true }), /^mobile is not supported by webjobs serve: only false/],
    ['/v2/scrape', () => ({ url: url(), storeInCache: false }), /^storeInCache is not supported by webjobs serve/],
    ['/v2/map', () => ({ url: url(), includeSubdomains: true }), /^includeSubdomains is not supported by webjobs serve: only false/],
    ['/v2/scrape', () => ({ url: url(), proxy: 'stealth' }), /^proxy is not supported/],
    ['/v2/scrape', () => ({ url: url(), madeUp: 1 }), /^madeUp is not supported by webjobs serve: webjobs has no such option/],
    ['/v2/scrape', () => ({ url: url(), constructor: 1 }), /^constructor is not supported by webjobs serve: webjobs has no such option/],
    ['/v2/scrape', () => JSON.parse(`{"url": "${url()}", "headers": {"__proto__": {"x": "1"}}}`), /^request\.scrapeOptions\.headers: the key "__proto__" is not allowed/],
    ['/v2/crawl', () => JSON.parse(`{"url": "${url()}", "__proto__": {"limit": 1}}`), /^__proto__ is not supported by webjobs serve: webjobs has no such option/],
    ['/v2/crawl', () => ({ url: url(), prompt: 'blog posts' }), /^prompt is not supported/],
    ['/v2/crawl', () => ({ url: url(), maxDiscoveryDepth: 2 }), /^maxDiscoveryDepth is not supported by webjobs serve: only 0/],
    ['/v2/crawl', () => ({ url: url(), allowExternalLinks: true }), /^allowExternalLinks is not supported/],
    ['/v2/crawl', () => ({ url: url(), includePaths: ['^/blog/.*$'] }), /includePaths: "\^\/blog\/\.\*\$" is a regular expression/],
    ['/v2/crawl', () => ({ url: url(), scrapeOptions: { location: { country: 'DE' } } }), /^scrapeOptions\.location is not supported/],
    ['/v2/crawl', () => ({ url: url(), webhook: 'ftp://example.com/hook' }), /^request\.webhook: "ftp:\/\/example\.com\/hook" is not an http or https URL/],
    ['/v2/batch/scrape', () => ({ urls: [url()], webhook: { url: 'https://example.com/hook', events: ['page', 'done'] } }), /^request\.webhook\.events: unknown event "done"/],
    ['/v2/scrape', () => ({ url: url(), webhook: 'https://example.com/hook' }), /^webhook is not supported by webjobs serve: a scrape answers when done/],
    ['/v1/crawl', () => ({ url: url(), maxDepth: 2 }), /^maxDepth is not supported/],
    ['/v2/batch/scrape', () => ({ urls: [url()], appendToId: '3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d' }), /^appendToId is not supported/],
    ['/v2/extract', () => ({ urls: [url()], prompt: 'x', enableWebSearch: true }), /^enableWebSearch is not supported/],
    ['/v2/extract', () => ({ urls: [`${site.url}/*`], prompt: 'x' }), /wildcard URLs/],
    ['/v1/scrape', () => ({ url: url(), parsePDF: false }), /^parsePDF is not supported by webjobs serve: only true \(a PDF is always read into Markdown; the file itself is not returned\)$/],
    ['/v2/scrape', () => ({ url: url(), parsers: [] }), /^parsers is not supported by webjobs serve: only \["pdf"\] \(a PDF is always read into Markdown/],
    ['/v2/scrape', () => ({ url: url(), parsers: [{ type: 'pdf', mode: 'ocr' }] }), /^parsers\[\{type: "pdf"\}\]\.mode is not supported by webjobs serve: only "auto" or "fast" \(.*there is no OCR\)$/],
    ['/v2/scrape', () => ({ url: url(), parsers: [{ type: 'pdf', maxPages: 2 }] }), /^parsers\[\{type: "pdf"\}\]\.maxPages is not supported by webjobs serve: every page of a PDF is read/],
    ['/v2/scrape', () => ({ url: url(), parsers: ['pdf', 'image'] }), /^parsers: "image" is not supported by webjobs serve: images are not read \(there is no OCR\)$/],
    ['/v1/scrape', () => ({ url: url(), fastMode: true }), /^fastMode is not supported by webjobs serve: only false \(each page is read over HTTP when that is enough and rendered in a browser when it needs one/],
  ])('%s %j', async (path, body, message) => {
    const answer = await call('POST', path, { body: body() });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ success: false, error: expect.stringMatching(message) });
  });

  it('checks mapped fields with the same validation as /api, naming both names', async () => {
    const answer = await call('POST', '/v2/crawl', { body: { url: site.at('/'), limit: 500 } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('request.maxPages must be between 1 and 100 (got 500) (webjobs names: limit is maxPages)');
    const scheme = await call('POST', '/v2/scrape', { body: { url: 'example.com/page' } });
    expect(scheme.body).toEqual({ success: false, error: 'url: "example.com/page" has no http:// or https://; did you mean https://example.com/page?' });
  });

  it('parsers: ["pdf"] (v2) and parsePDF: true (v1) ask for what webjobs does with a PDF: its text as Markdown', async () => {
    const asks: [string, Record<string, unknown>][] = [
      ['/v2/scrape', { parsers: ['pdf'] }],
      ['/v2/scrape', { parsers: [{ type: 'pdf', mode: 'fast' }] }],
      ['/v1/scrape', { parsePDF: true }],
    ];
    for (const [path, fields] of asks) {
      const answer = await call('POST', path, { body: { url: site.at('/report.pdf'), ...fields } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.data.markdown).toContain('Quarterly figures of the report');
    }
  });

  it('accepts the labels the SDK sends (origin) and values that ask for what webjobs does', async () => {
    const answer = await call('POST', '/v2/scrape', { body: { url: site.at('/p1'), origin: 'js-sdk@4.42.0', mobile: false, maxAge: 0, onlyMainContent: true } });
    expect(answer.status).toBe(200);
    expect(answer.body.data.markdown).toMatch(/^# Page one/);
  });
});

describe('auth, plans and limits in the Firecrawl envelope', () => {
  it('401 without a key, with a wrong one, and with the /api header instead of Bearer', async () => {
    const none = await call('POST', '/v2/scrape', { auth: null, body: { url: site.at('/p1') } });
    expect(none).toEqual({ status: 401, body: { success: false, error: 'missing API key: send it in the Authorization header as Bearer KEY' } });
    const wrong = await call('GET', '/v1/crawl/3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d', { auth: 'Bearer fc-nope' });
    expect(wrong).toEqual({ status: 401, body: { success: false, error: 'invalid API key' } });
    const response = await fetch(`${server.url}/v2/crawl/3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d`, { headers: { 'x-api-key': KEYS.scale } });
    expect(response.status).toBe(401);
    await expect(new Firecrawl({ apiKey: 'fc-nope', apiUrl: server.url }).scrape(site.at('/p1'))).rejects.toMatchObject({ status: 401 });
  });

  it('413 for a body over 1 MiB and 400 for one that is not JSON, in the envelope', async () => {
    const post = (body: string) =>
      fetch(`${server.url}/v2/batch/scrape`, { method: 'POST', headers: { authorization: `Bearer ${KEYS.scale}`, 'content-type': 'application/json' }, body });
    const large = await post(JSON.stringify({ urls: Array.from({ length: 1100 }, (_, i) => `${site.url}/${'x'.repeat(1000)}${i}`) }));
    expect(large.status).toBe(413);
    expect(await large.json()).toEqual({ success: false, error: 'request body too large: the limit is 1,048,576 bytes' });
    const broken = await post('{"urls": [');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ success: false, error: expect.stringMatching(/^the request body is not valid JSON/) });
  });

  it('402 for a batch scrape below the scale plan, as on /api', async () => {
    const answer = await call('POST', '/v2/batch/scrape', { auth: `Bearer ${KEYS.free}`, body: { urls: [site.at('/p1')] } });
    expect(answer.status).toBe(402);
    expect(answer.body).toEqual({ success: false, error: expect.stringMatching(/scale plan or higher.*free plan/) });
  });

  it('404 for another key’s job, an unknown id and an unknown endpoint', async () => {
    const start = await call('POST', '/v2/crawl', { body: { url: site.at('/p1'), limit: 1 } });
    expect(start.status).toBe(200);
    const other = await call('GET', `/v2/crawl/${start.body.id}`, { auth: `Bearer ${KEYS.free}` });
    expect(other.status).toBe(404);
    expect(other.body.success).toBe(false);
    expect((await call('GET', '/v2/extract/3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d')).status).toBe(404);
    const unknown = await call('POST', '/v2/deep-research', { body: { query: 'x' } });
    expect(unknown).toEqual({ status: 404, body: { success: false, error: expect.stringMatching(/^no such endpoint: POST \/v2\/deep-research .*POST search/) } });
  });

  it('429 once a key has its limit of active jobs, counting /api and Firecrawl jobs together', async () => {
    const key = `Bearer ${KEYS.busy}`;
    const hanging = await call('POST', '/v2/crawl', { auth: key, body: { url: site.at('/hang'), limit: 1 } });
    const viaApi = await fetch(`${server.url}/api/crawl`, {
      method: 'POST',
      headers: { 'x-api-key': KEYS.busy, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.at('/hang'), maxPages: 1 }),
    });
    expect([hanging.status, viaApi.status]).toEqual([200, 200]);
    const third = await fetch(`${server.url}/v2/crawl`, {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.at('/p1') }),
    });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(await third.json()).toEqual({ success: false, error: expect.stringContaining('too many jobs at once') });
    const { jobId } = (await viaApi.json()) as { jobId: string };
    expect((await call('DELETE', `/v2/crawl/${hanging.body.id}`, { auth: key })).body).toEqual({ success: true, status: 'cancelled' });
    await fetch(`${server.url}/api/crawl/${jobId}`, { method: 'DELETE', headers: { 'x-api-key': KEYS.busy } });
  });
});

describe('stopping serve', () => {
  it("tells a watch why it ends: an error message, then a close frame 'going away'", async () => {
    const home = tempHome();
    const options = { args: ['--allow-host', new URL(site.url).host, '--quiet'], env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEYS.scale}:scale` } };
    const own = await startServe(options);
    const started = await new Firecrawl({ apiKey: KEYS.scale, apiUrl: own.url }).startCrawl(site.at('/hang?told'), { limit: 1, scrapeOptions: { timeout: 20_000 } });
    // This runtime's own WebSocket (on Node 22 the one set above), as a client without the SDK's polling fallback.
    const socket = new globalThis.WebSocket(`${own.url.replace('http', 'ws')}/v2/crawl/${started.id}`, KEYS.scale);
    const messages: string[] = [];
    const closed = new Promise<number>((resolve) => socket.addEventListener('close', (event) => resolve(event.code)));
    await new Promise<void>((resolve) => socket.addEventListener('message', (event) => (messages.push(String(event.data)), resolve())));
    expect(await own.stop()).toBe(0);
    expect(await closed).toBe(1001);
    expect(JSON.parse(messages.at(-1)!)).toEqual({ type: 'error', error: 'webjobs serve is shutting down; the job was stopped with it' });
  });

  it('closes open watches at once: the watched job is failed by the shutdown, not waited for', async () => {
    const home = tempHome();
    const options = { args: ['--allow-host', new URL(site.url).host, '--quiet'], env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEYS.scale}:scale` } };
    const own = await startServe(options);
    const client = new Firecrawl({ apiKey: KEYS.scale, apiUrl: own.url });
    // The page never answers; its 20 s timeout would end the crawl, as completed, were the shutdown to wait for it.
    const started = await client.startCrawl(site.at('/hang?watched'), { limit: 1, scrapeOptions: { timeout: 20_000 } });
    const watch = client.watcher(started.id, { kind: 'crawl', pollInterval: 600 });
    let snapshots = 0;
    watch.on('snapshot', () => snapshots++);
    const watching = watch.start();
    while (snapshots === 0) await new Promise((r) => setTimeout(r, 50));
    expect(await own.stop()).toBe(0);
    await watching;
    const again = await startServe(options);
    try {
      const status = await new Firecrawl({ apiKey: KEYS.scale, apiUrl: again.url }).getCrawlStatus(started.id);
      expect(status.status).toBe('failed');
    } finally {
      await again.stop();
    }
  });
});
