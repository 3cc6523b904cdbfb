/**
 * The json format on serve --database (a real PostgreSQL, started for this file):
 * a batch's pages run one by one on the worker (pg/worker.ts runPage) and a scrape
 * as a whole job (runWhole); both get `json`, filled from the pages' structured
 * data with no model configured, as on the file store (test/jsonFormat.test.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const fixture = (name: string) => readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'structured', name), 'utf8');
const KEY = 'json-pg-test-key-0123456789';
const productSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, offers: { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] }, gtin: { type: 'string' } },
  required: ['name', 'offers'],
};

let site: FixtureServer;
let pg: TestPostgres;
let serve: ServeProcess;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function firecrawl(method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const response = await fetch(`${serve.url}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  site = await startFixtureServer({
    '/shop/trail-runner-2': (_req, res) => sendHtml(res, fixture('shop-jsonld.html')),
    '/catalog/kettle': (_req, res) => sendHtml(res, fixture('shop-microdata.html')),
  });
  pg = await startPostgres();
  // The API node runs a worker too.
  serve = await startServe({
    args: ['--allow-host', new URL(site.url).host, '--quiet', '--database', pg.url],
    env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale`, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
  });
});

afterAll(async () => {
  await serve?.stop();
  await site?.close();
  await pg?.stop();
});

describe('the json format on PostgreSQL', () => {
  it('a batch (page by page on the worker) and a scrape (a whole job) get json from the pages’ structured data', async () => {
    const started = await firecrawl('POST', '/v2/batch/scrape', {
      urls: [site.at('/shop/trail-runner-2'), site.at('/catalog/kettle')],
      formats: [{ type: 'json', schema: productSchema }],
    });
    expect(started.status).toBe(200);
    let status = await firecrawl('GET', `/v2/batch/scrape/${started.body.id}`);
    while (status.body.status === 'scraping') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await firecrawl('GET', `/v2/batch/scrape/${started.body.id}`);
    }
    expect(status.body.status).toBe('completed');
    expect(status.body.data.map((d: { json: unknown }) => d.json)).toEqual([
      { name: 'Trail Runner 2', offers: { price: 129.95 } },
      { name: 'Kettle K-200', offers: { price: 49 } },
    ]);
    expect(status.body.data[1].metadata.warning).toContain('1 field not found: gtin');

    const scraped = await firecrawl('POST', '/v1/scrape', { url: site.at('/catalog/kettle'), formats: ['json'], jsonOptions: { schema: productSchema } });
    expect(scraped.status).toBe(200);
    expect(scraped.body.data.json).toEqual({ name: 'Kettle K-200', offers: { price: 49 } });
  });
});
