/**
 * `webjobs extract` with any OpenAI-compatible model server: the real CLI (and
 * serve, and mcp), a real Chromium, fixture pages, and stand-ins for the OpenAI
 * Chat Completions API and the Anthropic Messages API, all on 127.0.0.1.
 * Covers which provider is chosen, each step of the structured-output fallback
 * (tool call, response_format json_schema, JSON in the text) and its final error,
 * the time allowed per call, and the provider on serve and in MCP.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, runCli, startCli, tempHome } from './helpers/cli.js';
import { startFakeAnthropic, toolUse, type FakeAnthropic } from './helpers/fakeAnthropic.js';
import { answer, apiError, lastTurn, startFakeOpenAi, text, toolArguments, type FakeOpenAi } from './helpers/fakeOpenAi.js';
import { html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { serveClient } from './helpers/serveClient.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

let site: FixtureServer;
let openai: FakeOpenAi;
let anthropic: FakeAnthropic;
const home = tempHome();

const productSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' } },
  required: ['name', 'price'],
};
const schemaFile = path.join(home, 'product.schema.json');
writeFileSync(schemaFile, JSON.stringify(productSchema));
const product = { name: 'Aurora Teapot', price: 49.9 };

/** Only OPENAI_* set, unless a test adds ANTHROPIC_*. */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    WEBJOBS_HOME: home,
    OPENAI_API_KEY: 'sk-openai-test',
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: '',
    ANTHROPIC_BASE_URL: anthropic.url,
    WEBJOBS_EXTRACT_PROVIDER: '',
    WEBJOBS_MODEL: '',
    WEBJOBS_LLM_MAX_RETRIES: '',
    WEBJOBS_LLM_TIMEOUT_MS: '',
    WEBJOBS_EXTRACT_MAX_INPUT_TOKENS: '',
    ...extra,
  };
}

const extract = (args: string[] = [], extra: NodeJS.ProcessEnv = {}) => runCli(['extract', site.at('/product'), '--schema', schemaFile, ...args], { env: env(extra) });

async function lastRecord(): Promise<Record<string, unknown>> {
  const listed = JSON.parse((await runCli(['jobs', '--json'], { env: env() })).stdout) as { jobId: string; kind: string }[];
  const id = listed.find((j) => j.kind === 'extract')!.jobId; // newest first
  return JSON.parse((await runCli(['result', id], { env: env() })).stdout);
}

beforeAll(async () => {
  openai = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
  site = await startFixtureServer({
    '/product': (_req, res) =>
      sendHtml(res, html('<main><h1>Aurora Teapot</h1><p>A cast-iron teapot that keeps tea warm for an hour.</p><p>Price: 49.90 EUR</p></main>', { title: 'Aurora Teapot' })),
  });
});

afterAll(async () => {
  await site?.close();
  await openai?.close();
  await anthropic?.close();
});

beforeEach(() => {
  openai.reset();
  anthropic.reset();
  site.requests.length = 0;
});

