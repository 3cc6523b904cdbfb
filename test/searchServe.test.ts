/**
 * Search on `webjobs serve` (issue 55): Firecrawl's own SDK calling search() at
 * /v2/search and /v1/search, the CLI's --remote at /api/search, serve's address
 * guard on the results, and the MCP search tool; a SearXNG stand-in on loopback
 * answers as its documentation says (helpers/searchEngines.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Firecrawl, FirecrawlAppV1 } from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, startCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startSearxng, type StandIn } from './helpers/searchEngines.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'fc-search-key';
const FREE_KEY = 'fc-search-free-key';
let site: FixtureServer;
let searxng: StandIn;
let server: ServeProcess;
let bare: ServeProcess;
/** A serve whose SearXNG sits behind a proxy that answers 502: the instance is down. */
let down: ServeProcess;
let deadProxy: FixtureServer;
let home: string;
/** Requests for /harbour, which never answers; whoever waits for one is woken when it comes. */
let harbourAsked = 0;
let wakeHarbour: () => void = () => undefined;
const untilHarbour = () => new Promise<void>((resolve) => (harbourAsked > 0 ? resolve() : (wakeHarbour = resolve)));

beforeAll(async () => {
  home = tempHome();
  site = await startFixtureServer({
    '/lanterns': (_req, res) => sendHtml(res, html(`<article><h1>Paper lanterns</h1>${articleText('lanterns')}</article>`, { title: 'Paper lanterns' })),
    '/harbour': () => {
      harbourAsked++;
      wakeHarbour();
    },
    '/robots.txt': (_req, res) => {
      res.writeHead(404);
      res.end();
    },
  });
  searxng = await startSearxng(
    [
      { url: site.at('/lanterns'), title: 'Paper lanterns', text: 'How paper lanterns are made for the festival.', ageDays: 3 },
      { url: site.at('/harbour'), title: 'Harbour lights', text: 'A harbour page that never finishes loading.' },
      // Another port of loopback, outside serve's --allow-host: listed, never fetched.
      { url: 'http://127.0.0.1:1/lanterns', title: 'Intranet lanterns', text: 'Lanterns on an internal address.', ageDays: 3 },
      ...Array.from({ length: 12 }, (_, i) => ({ url: `https://lanterns.example/${i + 1}`, title: `Lantern ${i + 1}`, text: `Lantern number ${i + 1}.`, ageDays: 100 })),
    ],
    { formats: ['html', 'json'] },
  );
  deadProxy = await startFixtureServer({
    '/search': (_req, res) => sendHtml(res, '<html><body><h1>502 Bad Gateway</h1></body></html>', 502),
  });
  const env = { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale,${FREE_KEY}:free`, WEBJOBS_BRAVE_API_KEY: '' };
  // One after the other: three servers starting at once on a loaded machine each start slower.
  server = await startServe({ args: ['--allow-host', new URL(site.url).host, '--quiet'], env: { ...env, WEBJOBS_SEARXNG_URL: searxng.url } });
  bare = await startServe({ args: ['--quiet'], env: { ...env, WEBJOBS_HOME: tempHome(), WEBJOBS_SEARXNG_URL: '' } });
  down = await startServe({ args: ['--quiet'], env: { ...env, WEBJOBS_HOME: tempHome(), WEBJOBS_SEARXNG_URL: deadProxy.url } });
});

afterAll(async () => {
  await Promise.all([server?.stop(), bare?.stop(), down?.stop()]);
  await Promise.all([site?.close(), searxng?.close(), deadProxy?.close()]);
});

interface WebResult {
  url: string;
  title?: string;
  description?: string;
  position?: number;
  markdown?: string;
  metadata?: Record<string, unknown>;
}

describe('Firecrawl SDK search() against serve', () => {
  it('v2: web results with url, title, description and position, nothing scraped by default', async () => {
    const app = new Firecrawl({ apiKey: KEY, apiUrl: server.url });
    const found = await app.search('lantern', { limit: 12 });
    const web = found.web as WebResult[];
    expect(web).toHaveLength(12);
    expect(web[0]).toEqual({ url: site.at('/lanterns'), title: 'Paper lanterns', description: 'How paper lanterns are made for the festival.', position: 1 });
    expect(web.map((r) => r.position)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(searxng.asked.slice(-2).map((p) => p.get('pageno'))).toEqual(['1', '2']);
  });

  it('v2: scrapeOptions scrape each result; tbs is the time range; a result the guard refuses is listed, never fetched', async () => {
    const app = new Firecrawl({ apiKey: KEY, apiUrl: server.url });
    const found = await app.search('lanterns', { limit: 5, tbs: 'qdr:w', scrapeOptions: { formats: ['markdown'] } });
    expect(searxng.asked.at(-1)!.get('time_range')).toBe('week');
    const web = found.web as WebResult[];
    expect(web.map((r) => r.url)).toEqual([site.at('/lanterns'), 'http://127.0.0.1:1/lanterns']);
    expect(web[0]!.markdown).toContain('# Paper lanterns');
    expect(web[0]!.metadata).toMatchObject({ sourceURL: site.at('/lanterns'), statusCode: 200 });
    expect(web[1]!.markdown).toBeUndefined();
    expect(String(web[1]!.metadata?.error)).toMatch(/refused to fetch http:\/\/127\.0\.0\.1:1\/lanterns: 127\.0\.0\.1 is a loopback/);
  });

  it('v2: includeDomains keeps only those results; an unsupported source is a 400 naming it', async () => {
    const app = new Firecrawl({ apiKey: KEY, apiUrl: server.url });
    const found = await app.search('lantern', { limit: 20, includeDomains: ['lanterns.example'] });
    expect((found.web as WebResult[]).map((r) => new URL(r.url).hostname)).toEqual(Array(12).fill('lanterns.example'));
    await expect(app.search('lantern', { sources: ['news'] })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/sources.*only web results/) });
  });

  it('a plan without batch scrape may search, but not scrape the results: 402 before the engine is asked', async () => {
    const free = new Firecrawl({ apiKey: FREE_KEY, apiUrl: server.url });
    expect((await free.search('lantern', { limit: 1 })).web).toHaveLength(1);
    const asked = searxng.asked.length;
    await expect(free.search('lantern', { scrapeOptions: { formats: ['markdown'] } })).rejects.toMatchObject({ status: 402, message: expect.stringMatching(/batch scrape needs the scale plan/) });
    expect(searxng.asked.length).toBe(asked);
  });

  it("v1: data is the list of results, in v1's shape", async () => {
    const v1 = new FirecrawlAppV1({ apiKey: KEY, apiUrl: server.url });
    const found = await v1.search('lantern', { limit: 2 });
    expect(found.success).toBe(true);
    expect(found.data).toEqual([
      { url: site.at('/lanterns'), title: 'Paper lanterns', description: 'How paper lanterns are made for the festival.', position: 1 },
      { url: 'http://127.0.0.1:1/lanterns', title: 'Intranet lanterns', description: 'Lanterns on an internal address.', position: 2 },
    ]);
  });
});

describe('webjobs search --remote (POST /api/search)', () => {
  it('prints what the service found and scraped', async () => {
    const { code, stdout, stderr } = await runCli(['search', 'paper', 'lanterns', '--formats', 'markdown', '--remote', server.url, '--api-key', KEY, '--json'], {
      env: { WEBJOBS_HOME: home, WEBJOBS_SEARXNG_URL: '' },
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { web } = (JSON.parse(stdout) as { data: { web: WebResult[] } }).data;
    expect(web).toHaveLength(1);
    expect(web[0]!.markdown).toContain('# Paper lanterns');
  });

  it("Ctrl-C closes the request, and serve stops the search's batch", async () => {
    const cli = ['--remote', server.url, '--api-key', KEY];
    const run = startCli(['search', 'harbour', 'lights', '--formats', 'markdown', ...cli], { env: { WEBJOBS_HOME: home } });
    await untilHarbour();
    run.child.kill('SIGINT');
    const { code, stdout } = await run.done;
    expect(code).toBe(130);
    expect(stdout).toBe('');
    const jobs = JSON.parse((await runCli(['jobs', '--json', ...cli], { env: { WEBJOBS_HOME: home } })).stdout) as { jobId: string; url: string }[];
    const batch = jobs.find((job) => job.url === site.at('/harbour'))!;
    const waited = await runCli(['wait', batch.jobId, ...cli], { env: { WEBJOBS_HOME: home } });
    expect(waited.stdout.trim()).toBe('stopped');
  });

  it('a service without a search engine says which variables to set (exit 2)', async () => {
    const { code, stdout, stderr } = await runCli(['search', 'lantern', '--remote', bare.url, '--api-key', KEY], { env: { WEBJOBS_HOME: home } });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/WEBJOBS_SEARXNG_URL.*WEBJOBS_BRAVE_API_KEY/);
  });
});

describe('a search engine that is down, behind serve', () => {
  it('--remote exits 7 at once, saying so (a 502 of the engine is not retried as a proxy\'s); the SDK gets the 502', async () => {
    const { code, stdout, stderr } = await runCli(['search', 'lantern', '--remote', down.url, '--api-key', KEY], { env: { WEBJOBS_HOME: home } });
    expect(code).toBe(7);
    expect(stdout).toBe('');
    expect(stderr.trim()).toMatch(/^webjobs: the webjobs service's search engine failed: SearXNG at http:\/\/127\.0\.0\.1:\d+ answered HTTP 502: 502 Bad Gateway$/);
    expect(deadProxy.requests).toHaveLength(1);
    await expect(new Firecrawl({ apiKey: KEY, apiUrl: down.url }).search('lantern')).rejects.toMatchObject({ status: 502 });
  });
});

describe('MCP search tool', () => {
  it('answers with the results as Markdown, each page read with formats', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--allow-host', new URL(site.url).host],
      env: { ...process.env, NO_COLOR: '1', WEBJOBS_HOME: home, WEBJOBS_SEARXNG_URL: searxng.url, WEBJOBS_BRAVE_API_KEY: '' } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'webjobs-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'search')?.inputSchema.required).toEqual(['query']);
      const result = (await client.callTool({ name: 'search', arguments: { query: 'lanterns', limit: 2, formats: ['markdown'] } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const text = (result.content[0] as { text: string }).text;
      expect(text).toContain(`## 1. Paper lanterns\n${site.at('/lanterns')}`);
      expect(text).toContain('# Paper lanterns');
      expect(text).toMatch(/## 2\. Intranet lanterns\nhttp:\/\/127\.0\.0\.1:1\/lanterns\n\nLanterns on an internal address\.\n\n\(not read: refused/);
      const empty = (await client.callTool({ name: 'search', arguments: { query: '' } })) as CallToolResult;
      expect(empty.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
