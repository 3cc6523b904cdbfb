/**
 * `webjobs extract` end to end: the real CLI, a real Chromium, fixture pages and a
 * fake Anthropic Messages API, both on 127.0.0.1.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import {
  apiError,
  messageText,
  overloaded,
  rateLimited,
  serverError,
  startFakeAnthropic,
  textOnly,
  toolUse,
  apiKeyOf,
  type FakeAnthropic,
} from './helpers/fakeAnthropic.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

let site: FixtureServer;
let llm: FakeAnthropic;
const home = tempHome();

const productSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    price: { type: 'number' },
    currency: { type: 'string' },
    tiers: { type: 'array', items: { type: 'object', properties: { quantity: { type: 'string' }, price: { type: 'number' } }, required: ['quantity', 'price'] } },
  },
  required: ['name', 'price'],
};
const schemaFile = path.join(home, 'product.schema.json');
writeFileSync(schemaFile, JSON.stringify(productSchema));

const productPage = html(
  `<main><h1>Aurora Teapot</h1>
   <p>A cast-iron teapot that keeps tea warm for an hour. Made by hand in small batches, enamelled inside.</p>
   <p>Price: 49.90 EUR</p>
   <table><thead><tr><th>Quantity</th><th>Unit price</th></tr></thead>
     <tbody><tr><td>1-9</td><td>49.90</td></tr><tr><td>10+</td><td>44.50</td></tr></tbody></table></main>`,
  {
    title: 'Aurora Teapot',
    head: `<script type="application/ld+json">${JSON.stringify({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Aurora Teapot',
      offers: { '@type': 'Offer', price: '49.90', priceCurrency: 'EUR' },
    })}</script>`,
  },
);

const validProduct = { name: 'Aurora Teapot', price: 49.9, currency: 'EUR', tiers: [{ quantity: '1-9', price: 49.9 }, { quantity: '10+', price: 44.5 }] };

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    WEBJOBS_HOME: home,
    ANTHROPIC_API_KEY: 'sk-test-key',
    ANTHROPIC_BASE_URL: llm.url,
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: '',
    WEBJOBS_EXTRACT_PROVIDER: '',
    WEBJOBS_MODEL: '',
    WEBJOBS_LLM_MAX_RETRIES: '',
    WEBJOBS_LLM_TIMEOUT_MS: '',
    WEBJOBS_EXTRACT_MAX_INPUT_TOKENS: '',
    ...extra,
  };
}

async function jobIds(): Promise<string[]> {
  const listed = await runCli(['jobs', '--json'], { env: env() });
  return (JSON.parse(listed.stdout) as { jobId: string; kind: string }[]).filter((j) => j.kind === 'extract').map((j) => j.jobId);
}

async function lastRecord(): Promise<Record<string, unknown>> {
  const ids = await jobIds();
  const result = await runCli(['result', ids[0]!], { env: env() }); // jobs lists the newest first
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

beforeAll(async () => {
  llm = await startFakeAnthropic();
  site = await startFixtureServer({
    '/product': (_req, res) => sendHtml(res, productPage),
    '/article': (_req, res) =>
      sendHtml(
        res,
        html(`<article><h1>Rivers of the North</h1><p>Written by Ada Lindqvist and published on 3 March 2024, after a summer of fieldwork.</p>${articleText('rivers')}</article>`, {
          title: 'Rivers of the North',
        }),
      ),
    '/team/1': (_req, res) => sendHtml(res, html(`<article><h1>Team: Mira Okafor</h1><p>Mira Okafor is the chief engineer of the kettle works.</p>${articleText('kettles', 3)}</article>`)),
    '/team/2': (_req, res) => sendHtml(res, html(`<article><h1>Team: Jonas Berg</h1><p>Jonas Berg leads the glaze laboratory.</p>${articleText('glazes', 3)}</article>`)),
    '/team/3': (_req, res) => sendHtml(res, html(`<article><h1>Team: Lea Novak</h1><p>Lea Novak runs the shipping desk.</p>${articleText('parcels', 3)}</article>`)),
    '/long': (_req, res) =>
      sendHtml(
        res,
        html(
          `<article><h1>The long chronicle</h1>${Array.from(
            { length: 40 },
            (_, i) => `<p>Entry ${i + 1}: in year ${1900 + i} the village recorded its harvest, its weather and the names of the newcomers who arrived.</p>`,
          ).join('\n')}</article>`,
        ),
      ),
    '/missing': (_req, res) => sendHtml(res, html('<h1>Not here</h1>'), 404),
  });
});

afterAll(async () => {
  await site?.close();
  await llm?.close();
});

beforeEach(() => {
  llm.reset();
  site.requests.length = 0;
});

describe('extract with a schema', () => {
  it('sends the page text with the schema as a forced tool, prints the validated data, and keeps the record', async () => {
    llm.queue.push(toolUse(validProduct, { input_tokens: 1234, output_tokens: 56 }));
    const run = await runCli(['extract', site.at('/product'), '--schema', schemaFile, '--prompt', 'the product, its price and price tiers'], { env: env() });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(validProduct);

    expect(llm.problems).toEqual([]);
    expect(llm.requests).toHaveLength(1);
    const sent = llm.requests[0]!;
    expect(apiKeyOf(sent)).toBe('sk-test-key');
    expect(sent.body.model).toBe('claude-sonnet-5-5');
    expect(sent.body.tools[0].input_schema).toEqual(productSchema);
    expect(sent.body.tool_choice).toEqual({ type: 'tool', name: sent.body.tools[0].name });
    const text = messageText(sent);
    expect(text).toContain('Aurora Teapot');
    expect(text).toContain('44.50'); // from the price table
    expect(text).toContain(site.at('/product'));
    expect(text).toContain('the product, its price and price tiers');

    const record = await lastRecord();
    expect(record).toMatchObject({
      status: 'completed',
      data: validProduct,
      schema: productSchema,
      metadata: { inputTokens: 1234, outputTokens: 56, numPagesScraped: 1 },
    });
  });

  it('takes the schema inline, the model from --model, and prints the whole record with --json', async () => {
    llm.queue.push(toolUse({ name: 'Aurora Teapot', price: 49.9 }));
    const run = await runCli(['extract', site.at('/product'), '--schema', JSON.stringify(productSchema), '--model', 'claude-haiku-4-5', '--json'], { env: env() });
    expect(run.code).toBe(0);
    const record = JSON.parse(run.stdout);
    expect(record).toMatchObject({ status: 'completed', data: { name: 'Aurora Teapot', price: 49.9 }, metadata: { numPagesScraped: 1 } });
    expect(record.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(llm.requests[0]!.body.model).toBe('claude-haiku-4-5');
  });

  it('runs in a background worker with --no-wait; the record is read from the job store', async () => {
    llm.queue.push(toolUse({ name: 'Aurora Teapot', price: 49.9 }, { input_tokens: 70, output_tokens: 7 }));
    const started = await runCli(['extract', site.at('/product'), '--schema', schemaFile, '--no-wait'], { env: env() });
    expect(started.code).toBe(0);
    const jobId = started.stdout.trim();
    let record: Record<string, unknown> = {};
    for (let i = 0; i < 100 && !['completed', 'failed'].includes(record.status as string); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      record = JSON.parse((await runCli(['result', jobId], { env: env() })).stdout);
    }
    expect(record).toEqual({
      jobId,
      status: 'completed',
      data: { name: 'Aurora Teapot', price: 49.9 },
      schema: productSchema,
      metadata: { inputTokens: 70, outputTokens: 7, numPagesScraped: 1 },
    });
  });

  it('honours WEBJOBS_MODEL when --model is not given', async () => {
    llm.queue.push(toolUse({ name: 'Aurora Teapot', price: 49.9 }));
    const run = await runCli(['extract', site.at('/product'), '--schema', schemaFile], { env: env({ WEBJOBS_MODEL: 'claude-opus-4-5' }) });
    expect(run.code).toBe(0);
    expect(llm.requests[0]!.body.model).toBe('claude-opus-4-5');
  });

  it('sends the validation errors back and accepts the corrected answer', async () => {
    llm.queue.push(toolUse({ name: 'Aurora Teapot', price: '49,90 EUR' }, { input_tokens: 100, output_tokens: 10 }));
    llm.queue.push(toolUse({ name: 'Aurora Teapot', price: 49.9 }, { input_tokens: 150, output_tokens: 12 }));
    const run = await runCli(['extract', site.at('/product'), '--schema', schemaFile, '--json'], { env: env() });
    expect(run.code).toBe(0);
    const record = JSON.parse(run.stdout);
    expect(record.data).toEqual({ name: 'Aurora Teapot', price: 49.9 });
    expect(record.metadata).toEqual({ inputTokens: 250, outputTokens: 22, numPagesScraped: 1 });

    expect(llm.requests).toHaveLength(2);
    const retry = llm.requests[1]!.body.messages;
    const firstToolUse = retry[1].content.find((b: { type: string }) => b.type === 'tool_use');
    expect(firstToolUse.input).toEqual({ name: 'Aurora Teapot', price: '49,90 EUR' });
    const result = retry[2].content[0];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: firstToolUse.id, is_error: true });
    expect(result.content).toContain('/price: must be number');
  });

  it('fails the job with the errors, and no data, when the answer stays invalid', async () => {
    llm.fallback = toolUse({ title: 'no name, no price' });
    const run = await runCli(['extract', site.at('/product'), '--schema', schemaFile], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('did not match the schema after 3 attempts');
    expect(run.stderr).toContain("must have required property 'name'");
    expect(llm.requests).toHaveLength(3);
    const record = await lastRecord();
    expect(record.status).toBe('failed');
    expect(record).not.toHaveProperty('data');
    expect(record.error).toContain("must have required property 'price'");
    expect(record.metadata).toEqual({ inputTokens: 300, outputTokens: 60, numPagesScraped: 1 });
  });

  it('asks again when the model answers with text instead of the tool', async () => {
    llm.queue.push(textOnly('The teapot costs 49.90 EUR.'), toolUse({ name: 'Aurora Teapot', price: 49.9 }));
    const run = await runCli(['extract', site.at('/product'), '--schema', schemaFile], { env: env() });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ name: 'Aurora Teapot', price: 49.9 });
    expect(llm.requests).toHaveLength(2);
  });
});

describe('API errors', () => {
  it('retries 429, 500 and 529 (overloaded) and then succeeds', async () => {
    llm.queue.push(rateLimited(), serverError(), overloaded(), toolUse({ name: 'Aurora Teapot', price: 49.9 }));
    const run = await runCli(['extract', site.at('/product'), '--schema', schemaFile], { env: env() });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ name: 'Aurora Teapot', price: 49.9 });
    expect(llm.requests).toHaveLength(4);
  });

  it('reports the status and the API message in the job error when retries run out', async () => {
    llm.fallback = overloaded();
    const run = await runCli(['extract', site.at('/product'), '--schema', schemaFile], { env: env({ WEBJOBS_LLM_MAX_RETRIES: '2' }) });
    expect(run.code).toBe(1);
    expect(llm.requests).toHaveLength(3);
    const record = await lastRecord();
    expect(record.status).toBe('failed');
    expect(record.error).toMatch(/529 overloaded_error: Overloaded after 3 attempts/);
    expect(run.stderr).toContain('529');
  });

  it('does not retry a refused key and says which variable to check', async () => {
    llm.fallback = apiError(401, 'authentication_error', 'invalid x-api-key');
    const run = await runCli(['extract', site.at('/product'), '--schema', schemaFile], { env: env() });
    expect(run.code).toBe(1);
    expect(llm.requests).toHaveLength(1);
    expect(run.stderr).toContain('401');
    expect(run.stderr).toContain('ANTHROPIC_API_KEY');
  });

  it('retries a call that times out', async () => {
    llm.queue.push(toolUse({ name: 'slow' , price: 1 }, undefined, 3000), toolUse({ name: 'Aurora Teapot', price: 49.9 }));
    const run = await runCli(['extract', site.at('/product'), '--schema', schemaFile], { env: env({ WEBJOBS_LLM_TIMEOUT_MS: '1000' }) });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ name: 'Aurora Teapot', price: 49.9 });
    expect(llm.requests).toHaveLength(2);
  });
});

describe('extract from a prompt', () => {
  it('generates a schema from the prompt, extracts with it and keeps it in the record', async () => {
    const generated = {
      type: 'object',
      properties: { title: { type: 'string', description: 'headline' }, author: { type: 'string' }, published: { type: 'string' } },
      required: ['title'],
    };
    llm.queue.push(toolUse({ schema: generated }), toolUse({ title: 'Rivers of the North', author: 'Ada Lindqvist', published: '2024-03-03' }));
    const run = await runCli(['extract', site.at('/article'), '--prompt', 'title, author and publication date of the article', '--json'], { env: env() });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const record = JSON.parse(run.stdout);
    expect(record.schema).toEqual(generated);
    expect(record.data).toEqual({ title: 'Rivers of the North', author: 'Ada Lindqvist', published: '2024-03-03' });

    expect(llm.problems).toEqual([]);
    expect(llm.requests).toHaveLength(2);
    expect(messageText(llm.requests[0]!)).toContain('title, author and publication date of the article');
    expect(llm.requests[1]!.body.tools[0].input_schema).toEqual(generated);
    expect(messageText(llm.requests[1]!)).toContain('Written by Ada Lindqvist and published on 3 March 2024');
  });

  it('sends an invalid generated schema back to the model before fetching any page', async () => {
    llm.queue.push(
      toolUse({ schema: { type: 'object', properties: { title: { type: 'text' } } } }),
      toolUse({ schema: { type: 'object', properties: { title: { type: 'string' } } } }),
      toolUse({ title: 'Rivers of the North' }),
    );
    const run = await runCli(['extract', site.at('/article'), '--prompt', 'the title'], { env: env() });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ title: 'Rivers of the North' });
    expect(messageText(llm.requests[1]!)).toContain('/properties/title/type');
  });
});

describe('several pages', () => {
  it('extracts from three URLs in one call that sees every page', async () => {
    const schema = { type: 'object', properties: { people: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, role: { type: 'string' } } } } } };
    const people = [
      { name: 'Mira Okafor', role: 'chief engineer' },
      { name: 'Jonas Berg', role: 'glaze laboratory lead' },
      { name: 'Lea Novak', role: 'shipping desk' },
    ];
    llm.queue.push(toolUse({ people }));
    const urls = ['/team/1', '/team/2', '/team/3'].map((p) => site.at(p));
    const run = await runCli(['extract', ...urls, '--schema', JSON.stringify(schema), '--json'], { env: env() });
    expect(run.code).toBe(0);
    const record = JSON.parse(run.stdout);
    expect(record.data).toEqual({ people });
    expect(record.metadata.numPagesScraped).toBe(3);
    expect(llm.requests).toHaveLength(1);
    const text = messageText(llm.requests[0]!);
    for (const needle of ['Mira Okafor is the chief engineer', 'Jonas Berg leads the glaze', 'Lea Novak runs the shipping', ...urls]) expect(text).toContain(needle);
  });

  it('splits a page longer than the budget into parts, relaxes required per batch, and merges the answers', async () => {
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, years: { type: 'array', items: { type: 'integer' } } },
      required: ['title', 'years'],
    };
    // Every batch answers with the years its text mentions; the title only where it appears.
    llm.fallback = (request) => {
      const text = messageText(request);
      const years = [...text.matchAll(/in year (\d{4})/g)].map((m) => Number(m[1]));
      return toolUse(text.includes('The long chronicle') ? { title: 'The long chronicle', years } : { years });
    };
    const run = await runCli(['extract', site.at('/long'), '--schema', JSON.stringify(schema), '--json'], {
      env: env({ WEBJOBS_EXTRACT_MAX_INPUT_TOKENS: '1000' }),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const record = JSON.parse(run.stdout);
    expect(record.data.title).toBe('The long chronicle');
    expect(record.data.years).toEqual(Array.from({ length: 40 }, (_, i) => 1900 + i));

    expect(llm.requests.length).toBeGreaterThan(1);
    for (const request of llm.requests) {
      expect(request.body.tools[0].input_schema).not.toHaveProperty('required');
      expect(messageText(request)).toMatch(/part="\d+ of \d+"/);
    }
  });

  it('asks the model to merge when the merged batches break the schema', async () => {
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, firstYear: { type: 'array', items: { type: 'integer' }, maxItems: 1 } },
      required: ['title', 'firstYear'],
    };
    llm.fallback = (request) => {
      const text = messageText(request);
      if (text.includes('<partial batch=')) return toolUse({ title: 'The long chronicle', firstYear: [1900] });
      const first = Number(/in year (\d{4})/.exec(text)![1]);
      return toolUse(text.includes('The long chronicle') ? { title: 'The long chronicle', firstYear: [first] } : { firstYear: [first] });
    };
    const run = await runCli(['extract', site.at('/long'), '--schema', JSON.stringify(schema)], { env: env({ WEBJOBS_EXTRACT_MAX_INPUT_TOKENS: '1000' }) });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ title: 'The long chronicle', firstYear: [1900] });
    const merge = llm.requests.at(-1)!;
    expect(messageText(merge)).toContain('<partial batch="2">');
    expect(merge.body.tools[0].input_schema).toEqual(schema);
  });

  it('fails, naming the URL, when one of the pages cannot be scraped', async () => {
    const run = await runCli(['extract', site.at('/product'), site.at('/missing'), '--schema', schemaFile], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`could not scrape ${site.at('/missing')}: the server answered HTTP 404`);
    expect(llm.requests).toHaveLength(0);
  });
});

describe('refused before the job exists', () => {
  it('without ANTHROPIC_API_KEY or OPENAI_API_KEY, for a prompt: exit 2 naming both variables in one line, no job, no page fetched', async () => {
    const before = await jobIds();
    // A schema alone is filled from the page's structured data instead (test/structuredExtract.test.ts).
    const run = await runCli(['extract', site.at('/product'), '--prompt', 'the name and price', '--schema', schemaFile], { env: env({ ANTHROPIC_API_KEY: '' }) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ANTHROPIC_API_KEY');
    expect(run.stderr).toContain('OPENAI_API_KEY');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(await jobIds()).toEqual(before);
    expect(site.requests).toEqual([]);
  });

  it('with an invalid schema: exit 2 pointing at the problem, before any page is fetched', async () => {
    const before = await jobIds();
    const bad = { type: 'object', properties: { price: { type: 'numbr' } } };
    const run = await runCli(['extract', site.at('/product'), '--schema', JSON.stringify(bad)], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('not a valid JSON Schema');
    expect(run.stderr).toContain('/properties/price/type');
    expect(site.requests).toEqual([]);
    expect(llm.requests).toEqual([]);
    expect(await jobIds()).toEqual(before);
  });

  it('with neither a schema nor a prompt: exit 2', async () => {
    const run = await runCli(['extract', site.at('/product')], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('needs a schema, a prompt, or both');
    expect(site.requests).toEqual([]);
  });

  it('with a --schema that is neither a file nor JSON: exit 2 saying so', async () => {
    const run = await runCli(['extract', site.at('/product'), '--schema', 'no-such-file.json'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no file named "no-such-file.json"');
    const broken = await runCli(['extract', site.at('/product'), '--schema', '{"type": "object",'], { env: env() });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('not valid JSON');
    expect(site.requests).toEqual([]);
  });

  it('shows examples in --help', async () => {
    const help = await runCli(['extract', '--help'], { env: env() });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--schema product.schema.json | jq');
    expect(help.stdout).toContain('ANTHROPIC_API_KEY');
  });
});