describe('the OpenAI provider', () => {
  it('with only OPENAI_API_KEY set: a forced function call to OPENAI_BASE_URL with the key, the default model, and the tokens in the record', async () => {
    openai.queue.push(answer(product, { prompt_tokens: 321, completion_tokens: 12 }));
    const run = await extract(['--prompt', 'the teapot and its price']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(product);
    expect(openai.problems).toEqual([]);
    expect(openai.requests).toHaveLength(1);
    const sent = openai.requests[0]!;
    expect(sent.headers.authorization).toBe('Bearer sk-openai-test');
    expect(sent.body.model).toBe('gpt-5.4-mini');
    expect(sent.body.tools[0].function.parameters).toEqual(productSchema);
    expect(sent.body.tool_choice).toEqual({ type: 'function', function: { name: 'extract_data' } });
    expect(sent.body.response_format).toBeUndefined();
    expect(sent.body.messages[1].content).toContain('Price: 49.90 EUR');
    expect(sent.body.messages[1].content).toContain('the teapot and its price');
    expect(anthropic.requests).toHaveLength(0);
    expect(await lastRecord()).toMatchObject({ status: 'completed', data: product, metadata: { inputTokens: 321, outputTokens: 12, numPagesScraped: 1 } });
  });

  it('sends validation errors back as the tool message and accepts the corrected call', async () => {
    openai.queue.push(answer({ name: 'Aurora Teapot', price: '49,90 EUR' }), answer(product));
    const run = await extract();
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(product);
    expect(openai.problems).toEqual([]);
    const messages = openai.requests[1]!.body.messages;
    expect(messages[2]).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'extract_data', arguments: '{"name":"Aurora Teapot","price":"49,90 EUR"}' } }] });
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: messages[2].tool_calls[0].id });
    expect(messages[3].content).toContain('/price: must be number');
  });

  it('function arguments that are not JSON: told so, and the corrected call is accepted', async () => {
    openai.queue.push(toolArguments('{"name": "Aurora Teapot", "price": 49.9'), answer(product));
    const run = await extract();
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(product);
    expect(lastTurn(openai.requests[1]!)).toContain('the arguments of extract_data are not valid JSON');
  });

  it('a refused key and an unknown model: the error names OPENAI_API_KEY, or --model', async () => {
    openai.fallback = apiError(401, 'Incorrect API key provided: sk-opena***test');
    const refused = await extract();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the Chat Completions API at ${openai.url} refused the key (401: Incorrect API key provided`);
    expect(refused.stderr).toContain('check OPENAI_API_KEY');
    openai.fallback = apiError(404, 'model "llama9" not found, try pulling it first');
    const unknown = await extract(['--provider', 'openai', '--model', 'llama9']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('does not know model "llama9" (404: model "llama9" not found, try pulling it first); pick another with --model');
  });
});

describe('structured output falls back', () => {
  it('1 -> 2: a server that refuses tools (400) is asked with response_format json_schema', async () => {
    openai.tools = 'reject';
    openai.queue.push(answer(product));
    const run = await extract(['--model', 'gemma:2b']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(product);
    expect(openai.problems).toEqual([]);
    expect(openai.requests).toHaveLength(2);
    const second = openai.requests[1]!.body;
    expect(second.tools).toBeUndefined();
    expect(second.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'extract_data', description: expect.any(String), schema: productSchema, strict: false } });
  });

  it('1 -> 2: a model that answers in text instead of calling the function is asked with response_format', async () => {
    openai.tools = 'ignore';
    openai.queue.push(answer(product), answer(product));
    const run = await extract();
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(product);
    expect(openai.requests.map((r) => [r.body.tools !== undefined, r.body.response_format !== undefined])).toEqual([
      [true, false],
      [false, true],
    ]);
  });

  it('1 -> 2 -> 3: tools ignored, response_format refused: the JSON in a ```json block of the text is taken', async () => {
    openai.tools = 'ignore';
    openai.responseFormat = 'reject';
    openai.queue.push(text('I read the page. The teapot is the Aurora.'), answer(product));
    const run = await extract();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(product);
    expect(openai.problems).toEqual([]);
    expect(openai.requests).toHaveLength(3);
    const third = openai.requests[2]!.body;
    expect(third.tools).toBeUndefined();
    expect(third.response_format).toBeUndefined();
    expect(third.messages[1].content).toContain('```json');
    expect(third.messages[1].content).toContain(JSON.stringify(productSchema));
  });

  it('3: JSON that does not match the schema is asked again once with the errors, and the corrected JSON taken', async () => {
    openai.tools = 'reject';
    openai.responseFormat = 'reject';
    openai.queue.push(answer({ name: 'Aurora Teapot', price: '49,90 EUR' }), answer(product));
    const run = await extract();
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(product);
    expect(openai.requests).toHaveLength(4);
    const retry = openai.requests[3]!.body.messages;
    expect(retry[2]).toMatchObject({ role: 'assistant', content: expect.stringContaining('"price": "49,90 EUR"') });
    expect(retry[3].role).toBe('user');
    expect(retry[3].content).toContain('/price: must be number');
  });

  it('3: text whose JSON does not parse is asked again with the parse error', async () => {
    openai.tools = 'reject';
    openai.responseFormat = 'reject';
    openai.queue.push(text('```json\n{name: "Aurora Teapot", price: 49.9}\n```'), answer(product));
    const run = await extract();
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(product);
    expect(lastTurn(openai.requests[3]!)).toContain('the JSON in the answer does not parse');
  });

  it('4: a model that never gives JSON: the job fails saying what each of the three ways came to', async () => {
    openai.tools = 'ignore';
    openai.responseFormat = 'ignore';
    openai.fallback = text('Sorry, I cannot read web pages.');
    const run = await extract();
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(openai.requests).toHaveLength(4); // tool, response_format, text and its one retry
    const error = (await lastRecord()).error as string;
    expect(error).toBe(
      'the extracted data: openai model "gpt-5.4-mini" gave no valid answer by any of tool calling, response_format json_schema, JSON in the text: ' +
        'tool calling: the model answered without calling the extract_data tool; it answered: "Sorry, I cannot read web pages." | ' +
        'response_format json_schema: the model answered without a JSON object; it answered: "Sorry, I cannot read web pages." | ' +
        'JSON in the text: did not match the schema after 2 attempts: the model answered without a JSON object; the model\'s last answer: "Sorry, I cannot read web pages."',
    );
    expect(run.stderr).toContain(error);
  });

  it('4: a server that refuses tools and response_format, and JSON that stays invalid: the error gives the refusals and the problems', async () => {
    openai.tools = 'reject';
    openai.responseFormat = 'reject';
    openai.fallback = answer({ name: 'Aurora Teapot' });
    const run = await extract();
    expect(run.code).toBe(1);
    const error = (await lastRecord()).error as string;
    expect(error).toContain('tool calling: the server refused it (400: registry.ollama.ai/library/gpt-5.4-mini:latest does not support tools)');
    expect(error).toContain("response_format json_schema: the server refused it (400: Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.)");
    expect(error).toContain("JSON in the text: did not match the schema after 2 attempts: /: must have required property 'price'");
  });

  it('a refused mode is not asked again by the later calls of the same job (schema generation, then extraction)', async () => {
    openai.tools = 'reject';
    openai.queue.push(answer({ schema: productSchema }), answer(product));
    const run = await runCli(['extract', site.at('/product'), '--prompt', 'the name and price of the teapot'], { env: env() });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(product);
    expect(openai.requests.map((r) => (r.body.tools ? 'tools' : r.body.response_format ? r.body.response_format.json_schema.name : 'text'))).toEqual([
      'tools',
      'define_schema',
      'extract_data',
    ]);
  });
});

