/**
 * Structured data with no model (issue 42), end to end: the structuredData format
 * on both engines (the CLI's HTTP engine, serve's Chromium for a page whose data
 * only its scripts write), extract --selectors and extract --schema with no model
 * configured, through the real CLI and the real serve (/api, Firecrawl /v1 /v2),
 * against realistic pages (test/fixtures/structured) on 127.0.0.1.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const fixtureFile = (name: string) => path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'structured', name);
const fixture = (name: string) => readFileSync(fixtureFile(name), 'utf8');
const KEY = 'wj-structured-test-key';
const home = tempHome();
/** No model server is configured in these tests, whatever the machine has. */
const NO_MODEL = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' };
const env = { WEBJOBS_HOME: home, ...NO_MODEL };

/** A page whose schema.org data only its script writes: the HTTP engine sees none of it, Chromium all of it. */
const renderedPage = html(
  `<main id="app"><p>Loading…</p></main>
   <script>
     const data = document.createElement('script');
     data.type = 'application/ld+json';
     data.textContent = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Rendered Lamp', offers: { '@type': 'Offer', price: '12.50' } });
     document.head.appendChild(data);
     document.getElementById('app').innerHTML =
       '<article itemscope itemtype="https://schema.org/Review"><h1 itemprop="name">Lamp review</h1><p itemprop="reviewBody">' +
       ${JSON.stringify(articleText('lamps', 3))} + '</p></article>';
   </script>`,
  { title: 'Rendered Lamp' },
);

let site: FixtureServer;
let server: ServeProcess;
const api = serveClient(() => server.url, KEY);

/** A Firecrawl route, with the key as Firecrawl's clients send it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function firecrawl(method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const response = await fetch(`${server.url}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

/** The schema of the shop fixtures' product (shop-jsonld.html, shop-microdata.html). */
const productSchema = JSON.parse(fixture('shop.schema.json'));
const schemaFile = path.join(home, 'product.schema.json');
writeFileSync(schemaFile, JSON.stringify(productSchema));

