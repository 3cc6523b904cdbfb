/**
 * `webjobs mcp` end to end: the MCP SDK's own Client spawns the built CLI over
 * stdio (StdioClientTransport) and calls every tool against fixture pages on
 * 127.0.0.1, with a real Chromium; extract talks to the fake Messages API; one
 * session runs its jobs on a real `webjobs serve` with --remote.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { FORMATS } from '../src/api/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/api/limits.js';
import { RESULT_CHARS } from '../src/mcp/results.js';
import { BIN, runCli, tempHome } from './helpers/cli.js';
import { startFakeAnthropic, toolUse, messageText, type FakeAnthropic } from './helpers/fakeAnthropic.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { descendants, startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'mcp-test-key-0123456789';
const home = tempHome();
let site: FixtureServer;
/** Another server on 127.0.0.1, playing this machine's private network: guarded sessions must never reach it. */
let internal: FixtureServer;
let llm: FakeAnthropic;

/** Requests to /slow/* wait until released; `arrived` resolves when the first of a name comes in. */
const slow = new Map<string, { arrived: Promise<void>; came: () => void }>();
let releaseSlow!: () => void;
const released = new Promise<void>((resolve) => (releaseSlow = resolve));
function slowPage(name: string) {
  if (!slow.has(name)) {
    let came!: () => void;
    const arrived = new Promise<void>((resolve) => (came = resolve));
    slow.set(name, { arrived, came });
  }
  return slow.get(name)!;
}

/** About 3.5 RESULT_CHARS of Markdown in one article, in lines a window can be cut at. */
const longParagraphs = Array.from(
  { length: 320 },
  (_, i) => `<p>Long paragraph ${i + 1}: the river bends past the mill and the orchard, then on towards the sea, where the ferry waits for the evening tide.</p>`,
).join('\n');

const product = { name: 'Aurora Teapot', price: 49.9 };

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', WEBJOBS_HOME: home, ANTHROPIC_API_KEY: 'sk-test-key', ANTHROPIC_BASE_URL: llm.url, ...extra } as NodeJS.ProcessEnv;
}

/**
 * The SDK's client (1.x) hands a progress notification to its handler a microtask
 * late, while it settles a response at once: a notification that arrives in the
 * same read as the response finds its token retired, is dropped, and reported to
 * onerror (modelcontextprotocol/typescript-sdk#2580, "a race servers cannot
 * avoid"). Those reports are set aside; anything else on the wire is an error.
 */
const lateProgress = (err: Error) => err.message.startsWith('Received a progress notification for an unknown token');

interface Session {
  client: Client;
  /** Errors the client saw on the wire: anything on stdout that is not a protocol message lands here. */
  wireErrors: Error[];
  stderr(): string;
}

const sessions: Session[] = [];

async function connect(args: string[] = []): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env: env() as Record<string, string>, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'webjobs-test', version: '1.0.0' });
  const wireErrors: Error[] = [];
  client.onerror = (err) => {
    if (!lateProgress(err)) wireErrors.push(err);
  };
  await client.connect(transport);
  const session = { client, wireErrors, stderr: () => stderr };
  sessions.push(session);
  return session;
}

async function call(session: Session, name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void): Promise<CallToolResult> {
  return (await session.client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined)) as CallToolResult;
}

const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const structured = (result: CallToolResult): any => result.structuredContent;

let local: Session;

/**
 * The fixture site is on 127.0.0.1 too: sessions that read it lift the address guard for its host:port
 * (and port 1, where a test meets a port Chromium refuses), not for the rest of 127.0.0.1.
 */
const allowSite = () => ['--allow-host', `${new URL(site.url).host},127.0.0.1:1`];