describe('choosing the provider', () => {
  it('both keys set: Anthropic, the first; --provider openai chooses the other, where WEBJOBS_MODEL (the default provider\'s) does not apply', async () => {
    const both = { ANTHROPIC_API_KEY: 'sk-ant-test', WEBJOBS_MODEL: 'claude-opus-4-5' };
    anthropic.queue.push(toolUse(product));
    const byDefault = await extract([], both);
    expect(byDefault.code).toBe(0);
    expect(anthropic.requests).toHaveLength(1);
    expect(anthropic.requests[0]!.body.model).toBe('claude-opus-4-5');
    expect(openai.requests).toHaveLength(0);

    openai.queue.push(answer(product), answer(product));
    const chosen = await extract(['--provider', 'openai'], both);
    expect(chosen.code).toBe(0);
    expect(openai.requests[0]!.body.model).toBe('gpt-5.4-mini');
    const named = await extract(['--provider', 'openai', '--model', 'llama3.1'], both);
    expect(named.code).toBe(0);
    expect(openai.requests[1]!.body.model).toBe('llama3.1');
    expect(anthropic.requests).toHaveLength(1);
  });

  it('WEBJOBS_EXTRACT_PROVIDER=openai makes it the default although ANTHROPIC_API_KEY is set; WEBJOBS_MODEL is then its model', async () => {
    openai.queue.push(answer(product));
    const run = await extract([], { ANTHROPIC_API_KEY: 'sk-ant-test', WEBJOBS_EXTRACT_PROVIDER: 'openai', WEBJOBS_MODEL: 'qwen2.5' });
    expect(run.code).toBe(0);
    expect(openai.requests[0]!.body.model).toBe('qwen2.5');
    expect(anthropic.requests).toHaveLength(0);
  });

  it('bad input: an unknown provider, a provider without its key, a bad WEBJOBS_EXTRACT_PROVIDER: exit 2, one line, nothing fetched', async () => {
    const unknown = await extract(['--provider', 'mistral']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("argument 'mistral' is invalid. Allowed choices are anthropic, openai.");
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);

    const noKey = await extract(['--provider', 'anthropic']);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr.trim()).toBe('webjobs: extract with the anthropic provider needs ANTHROPIC_API_KEY (get one at https://console.anthropic.com/)');

    const noOpenAiKey = await extract(['--provider', 'openai'], { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: 'sk-ant-test' });
    expect(noOpenAiKey.code).toBe(2);
    expect(noOpenAiKey.stderr).toContain('extract with the openai provider needs OPENAI_API_KEY (for a local server that needs none, any value, e.g. OPENAI_API_KEY=ollama');
    expect(noOpenAiKey.stderr.trim().split('\n')).toHaveLength(1);

    const badEnv = await extract([], { WEBJOBS_EXTRACT_PROVIDER: 'gemini' });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr.trim()).toBe('webjobs: WEBJOBS_EXTRACT_PROVIDER must be anthropic or openai, got "gemini"');

    expect(site.requests).toEqual([]);
    expect(openai.requests).toEqual([]);
  });

  it('--help names both providers and shows the Ollama example', async () => {
    const help = await runCli(['extract', '--help'], { env: env() });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--provider <name>');
    expect(help.stdout).toContain('OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_API_KEY=ollama');
  });
});

