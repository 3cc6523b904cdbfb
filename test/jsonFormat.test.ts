/**
 * The json format (Firecrawl's, issue 42) end to end: the real serve (Firecrawl
 * /v1 and /v2, and /api), the real CLI and MCP, against realistic pages
 * (test/fixtures/structured) on 127.0.0.1. With a model: the OpenAI stand-in
 * (test/helpers/fakeOpenAi.ts) as serve's default model server. Without one: the
 * schema filled from the page's structured data, the fields not found named.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, runCli, tempHome } from './helpers/cli.js';
import { answer, lastTurn, startFakeOpenAi, type FakeOpenAi } from './helpers/fakeOpenAi.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const fixture = (name: string) => readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'structured', name), 'utf8');
const KEY = 'wj-json-format-key';
/** No model server is configured, whatever the machine has. */
const NO_MODEL = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', WEBJOBS_EXTRACT_PROVIDER: '', WEBJOBS_MODEL: '' };

/** The schema of the shop fixtures' product (shop-jsonld.html, shop-microdata.html). */
const productSchema = JSON.parse(fixture('shop.schema.json'));
const trailRunner = { name: 'Trail Runner 2', brand: 'Acme', offers: { price: 129.95, priceCurrency: 'EUR' } };

let site: FixtureServer;
let openai: FakeOpenAi;
/** serve with no model configured. */
let bare: ServeProcess;
/** serve whose default model is the OpenAI stand-in's llama3.1. */
let modelled: ServeProcess;