beforeAll(async () => {
  llm = await startFakeAnthropic();
  internal = await startFixtureServer({ '/secret': (_req, res) => sendHtml(res, html(`<h1>Internal secret</h1>${articleText('secrets', 3)}`)) });
  site = await startFixtureServer({
    '/to-internal': (_req, res) => {
      res.writeHead(302, { location: internal.at('/secret') });
      res.end();
    },
    '/embeds-internal': (_req, res) =>
      sendHtml(res, html(`<main><h1>Embeds</h1>${articleText('embeds', 3)}<iframe src="${internal.at('/secret')}"></iframe></main>`)),
    '/long': (_req, res) => sendHtml(res, html(`<article><h1>The long river</h1>${longParagraphs}</article>`, { title: 'The long river' })),
    '/product': (_req, res) =>
      sendHtml(res, html(`<main><h1>Aurora Teapot</h1><p>A cast-iron teapot. Price: 49.90 EUR</p>${articleText('teapots', 3)}</main>`, { title: 'Aurora Teapot' })),
    '/kettle': (_req, res) =>
      sendHtml(
        res,
        html(
          `<main itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Kettle K-200</h1>
           <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="49.00">$49</span></div>${articleText('kettles', 3)}</main>`,
          { title: 'Kettle' },
        ),
      ),
    '/site/': (_req, res) =>
      sendHtml(res, html(`<main><h1>Site home</h1><p><a href="/site/a">A</a> <a href="/site/b">B</a></p>${articleText('home', 3)}</main>`, { title: 'Home' })),
    '/site/a': (_req, res) => sendHtml(res, html(`<main><h1>Page A</h1><p><a href="/site/">home</a></p>${articleText('apples', 3)}</main>`, { title: 'A' })),
    '/site/b': (_req, res) => sendHtml(res, html(`<main><h1>Page B</h1><p><a href="/site/">home</a></p>${articleText('bees', 3)}</main>`, { title: 'B' })),
  }, async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const slowMatch = /^\/slow\/(\w+)$/.exec(path);
    if (slowMatch) {
      slowPage(slowMatch[1]!).came();
      await released;
      return sendHtml(res, html(`<main><h1>Slow ${slowMatch[1]}</h1>${articleText('waiting', 3)}</main>`));
    }
    const page = /^\/p(\d+)$/.exec(path);
    if (page) return sendHtml(res, html(`<main><h1>Page ${page[1]}</h1>${articleText(`topic ${page[1]}`, 3)}</main>`, { title: `Page ${page[1]}` }));
    sendHtml(res, html('<h1>Not found</h1>'), 404);
  });
  local = await connect(allowSite());
});

afterAll(async () => {
  releaseSlow();
  for (const session of sessions) await session.client.close().catch(() => undefined);
  await site?.close();
  await internal?.close();
  await llm?.close();
});