describe('progress', () => {
  it('on a terminal, the spinner on stderr names the provider and model it waits for (off a terminal stderr stays empty: see the first test)', async () => {
    openai.queue.push(answer(product, undefined, 1000));
    const quoted = [process.execPath, BIN, 'extract', site.at('/product'), '--schema', schemaFile, '--model', 'llama3.1'].map((a) => `'${a}'`).join(' ');
    // script(1) gives the CLI a terminal; stty gives it a width, as a real one has.
    const child = spawn('script', ['-qec', `stty cols 100; ${quoted}`, '/dev/null'], { env: { ...process.env, ...env(), NO_COLOR: '1', CI: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    const [code] = (await once(child, 'close')) as [number];
    expect(code).toBe(0);
    expect(output).toContain('Extracting from 1 page with openai llama3.1');
    expect(output).toContain('"name": "Aurora Teapot"');
  });
});

describe('the time allowed per model call', () => {
  it('a model slower than WEBJOBS_LLM_TIMEOUT_MS fails the job saying so', async () => {
    openai.fallback = answer(product, undefined, 20_000);
    const run = await extract([], { WEBJOBS_LLM_TIMEOUT_MS: '400', WEBJOBS_LLM_MAX_RETRIES: '0' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the Chat Completions API at ${openai.url} did not answer within 400 ms (after 1 attempts; raise WEBJOBS_LLM_TIMEOUT_MS)`);
  });

  it('Ctrl-C while the model is thinking aborts the call: the server sees the request go away, the CLI ends 130', async () => {
    openai.fallback = answer(product, undefined, 60_000);
    const requestGone = new Promise<void>((resolve) => {
      openai.onRequest = (_request, res) => res.on('close', () => resolve());
    });
    const arrived = new Promise<void>((resolve) => {
      const previous = openai.onRequest!;
      openai.onRequest = (request, res) => {
        previous(request, res);
        resolve();
      };
    });
    const cli = startCli(['extract', site.at('/product'), '--schema', schemaFile], { env: env() });
    await arrived;
    cli.child.kill('SIGINT');
    await requestGone;
    const done = await cli.done;
    expect(done.code).toBe(130);
    expect(openai.requests).toHaveLength(1);
  });
});

describe('serve and MCP', () => {
  const KEY = 'k-extract-openai';
  let server: ServeProcess | undefined;
  const api = serveClient(() => server!.url, KEY);

  // Both keys; the default is openai llama3.1 by serve's flags.
  beforeAll(async () => {
    server = await startServe({
      args: ['--allow-host', new URL(site.url).host, '--extract-provider', 'openai', '--extract-model', 'llama3.1', '--quiet'],
      env: { ...env({ ANTHROPIC_API_KEY: 'sk-ant-test' }), WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` },
    });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('serve: the request field provider (and model) chooses; --extract-provider is the default; an unknown provider is a 400', async () => {
    openai.queue.push(answer(product));
    const byDefault = await api.start('extract', { urls: [site.at('/product')], schema: productSchema });
    expect(await api.waitFinal(byDefault)).toBe('completed');
    expect((await api.call('GET', byDefault)).body.data).toEqual(product);
    expect(openai.requests[0]!.body.model).toBe('llama3.1');

    anthropic.queue.push(toolUse(product));
    const claude = await api.start('extract', { urls: [site.at('/product')], schema: productSchema, provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(await api.waitFinal(claude)).toBe('completed');
    expect(anthropic.requests[0]!.body.model).toBe('claude-haiku-4-5');

    const bad = await api.call('POST', '/api/extract', { body: { urls: [site.at('/product')], schema: productSchema, provider: 'mistral' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('request.provider: unknown model provider "mistral" (use anthropic or openai)');
  });

  it("serve: Firecrawl's /v2/extract, which has no field for the model, uses serve's default", async () => {
    openai.queue.push(answer(product));
    const firecrawl = (method: string, route: string, body?: unknown) =>
      fetch(`${server!.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const started = await firecrawl('POST', '/v2/extract', { urls: [site.at('/product')], schema: productSchema });
    expect(started.status).toBe(200);
    let status = await firecrawl('GET', `/v2/extract/${started.body.id}`);
    while (status.body.status === 'processing') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await firecrawl('GET', `/v2/extract/${started.body.id}`);
    }
    expect(status.body).toMatchObject({ success: true, status: 'completed', data: product });
    expect(openai.requests[0]!.body.model).toBe('llama3.1');
    expect(anthropic.requests).toHaveLength(0);
  });

  it('serve --extract-provider openai without OPENAI_API_KEY does not start: exit 2', async () => {
    const run = await runCli(['serve', '--port', '0', '--extract-provider', 'openai'], { env: env({ OPENAI_API_KEY: '', ANTHROPIC_API_KEY: 'sk-ant-test' }) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('extract with the openai provider needs OPENAI_API_KEY');
  });

  it('MCP: the extract tool takes provider and model', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--allow-host', new URL(site.url).host],
      env: { ...process.env, NO_COLOR: '1', ...env({ ANTHROPIC_API_KEY: 'sk-ant-test' }) } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'webjobs-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const props = tools.find((t) => t.name === 'extract')!.inputSchema.properties as Record<string, { enum?: string[] }>;
      expect(props.provider!.enum).toEqual(['anthropic', 'openai']);
      openai.queue.push(answer(product));
      const result = (await client.callTool({ name: 'extract', arguments: { urls: [site.at('/product')], schema: productSchema, provider: 'openai', model: 'llama3.1' } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ kind: 'extract', status: 'completed', data: product });
      expect(openai.requests[0]!.body.model).toBe('llama3.1');
      expect(anthropic.requests).toHaveLength(0);
      const bad = (await client.callTool({ name: 'extract', arguments: { urls: [site.at('/product')], schema: productSchema, provider: 'mistral' } })) as CallToolResult;
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