beforeAll(async () => {
  const file = (name: string) => (_req: unknown, res: Parameters<typeof sendHtml>[0]) => sendHtml(res, fixture(name));
  site = await startFixtureServer({
    '/shop/trail-runner-2': file('shop-jsonld.html'),
    '/catalog/kettle': file('shop-microdata.html'),
    '/blog/pruning': file('article-rdfa.html'),
    '/search': file('listing.html'),
    '/rendered': (_req, res) => sendHtml(res, renderedPage),
    '/plain': (_req, res) => sendHtml(res, html(`<main><h1>About us</h1>${articleText('about', 3)}</main>`)),
  });
  server = await startServe({
    args: ['--allow-host', new URL(site.url).host, '--quiet'],
    env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale`, ...NO_MODEL },
  });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
});

describe('the structuredData format', () => {
  it('CLI, HTTP engine: JSON-LD as written, with a warning for the block that is not JSON', async () => {
    const run = await runCli(['scrape', site.at('/shop/trail-runner-2'), '-f', 'structuredData', '--engine', 'http'], { env });
    expect(run.code).toBe(0);
    const items = JSON.parse(run.stdout);
    expect(items.map((i: Record<string, unknown>) => i['@type'] ?? '@graph')).toEqual(['Product', '@graph']);
    expect(items[0].offers).toEqual({ '@type': 'Offer', url: 'https://shop.example/p/trail-runner-2', priceCurrency: 'EUR', price: 129.95, availability: 'https://schema.org/InStock' });
    expect(run.stderr).toContain('a JSON-LD block of the page is not valid JSON');
  });

  it('CLI, HTTP engine: microdata and RDFa as JSON-LD, beside the markdown', async () => {
    const run = await runCli(['batch', site.at('/catalog/kettle'), site.at('/blog/pruning'), '-f', 'markdown,structuredData', '--engine', 'http', '--json'], { env });
    expect(run.code).toBe(0);
    const [kettle, post] = JSON.parse(run.stdout).data;
    expect(kettle.markdown).toContain('Brushed steel kettle');
    expect(kettle.structuredData).toHaveLength(1);
    expect(kettle.structuredData[0]).toMatchObject({ '@type': 'Product', name: 'Kettle K-200', offers: { price: '49.00' }, review: { reviewRating: { ratingValue: '4' } } });
    expect(post.structuredData).toEqual([expect.objectContaining({ '@type': 'BlogPosting', datePublished: '2026-03-14', author: { '@type': 'Person', name: 'Ana Gardner', url: site.at('/authors/ana') } })]);
  });

  it('serve, both engines: the HTTP engine reads the HTML as served, Chromium the page its scripts wrote', async () => {
    const read = async (engine: string) => {
      const job = await api.start('scrape', { url: site.at('/rendered'), scrapeOptions: { formats: ['structuredData', 'markdown'], engine } });
      expect(await api.waitFinal(job)).toBe('completed');
      return (await api.call('GET', job)).body.data;
    };
    expect((await read('http')).structuredData).toEqual([]);
    const rendered = await read('browser');
    expect(rendered.metadata.engine).toBe('browser');
    expect(rendered.structuredData).toEqual([
      { '@context': 'https://schema.org', '@type': 'Product', name: 'Rendered Lamp', offers: { '@type': 'Offer', price: '12.50' } },
      expect.objectContaining({ '@context': 'https://schema.org', '@type': 'Review', name: 'Lamp review' }),
    ]);
  });

  it('Firecrawl /v2/scrape and /v1/scrape answer it in the document', async () => {
    for (const version of ['v1', 'v2']) {
      const { status, body } = await firecrawl('POST', `/${version}/scrape`, { url: site.at('/catalog/kettle'), formats: ['structuredData'] });
      expect(status).toBe(200);
      expect(body.data.structuredData[0]).toMatchObject({ '@type': 'Product', sku: 'K200-STEEL' });
    }
  });
});

describe('extract --selectors (no model)', () => {
  const expected = [
    { sku: 'L-100', title: 'Desk Lamp Classic', url: '/p/l-100', price: '$24.99', seller: { name: 'Bright Co', rating: '4.5' }, tags: [{ tag: 'led' }, { tag: 'dimmable' }] },
    { sku: 'L-200', title: 'Floor Lamp Arc', url: '/p/l-200', price: '$89.00', seller: { name: 'Lumo', rating: '4.1' }, tags: [{ tag: 'arc' }] },
    { sku: 'L-300', title: 'Clip Lamp Mini', url: '/p/l-300', price: null, seller: { name: 'Bright Co' }, tags: [] },
  ];

  it('CLI: prints the items of the listing', async () => {
    const run = await runCli(['extract', site.at('/search'), '--selectors', fixtureFile('listing.selectors.json')], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(expected);
  });

  it('CLI --remote: the service reads them; a bad selector is exit 2 there too', async () => {
    const remote = ['--remote', server.url, '--api-key', KEY];
    const run = await runCli(['extract', site.at('/search'), '--selectors', fixtureFile('listing.selectors.json'), ...remote], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(expected);
    const bad = await runCli(['extract', site.at('/search'), '--selectors', '{"baseSelector": "li[", "fields": [{"name": "a", "type": "text"}]}', ...remote], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('selectors.baseSelector: "li[" is not a valid CSS selector');
  });

  it('serve /api/extract and Firecrawl /v1/extract take the request field selectors', async () => {
    const selectors = JSON.parse(fixture('listing.selectors.json'));
    const job = await api.start('extract', { urls: [site.at('/search')], selectors });
    expect(await api.waitFinal(job)).toBe('completed');
    expect((await api.call('GET', job)).body.data).toEqual(expected);

    const started = await firecrawl('POST', '/v1/extract', { urls: [site.at('/search')], selectors });
    expect(started.status).toBe(200);
    expect(await api.waitFinal(`/api/extract/${started.body.id}`)).toBe('completed');
    expect((await firecrawl('GET', `/v1/extract/${started.body.id}`)).body.data).toEqual(expected);
  });

  const badFile = path.join(home, 'bad.selectors.json');
  writeFileSync(badFile, '{"baseSelector": "li.product", "fields": [');
  it.each([
    ['a file that is not JSON', badFile, /^webjobs: --selectors: the file .*bad\.selectors\.json is not valid JSON/],
    ['no such file', path.join(home, 'nope.json'), /^webjobs: --selectors: no file named/],
    ['a schema without fields', '{"baseSelector": "li.product"}', /^webjobs: selectors.fields must be a non-empty array/],
    ['an unknown type', '{"baseSelector": "li", "fields": [{"name": "a", "selector": "a", "type": "link"}]}', /^webjobs: selectors.fields\[0\].type: "link" is not one of/],
    ['a selector that is not CSS', '{"baseSelector": "li", "fields": [{"name": "a", "selector": "a[href=", "type": "text"}]}', /^webjobs: selectors.fields\[0\].selector: "a\[href=" is not a valid CSS selector/],
  ])('CLI: %s is exit 2, one line, no job', async (_what, value, message) => {
    const run = await runCli(['extract', site.at('/search'), '--selectors', value], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stdout).toBe('');
  });

  it('serve: a bad schema or selector is 400 naming the field, also on Firecrawl /v2/extract', async () => {
    const bad = { baseSelector: 'li:nth-child(x)', fields: [{ name: 'a', type: 'text' }] };
    const answer = await api.call('POST', '/api/extract', { body: { urls: [site.at('/search')], selectors: bad } });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('selectors.baseSelector: \\"li:nth-child(x)\\" is not a valid CSS selector');
    const both = await api.call('POST', '/api/extract', { body: { urls: [site.at('/search')], selectors: JSON.parse(fixture('listing.selectors.json')), prompt: 'lamps' } });
    expect(both.status).toBe(400);
    const v2 = await firecrawl('POST', '/v2/extract', { urls: [site.at('/search')], selectors: { baseSelector: 'li' } });
    expect(v2.status).toBe(400);
    expect(JSON.stringify(v2.body)).toContain('selectors.fields must be a non-empty array');
  });
});

describe('extract --schema with no model configured', () => {
  it('CLI: fills the schema from microdata, says which field it could not fill', async () => {
    const run = await runCli(['extract', site.at('/catalog/kettle'), '--schema', schemaFile], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ name: 'Kettle K-200', brand: 'Homely', offers: { price: 49, priceCurrency: 'USD' } });
    expect(run.stderr).toBe("webjobs: warning: no model is configured: filled from the pages' structured data; 1 field not found: gtin\n");
  });

  it('CLI --json: JSON-LD fills it; the record lists what is missing', async () => {
    const run = await runCli(['extract', site.at('/shop/trail-runner-2'), '--schema', schemaFile, '--json'], { env });
    expect(run.code).toBe(0);
    const record = JSON.parse(run.stdout);
    expect(record).toMatchObject({ status: 'completed', data: { name: 'Trail Runner 2', brand: 'Acme', offers: { price: 129.95, priceCurrency: 'EUR' } }, missing: ['gtin'] });
    expect(record.warning).toContain('1 field not found: gtin');
  });

  it('a page whose data does not satisfy the schema fails the job (exit 1), its data and missing fields kept', async () => {
    const strict = JSON.stringify({ ...productSchema, required: ['name', 'offers', 'gtin'] });
    const run = await runCli(['extract', site.at('/catalog/kettle'), '--schema', strict, '--json'], { env });
    expect(run.code).toBe(1);
    const record = JSON.parse(run.stdout);
    expect(record).toMatchObject({ status: 'failed', data: { name: 'Kettle K-200' }, missing: ['gtin'] });
    expect(record.error).toMatch(/no model is configured .*does not fill the schema .*gtin/);

    const none = await runCli(['extract', site.at('/plain'), '--schema', schemaFile], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('the pages have no structured data (JSON-LD, microdata, RDFa)');
  });

  it('serve /api/extract and Firecrawl /v2/extract: the same record', async () => {
    const job = await api.start('extract', { urls: [site.at('/catalog/kettle')], schema: productSchema });
    expect(await api.waitFinal(job)).toBe('completed');
    expect((await api.call('GET', job)).body).toMatchObject({ data: { name: 'Kettle K-200', offers: { price: 49 } }, missing: ['gtin'] });

    const started = await firecrawl('POST', '/v2/extract', { urls: [site.at('/catalog/kettle')], schema: productSchema });
    expect(await api.waitFinal(`/api/extract/${started.body.id}`)).toBe('completed');
    expect((await firecrawl('GET', `/v2/extract/${started.body.id}`)).body).toMatchObject({
      success: true,
      status: 'completed',
      data: { name: 'Kettle K-200' },
      warning: expect.stringContaining('1 field not found: gtin'),
      missing: ['gtin'],
    });
  });
});