describe('webjobs mcp (local)', () => {
  it('lists the tools, with input schemas carrying our limits and descriptions saying when to use each', async () => {
    const { tools } = await local.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['scrape', 'batch_scrape', 'crawl', 'map', 'search', 'extract', 'job_status', 'job_result']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const props = (name: string): any => byName[name]!.inputSchema.properties;
    expect(props('scrape').scrapeOptions.properties.timeout.maximum).toBe(LIMITS.maxTimeoutMs);
    expect(props('scrape').scrapeOptions.properties.formats.items.enum).toEqual([...FORMATS]);
    // Page actions and the profile are scrape arguments too (issue 53).
    expect(props('scrape').scrapeOptions.properties.actions.maxItems).toBe(50);
    expect(props('scrape').scrapeOptions.properties.actions.items.properties.type.enum).toContain('executeJavascript');
    expect(props('scrape').scrapeOptions.properties.profile.required).toEqual(['name']);
    expect(props('batch_scrape').urls.maxItems).toBe(LIMITS.maxBatchUrls);
    expect(props('crawl').maxPages.maximum).toBe(LIMITS.maxLocalCrawlPages);
    expect(props('extract').urls.maxItems).toBe(LIMITS.maxExtractUrls);
    expect(byName.scrape!.inputSchema.required).toEqual(['url']);
    for (const tool of tools) expect(tool.description!.length).toBeGreaterThan(60);
    expect(byName.scrape!.description).toContain('batch_scrape');
    expect(byName.job_result!.description).toContain(RESULT_CHARS.toLocaleString('en-US'));
  });

  it('scrape: the page as Markdown text, the record without the page as structured content (content sent once)', async () => {
    const result = await call(local, 'scrape', { url: site.at('/p1') });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('# Page 1');
    expect(textOf(result)).toContain('Paragraph 1 about topic 1');
    expect(textOf(result)).toContain('Paragraph 3 about topic 1');
    const record = structured(result);
    expect(record).toMatchObject({ kind: 'scrape', status: 'completed', data: { metadata: { title: 'Page 1' } } });
    expect(record.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(record.data.markdown).toBeUndefined();
    expect(JSON.stringify(record)).not.toContain('Paragraph 1 about topic 1');
    expect(record.nextCursor).toBeUndefined();
  });

  it('scrape with structuredData: the items whole in the structured content, as JSON in the text; extract with selectors, no model', async () => {
    const result = await call(local, 'scrape', { url: site.at('/kettle'), scrapeOptions: { formats: ['markdown', 'structuredData'] } });
    expect(result.isError).toBeFalsy();
    const product = { '@context': 'https://schema.org', '@type': 'Product', name: 'Kettle K-200', offers: { '@type': 'Offer', price: '49.00' } };
    expect(structured(result).data.structuredData).toBeUndefined();
    expect(textOf(result)).toContain('==> structuredData <==');
    expect(textOf(result)).toContain(JSON.stringify([product], null, 2));
    const selectors = { baseSelector: 'main a', fields: [{ name: 'text', type: 'text' }, { name: 'href', type: 'attribute', attribute: 'href' }] };
    const links = await call(local, 'extract', { urls: [site.at('/site/')], selectors });
    expect(links.isError).toBeFalsy();
    expect(structured(links).data).toEqual([{ text: 'A', href: '/site/a' }, { text: 'B', href: '/site/b' }]);
  });

  it('batch_scrape: progress notifications (pages done of total), pages in the order given', async () => {
    const progress: Progress[] = [];
    const urls = [site.at('/p1'), site.at('/p2'), site.at('/p3')];
    const result = await call(local, 'batch_scrape', { urls, scrapeOptions: { formats: ['markdown', 'links'] } }, (p) => progress.push(p));
    expect(result.isError).toBeFalsy();
    // The last notifications may be lost to the client: see lateProgress.
    expect(progress.length).toBeGreaterThanOrEqual(1);
    for (const p of progress) expect(p).toMatchObject({ total: 3, message: `batch job ${structured(result).jobId}: ${p.progress} of 3 pages done` });
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    expect(progress.at(-1)!.progress).toBeLessThanOrEqual(3);
    const record = structured(result);
    expect(record).toMatchObject({ kind: 'batch', status: 'completed', totalScrapedPages: 3 });
    expect(record.data.map((e: { url: string }) => e.url)).toEqual(urls);
    expect(record.data[1].markdown).toBeUndefined();
    expect(textOf(result)).toContain('topic 2');
    expect(textOf(result)).toMatch(/## 1\. Page 1\n/);
    expect(textOf(result)).toContain('==> links <==');
  });

  it('crawl: the pages of the site the start page leads to', async () => {
    const progress: Progress[] = [];
    const result = await call(local, 'crawl', { url: site.at('/site/'), maxPages: 3 }, (p) => progress.push(p));
    expect(result.isError).toBeFalsy();
    const record = structured(result);
    expect(record).toMatchObject({ kind: 'crawl', status: 'completed', totalCrawledPages: 3 });
    expect(record.data.map((e: { url: string }) => e.url).sort()).toEqual([site.at('/site/'), site.at('/site/a'), site.at('/site/b')]);
    expect(textOf(result)).toContain('# Page B');
    // The start page is done while the pages it leads to are still loading: at least that is reported.
    expect(progress.some((p) => p.progress >= 1)).toBe(true);
    for (const p of progress) expect(p).toMatchObject({ total: 3, message: expect.stringContaining('of at most 3 pages done') });
  });

  it("map: the site's URLs one a line, without a job; search narrows them", async () => {
    const all = await call(local, 'map', { url: site.at('/site/') });
    expect(all.isError).toBeFalsy();
    expect(textOf(all).split('\n').sort()).toEqual([site.at('/site/'), site.at('/site/a'), site.at('/site/b')]);
    expect(structured(all)).toMatchObject({ total: 3 });
    const some = await call(local, 'map', { url: site.at('/site/'), search: 'site/b' });
    expect(textOf(some)).toBe(site.at('/site/b'));
    const refused = await call(local, 'map', { url: site.at('/site/'), depth: 9 });
    expect(refused.isError).toBe(true);
  });

  it('extract: the data the language model returned, from the page text it was sent', async () => {
    llm.reset();
    llm.queue.push(toolUse(product));
    const result = await call(local, 'extract', {
      urls: [site.at('/product')],
      schema: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name', 'price'] },
    });
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toMatchObject({ kind: 'extract', status: 'completed', data: product });
    expect(textOf(result)).toContain('"name": "Aurora Teapot"');
    expect(messageText(llm.requests[0]!)).toContain('cast-iron teapot');
    expect(llm.problems).toEqual([]);
  });

  it('pages a large result: windows of at most the cap, a cursor to read on, nothing lost or repeated', async () => {
    const urls = [site.at('/long'), site.at('/p4'), site.at('/long')];
    const first = await call(local, 'batch_scrape', { urls });
    const jobId = structured(first).jobId as string;
    const full = JSON.parse((await runCli(['result', jobId], { env: env() })).stdout) as { data: { markdown: string }[] };
    expect(full.data[0]!.markdown.length).toBeGreaterThan(RESULT_CHARS * 2);
    const read = full.data.map(() => '');
    let result = first;
    let windows = 0;
    for (;;) {
      windows++;
      expect(result.isError).toBeFalsy();
      expect(textOf(result).length).toBeLessThanOrEqual(RESULT_CHARS + 1_000);
      // Each entry's content is in the text once; the structured content says which characters of it the window shows.
      for (const entry of structured(result).data as { index: number; chars?: [number, number, number] }[]) {
        const markdown = full.data[entry.index]!.markdown;
        const [from, to] = entry.chars ?? [0, markdown.length];
        expect(from).toBe(read[entry.index]!.length);
        expect(textOf(result)).toContain(markdown.slice(from, to));
        read[entry.index] += markdown.slice(from, to);
      }
      const cursor = structured(result).nextCursor as string | undefined;
      if (!cursor) break;
      expect(textOf(result)).toContain(cursor);
      result = await call(local, 'job_result', { jobId, cursor });
    }
    expect(windows).toBeGreaterThanOrEqual(Math.ceil(full.data.reduce((sum, e) => sum + e.markdown.length, 0) / RESULT_CHARS));
    expect(read).toEqual(full.data.map((e) => e.markdown));

    const other = await call(local, 'job_result', { jobId: '3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d', cursor: 'bm90IGEgY3Vyc29y' });
    expect(other.isError).toBe(true);
    const wrong = await call(local, 'job_result', { jobId, cursor: 'bm90IGEgY3Vyc29y' });
    expect(wrong).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('cursor is not one job_result gave') }] });
  });

  it('job_status and job_result read a job started with wait: false', async () => {
    const startedJob = await call(local, 'scrape', { url: site.at('/p5'), wait: false });
    const jobId = structured(startedJob).jobId as string;
    expect(textOf(startedJob)).toContain(`Started scrape job ${jobId}`);
    let status: CallToolResult;
    do status = await call(local, 'job_status', { jobId });
    while (!['completed', 'failed', 'stopped'].includes(structured(status).status));
    expect(structured(status)).toEqual({ jobId, kind: 'scrape', status: 'completed' });
    const result = await call(local, 'job_result', { jobId });
    expect(textOf(result)).toContain('# Page 5');
  });

  it('errors are tool errors with our one-line messages; bad arguments are refused by the schema; the server goes on', async () => {
    const noScheme = await call(local, 'scrape', { url: 'example.com/page' });
    expect(noScheme).toMatchObject({ isError: true, content: [{ text: 'url: "example.com/page" has no http:// or https://; did you mean https://example.com/page?' }] });
    const tooLong = await call(local, 'scrape', { url: site.at('/p1'), scrapeOptions: { timeout: LIMITS.maxTimeoutMs + 1 } });
    expect(tooLong).toMatchObject({ isError: true, content: [{ text: `invalid arguments: scrapeOptions.timeout must be <= ${LIMITS.maxTimeoutMs}` }] });
    const unknown = await call(local, 'scrape', { url: site.at('/p1'), format: 'html' });
    expect(textOf(unknown)).toBe('invalid arguments: unknown field "format" (allowed: url, scrapeOptions, sessionOptions, wait, maxChars, maxTokens)');
    const missing = await call(local, 'batch_scrape', {});
    expect(textOf(missing)).toBe('invalid arguments: urls is required');
    const badFormat = await call(local, 'scrape', { url: site.at('/p1'), scrapeOptions: { formats: ['pdf'] } });
    expect(textOf(badFormat)).toBe(`invalid arguments: scrapeOptions.formats.0 must be one of ${FORMATS.join(', ')}`);
    const noPrompt = await call(local, 'extract', { urls: [site.at('/product')] });
    expect(noPrompt).toMatchObject({ isError: true, content: [{ text: 'extract needs a schema, a prompt, or both' }] });
    const nobody = await call(local, 'job_status', { jobId: '3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d' });
    expect(nobody).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('No job with id 3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d') }] });
    const refused = await call(local, 'scrape', { url: 'http://127.0.0.1:1/closed' });
    expect(refused).toMatchObject({ isError: true, structuredContent: { kind: 'scrape', status: 'failed' } });
    // Read over HTTP through the address guard's egress proxy, as in serve: "bad port" (fetch's own list); Chromium says ERR_UNSAFE_PORT.
    expect(textOf(refused)).toMatch(/^scrape job [0-9a-f-]{36} failed: .*(ERR_UNSAFE_PORT|bad port)/);
    const notAnId = await call(local, 'job_result', { jobId: 'latest' });
    expect(textOf(notAnId)).toBe('"latest" is not a job id (job ids look like 3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d)');
    const noTool = await call(local, 'screenshot', {});
    expect(textOf(noTool)).toContain('unknown tool "screenshot"');
    for (const result of [noScheme, tooLong, unknown, missing, badFormat, noPrompt, nobody, refused, notAnId, noTool]) expect(textOf(result)).not.toContain('\n');
    expect((await call(local, 'scrape', { url: site.at('/p2') })).isError).toBeFalsy();
  });

  it('an MCP cancellation stops the job (state stopped, the pages done kept)', async () => {
    const controller = new AbortController();
    let jobId: string | undefined;
    const urls = [site.at('/p6'), site.at('/slow/cancel'), site.at('/slow/cancel2')];
    const running = local.client.callTool({ name: 'batch_scrape', arguments: { urls, concurrency: 1 } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        jobId ??= /job ([0-9a-f-]{36})/.exec(p.message ?? '')?.[1];
      },
    });
    await slowPage('cancel').arrived;
    controller.abort('the user changed their mind');
    await expect(running).rejects.toThrow();
    expect(jobId).toBeDefined();
    let status: CallToolResult;
    do status = await call(local, 'job_status', { jobId: jobId! });
    while (!['completed', 'failed', 'stopped'].includes(structured(status).status));
    expect(structured(status)).toMatchObject({ kind: 'batch', status: 'stopped' });
    const kept = structured(await call(local, 'job_result', { jobId: jobId! }));
    expect(kept.data[0]).toMatchObject({ url: urls[0], status: 'completed' });
    expect(kept.data[2]).toMatchObject({ url: urls[2], status: 'pending' });
    expect(site.requests).not.toContain('GET /slow/cancel2');
  });

  it('writes nothing but protocol messages on stdout', () => {
    expect(local.wireErrors.map((e) => e.message)).toEqual([]);
  });
});