/** A Firecrawl route of `server`, with the key as Firecrawl's clients send it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function firecrawl(server: ServeProcess, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const response = await fetch(`${server.url}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  openai = await startFakeOpenAi();
  const file = (name: string) => (_req: unknown, res: Parameters<typeof sendHtml>[0]) => sendHtml(res, fixture(name));
  site = await startFixtureServer({
    '/shop/trail-runner-2': file('shop-jsonld.html'),
    '/catalog/kettle': file('shop-microdata.html'),
    '/plain': (_req, res) => sendHtml(res, html(`<main><h1>About us</h1>${articleText('about', 3)}</main>`)),
    '/gone': (_req, res) => sendHtml(res, html('<main><h1>Not found</h1><p>This product is no longer sold.</p></main>'), 404),
  });
  const allow = ['--allow-host', new URL(site.url).host, '--quiet'];
  [bare, modelled] = await Promise.all([
    startServe({ args: allow, env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale`, ...NO_MODEL } }),
    startServe({
      args: [...allow, '--extract-provider', 'openai', '--extract-model', 'llama3.1'],
      env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale`, ...NO_MODEL, OPENAI_API_KEY: 'sk-openai-test', OPENAI_BASE_URL: openai.url },
    }),
  ]);
});

afterAll(async () => {
  await Promise.all([bare?.stop(), modelled?.stop()]);
  await site?.close();
  await openai?.close();
});

beforeEach(() => {
  openai.reset();
});

describe('the json format with a model (serve’s default: the OpenAI stand-in)', () => {
  it('v2 {type: "json", schema}: data.json is what the model returned from the page’s Markdown, beside the markdown asked for', async () => {
    openai.queue.push(answer(trailRunner));
    const answered = await firecrawl(modelled, 'POST', '/v2/scrape', { url: site.at('/shop/trail-runner-2'), formats: ['markdown', { type: 'json', schema: productSchema }] });
    expect(answered.status).toBe(200);
    expect(answered.body.data.json).toEqual(trailRunner);
    expect(answered.body.data.markdown).toContain('Trail Runner 2');
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]!.body.model).toBe('llama3.1');
    expect(lastTurn(openai.requests[0]!)).toContain('€129.95');
    expect(openai.problems).toEqual([]);
  });

  it('v1 formats ["json"] with jsonOptions {schema, prompt, systemPrompt}: json alone, the prompts sent; the model chosen by the request', async () => {
    openai.queue.push(answer({ name: 'Trail Runner 2', offers: { price: 129.95 } }));
    const answered = await firecrawl(modelled, 'POST', '/v1/scrape', {
      url: site.at('/shop/trail-runner-2'),
      formats: ['json'],
      jsonOptions: { schema: productSchema, prompt: 'the shoe on sale', systemPrompt: 'Prices in euros.', model: 'qwen2.5' },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.data.json).toEqual({ name: 'Trail Runner 2', offers: { price: 129.95 } });
    expect(answered.body.data.markdown).toBeUndefined();
    const sent = openai.requests[0]!.body;
    expect(sent.model).toBe('qwen2.5');
    expect(JSON.stringify(sent.messages)).toContain('the shoe on sale');
    expect(JSON.stringify(sent.messages)).toContain('Prices in euros.');
  });

  it('batch scrape with a prompt alone: one schema generated for the job, then one answer per page', async () => {
    const generated = { type: 'object', properties: { name: { type: 'string', description: 'product name' } }, required: ['name'] };
    openai.queue.push(answer({ schema: generated }), answer({ name: 'Trail Runner 2' }), answer({ name: 'Kettle K-200' }));
    const started = await firecrawl(modelled, 'POST', '/v2/batch/scrape', {
      urls: [site.at('/shop/trail-runner-2'), site.at('/catalog/kettle')],
      formats: [{ type: 'json', prompt: 'the product name' }],
      maxConcurrency: 1,
    });
    expect(started.status).toBe(200);
    let status = await firecrawl(modelled, 'GET', `/v2/batch/scrape/${started.body.id}`);
    while (status.body.status === 'scraping') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await firecrawl(modelled, 'GET', `/v2/batch/scrape/${started.body.id}`);
    }
    expect(status.body.status).toBe('completed');
    expect(status.body.data.map((d: { json: unknown }) => d.json)).toEqual([{ name: 'Trail Runner 2' }, { name: 'Kettle K-200' }]);
    expect(openai.requests).toHaveLength(3);
  });

  it('a page the server answers 404 is not sent to the model: no json, the warning says why', async () => {
    const answered = await firecrawl(modelled, 'POST', '/v2/scrape', { url: site.at('/gone'), formats: [{ type: 'json', schema: productSchema }] });
    expect(answered.status).toBe(200);
    expect(answered.body.data.json).toBeUndefined();
    expect(answered.body.data.metadata).toMatchObject({ statusCode: 404, warning: expect.stringContaining('json: not extracted: the server answered HTTP 404') });
    expect(openai.requests).toHaveLength(0);
  });

  it('Firecrawl /v2/extract takes webjobs’ provider and model', async () => {
    openai.queue.push(answer(trailRunner));
    const started = await firecrawl(modelled, 'POST', '/v2/extract', { urls: [site.at('/shop/trail-runner-2')], schema: productSchema, provider: 'openai', model: 'mistral-nemo' });
    expect(started.status).toBe(200);
    let status = await firecrawl(modelled, 'GET', `/v2/extract/${started.body.id}`);
    while (status.body.status === 'processing') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await firecrawl(modelled, 'GET', `/v2/extract/${started.body.id}`);
    }
    expect(status.body).toMatchObject({ success: true, status: 'completed', data: trailRunner });
    expect(openai.requests[0]!.body.model).toBe('mistral-nemo');

    const unknown = await firecrawl(modelled, 'POST', '/v1/extract', { urls: [site.at('/shop/trail-runner-2')], schema: productSchema, provider: 'mistral' });
    expect(unknown).toMatchObject({ status: 400, body: { success: false, error: 'request.provider: unknown model provider "mistral" (use anthropic or openai)' } });
  });
});

describe('the json format with no model configured', () => {
  it('v2: the schema filled from the page’s JSON-LD, the field not found named in the warning', async () => {
    const answered = await firecrawl(bare, 'POST', '/v2/scrape', { url: site.at('/shop/trail-runner-2'), formats: [{ type: 'json', schema: productSchema }] });
    expect(answered.status).toBe(200);
    expect(answered.body.data.json).toEqual(trailRunner);
    expect(answered.body.data.structuredData).toBeUndefined();
    // The page also has a JSON-LD block that is not JSON: the structured data read says so first.
    expect(answered.body.data.metadata.warning).toContain("; json: no model is configured: filled from the page's structured data; 1 field not found: gtin");
  });

  it('v1 crawl scrapeOptions and /api/scrape: the same from microdata', async () => {
    const started = await firecrawl(bare, 'POST', '/v1/crawl', {
      url: site.at('/catalog/kettle'),
      limit: 1,
      scrapeOptions: { formats: ['markdown', 'json'], jsonOptions: { schema: productSchema } },
    });
    expect(started.status).toBe(200);
    let status = await firecrawl(bare, 'GET', `/v1/crawl/${started.body.id}`);
    while (status.body.status === 'scraping') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await firecrawl(bare, 'GET', `/v1/crawl/${started.body.id}`);
    }
    const kettle = { name: 'Kettle K-200', brand: 'Homely', offers: { price: 49, priceCurrency: 'USD' } };
    expect(status.body.data[0]).toMatchObject({ json: kettle, markdown: expect.stringContaining('Kettle') });

    const api = serveClient(() => bare.url, KEY);
    const job = await api.start('scrape', { url: site.at('/catalog/kettle'), scrapeOptions: { formats: ['json'], jsonOptions: { schema: productSchema } } });
    expect(await api.waitFinal(job)).toBe('completed');
    expect((await api.call('GET', job)).body.data).toMatchObject({ json: kettle, metadata: { warning: expect.stringContaining('1 field not found: gtin') } });
  });

  it('a page whose data does not satisfy the schema fails, naming the missing field; a page with none says so', async () => {
    const strict = { ...productSchema, required: ['name', 'offers', 'gtin'] };
    const answered = await firecrawl(bare, 'POST', '/v2/scrape', { url: site.at('/catalog/kettle'), formats: [{ type: 'json', schema: strict }] });
    expect(answered.status).toBe(500);
    expect(answered.body.success).toBe(false);
    expect(answered.body.error).toMatch(/json: no model is configured .*does not fill the schema.*1 field not found: gtin/);
    expect(answered.body.data).toBeUndefined();

    const plain = await firecrawl(bare, 'POST', '/v1/scrape', { url: site.at('/plain'), formats: ['json'], jsonOptions: { schema: productSchema } });
    expect(plain.status).toBe(500);
    expect(plain.body.error).toContain('the page has no structured data (JSON-LD, microdata, RDFa)');
  });

  it('a prompt with no model is a 400 before any page is read, saying how to configure one', async () => {
    site.requests.length = 0;
    const answered = await firecrawl(bare, 'POST', '/v2/scrape', { url: site.at('/shop/trail-runner-2'), formats: [{ type: 'json', prompt: 'the price' }] });
    expect(answered.status).toBe(400);
    expect(answered.body.success).toBe(false);
    expect(answered.body.error).toMatch(/^scrapeOptions\.jsonOptions\.prompt needs a model: set ANTHROPIC_API_KEY .*OPENAI_API_KEY/);
    expect(site.requests).not.toContain('GET /shop/trail-runner-2');
  });
});

describe('bad json format requests are a 400 in Firecrawl’s envelope, naming the field', () => {
  it.each([
    ['v1', { formats: ['json'] }, 'formats: "json" needs jsonOptions with a schema, a prompt, or both'],
    ['v2', { formats: ['json'] }, 'formats: {type: "json"} needs a schema, a prompt, or both'],
    ['v2', { formats: [{ type: 'json' }] }, 'formats: {type: "json"} needs a schema, a prompt, or both'],
    ['v1', { formats: ['markdown'], jsonOptions: { schema: productSchema } }, 'scrapeOptions.jsonOptions goes with the json format: add it to formats'],
    ['v2', { formats: ['markdown'], jsonOptions: { schema: productSchema } }, 'jsonOptions is not supported by webjobs serve: v2 takes them in the format: {type: "json", schema, prompt}'],
    ['v1', { formats: ['json'], jsonOptions: { schema: productSchema, temperature: 0.2 } }, "jsonOptions.temperature is not supported by webjobs serve: the model's temperature is not set"],
    ['v2', { formats: [{ type: 'json', schema: productSchema, checkPromptInjection: true }] }, 'formats[{type: "json"}].checkPromptInjection is not supported by webjobs serve: only false (pages are not checked for prompt injection)'],
    ['v2', { formats: [{ type: 'json', schema: { type: 'objekt' } }] }, 'scrapeOptions.jsonOptions.schema'],
    ['v1', { formats: ['extract'], extract: { schema: productSchema } }, 'formats: "extract" is not supported by webjobs serve: v1\'s old name of the json format'],
  ])('%s %j', async (version, fields, error) => {
    const answered = await firecrawl(bare, 'POST', `/${version}/scrape`, { url: site.at('/shop/trail-runner-2'), ...fields });
    expect(answered.status).toBe(400);
    expect(answered.body).toMatchObject({ success: false, error: expect.stringContaining(error) });
  });
});

describe('MCP and the command line', () => {
  it('CLI, no model: scrape --formats json --schema prints the data, the field not found on stderr; bad flags are exit 2', async () => {
    const home = tempHome();
    const env = { WEBJOBS_HOME: home, ...NO_MODEL };
    const schemaFile = path.join(home, 'product.schema.json');
    writeFileSync(schemaFile, JSON.stringify(productSchema));
    const run = await runCli(['scrape', site.at('/catalog/kettle'), '--formats', 'json', '--schema', schemaFile], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ name: 'Kettle K-200', brand: 'Homely', offers: { price: 49, priceCurrency: 'USD' } });
    expect(run.stderr).toContain("json: no model is configured: filled from the page's structured data; 1 field not found: gtin");

    const both = await runCli(['scrape', site.at('/shop/trail-runner-2'), '--formats', 'markdown,json', '--schema', JSON.stringify(productSchema), '--json', '-q'], { env });
    expect(both.code).toBe(0);
    expect(JSON.parse(both.stdout).data).toMatchObject({ json: trailRunner, markdown: expect.stringContaining('Trail Runner 2') });

    for (const [args, error] of [
      [['--formats', 'json'], '--formats json needs --schema, --prompt, or both'],
      [['--schema', schemaFile], '--schema goes with the json format: add --formats json'],
      [['--formats', 'json', '--prompt', 'the price'], 'scrapeOptions.jsonOptions.prompt needs a model: set ANTHROPIC_API_KEY'],
      [['--formats', 'json', '--schema', '{"type": "objekt"}'], 'scrapeOptions.jsonOptions.schema'],
    ] as const) {
      const bad = await runCli(['scrape', site.at('/catalog/kettle'), ...args], { env });
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toContain(error);
    }
  });

  it('MCP, no model: scrape with the json format, and extract with a schema alone, filled from structured data', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--allow-host', new URL(site.url).host],
      env: { ...process.env, NO_COLOR: '1', WEBJOBS_HOME: tempHome(), ...NO_MODEL } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'webjobs-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const scraped = (await client.callTool({
        name: 'scrape',
        arguments: { url: site.at('/shop/trail-runner-2'), scrapeOptions: { formats: ['json'], jsonOptions: { schema: productSchema } } },
      })) as CallToolResult;
      expect(scraped.isError).toBeFalsy();
      // The page's content, the json format's data among it, is sent once: in the text (mcp/results.ts).
      expect(scraped.structuredContent).toMatchObject({ kind: 'scrape', status: 'completed' });
      expect(scraped.structuredContent).not.toHaveProperty('data.json');
      const text = (scraped.content[0] as { text: string }).text;
      expect(text).toContain('"priceCurrency": "EUR"');
      expect(text).toContain(`"name": ${JSON.stringify(trailRunner.name)}`);

      const extracted = (await client.callTool({ name: 'extract', arguments: { urls: [site.at('/catalog/kettle')], schema: productSchema } })) as CallToolResult;
      expect(extracted.isError).toBeFalsy();
      expect(extracted.structuredContent).toMatchObject({ kind: 'extract', status: 'completed', data: { name: 'Kettle K-200' }, missing: ['gtin'] });
    } finally {
      await client.close();
    }
  });
});