/** Running, that is: neither gone nor a zombie (an exited process its new parent has not reaped yet). */
function running(pid: number): boolean {
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim().startsWith('Z');
  } catch {
    return false;
  }
}

/**
 * Chromium's helpers end a moment after its main process, when they see it gone:
 * polls until none of `pids` runs, giving up after a generous limit so that a
 * failure names the survivors instead of hanging.
 */
async function survivors(pids: number[], limitMs = 30_000): Promise<number[]> {
  const until = Date.now() + limitMs;
  for (;;) {
    const left = pids.filter(running);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('webjobs mcp: the client goes away', () => {
  it('stdin closing cancels the running jobs, closes the browser, and the server exits 0', async () => {
    // Its own TMPDIR: the browser's profile folder goes there, and must be gone after.
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'webjobs-mcp-'));
    const child = spawn(process.execPath, [BIN, 'mcp', ...allowSite()], { env: env({ TMPDIR: tmp }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    const waiting = new Map<number, (message: { result?: unknown }) => void>();
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      for (const line of stdout.split('\n').slice(0, -1)) {
        const message = JSON.parse(line);
        waiting.get(message.id)?.(message);
      }
      stdout = stdout.slice(stdout.lastIndexOf('\n') + 1);
    });
    const lines: string[] = [];
    child.stdout.on('data', (chunk) => lines.push(String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const request = (id: number, method: string, params: unknown) =>
      new Promise<{ result?: unknown }>((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    await request(1, 'initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const started = (await request(2, 'tools/call', { name: 'batch_scrape', arguments: { urls: [site.at('/slow/gone')], scrapeOptions: { engine: 'browser' }, wait: false } })) as {
      result: { structuredContent: { jobId: string } };
    };
    const jobId = started.result.structuredContent.jobId;
    await slowPage('gone').arrived;
    const browser = descendants(child.pid!);
    expect(browser.length).toBeGreaterThan(0);
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(await survivors(browser)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
    rmSync(tmp, { recursive: true, force: true });
    for (const line of lines.join('').split('\n').filter((l) => l !== '')) expect(JSON.parse(line).jsonrpc).toBe('2.0');
    const status = await runCli(['status', jobId, '--json'], { env: env() });
    expect(JSON.parse(status.stdout).status).toBe('stopped');
  });
});

describe('webjobs mcp on the command line', () => {
  it('--help shows the client configuration and examples; a bad --remote is a one-line usage error with nothing on stdout', async () => {
    const help = await runCli(['mcp', '--help'], { env: env() });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('{"mcpServers": {"webjobs": {"command": "webjobs", "args": ["mcp"]}}}');
    expect(help.stdout).toContain('Examples:');
    // Every tool the server lists is named, in the same order.
    const named = /Tools: ([^.]+)\./.exec(help.stdout)?.[1]?.split(/,\s+/);
    expect(named).toEqual((await local.client.listTools()).tools.map((t) => t.name));
    const bad = await runCli(['mcp', '--remote', 'ftp://jobs.example.com'], { env: env() });
    expect(bad).toMatchObject({ code: 2, stdout: '', stderr: 'webjobs: --remote: "ftp://jobs.example.com" must use http or https\n' });
  });
});

describe('webjobs mcp: private addresses', () => {
  it('refuses loopback, private and metadata URLs by default, written as addresses or names, before any job; the server goes on', async () => {
    const guarded = await connect();
    const port = new URL(internal.url).port;
    const asked = llm.requests.length;
    for (const url of [internal.at('/secret'), `http://localhost:${port}/secret`, `http://[::ffff:7f00:1]:${port}/secret`, `http://[::127.0.0.1]:${port}/secret`]) {
      const result = await call(guarded, 'scrape', { url });
      expect([url, result.isError]).toEqual([url, true]);
      expect(textOf(result)).toMatch(/^refused to fetch http:\/\/\S+\/secret: .* is a loopback, private, link-local or metadata address, which this service does not fetch\n\nTo let webjobs mcp read it, start it with --allow-host .* or --allow-private .*$/);
    }
    for (const [tool, args] of [
      ['batch_scrape', { urls: [site.at('/p41'), internal.at('/secret')] }],
      ['crawl', { url: internal.at('/secret') }],
      ['map', { url: internal.url }],
      ['extract', { urls: [internal.at('/secret')], prompt: 'the secret' }],
    ] as const) {
      const result = await call(guarded, tool, args);
      expect([tool, result.isError, textOf(result)]).toEqual([tool, true, expect.stringContaining(`refused to fetch ${internal.url}`)]);
    }
    expect(internal.requests).toEqual([]);
    expect(site.requests).not.toContain('GET /p41');
    expect(llm.requests).toHaveLength(asked);
  });

  it('an allowed page that redirects to a private address, or loads one, does not reach it', async () => {
    const session = await connect(allowSite());
    const redirected = await call(session, 'scrape', { url: site.at('/to-internal') });
    expect(redirected.isError).toBe(true);
    expect(textOf(redirected)).toMatch(new RegExp(`failed: refused to fetch ${internal.at('/secret')}: .* is a loopback, private, link-local or metadata address`));
    const embeds = await call(session, 'scrape', { url: site.at('/embeds-internal'), scrapeOptions: { engine: 'browser' } });
    expect(embeds.isError).toBeFalsy();
    expect(textOf(embeds)).toContain('# Embeds');
    expect(internal.requests).toEqual([]);
  });

  it('--allow-host host:port and --allow-private lift the guard; neither goes with --remote', async () => {
    for (const args of [['--allow-host', `${new URL(site.url).host},${new URL(internal.url).host}`], ['--allow-private']]) {
      const session = await connect(args);
      const result = await call(session, 'scrape', { url: internal.at('/secret') });
      expect([args, result.isError]).toEqual([args, undefined]);
      expect(textOf(result)).toContain('# Internal secret');
    }
    const both = await runCli(['mcp', '--remote', 'http://127.0.0.1:9', '--allow-private'], { env: env() });
    expect(both).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^webjobs: --allow-private and --allow-host lift the guard of jobs run here; with --remote the service applies its own\n$/) });
  });
});

describe('webjobs mcp --remote', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it('runs the jobs on the service, with the service limits in the schema', async () => {
    const remote = await connect(['--remote', serve.url, '--api-key', KEY]);
    const { tools } = await remote.client.listTools();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect((tools.find((t) => t.name === 'crawl')!.inputSchema.properties as any).maxPages.maximum).toBe(LIMITS.maxCrawlPages);
    const result = await call(remote, 'scrape', { url: site.at('/p7') });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('# Page 7');
    const jobId = structured(result).jobId as string;
    // The job is the service's: the local store does not know it.
    const here = await runCli(['status', jobId], { env: env() });
    expect(here.code).toBe(4);
    const again = await call(remote, 'job_result', { jobId });
    expect(textOf(again)).toBe(textOf(result));
    const progress: Progress[] = [];
    const batch = await call(remote, 'batch_scrape', { urls: [site.at('/p8'), site.at('/p9')] }, (p) => progress.push(p));
    expect(structured(batch)).toMatchObject({ status: 'completed', totalScrapedPages: 2 });
    for (const p of progress) expect(p.total).toBe(2);
    const tooMany = await call(remote, 'crawl', { url: site.at('/site/'), maxPages: LIMITS.maxCrawlPages + 1 });
    expect(textOf(tooMany)).toBe(`invalid arguments: maxPages must be <= ${LIMITS.maxCrawlPages}`);
    expect(remote.wireErrors.map((e) => e.message)).toEqual([]);
  });
});
