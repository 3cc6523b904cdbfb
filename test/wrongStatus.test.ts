/**
 * Bad input that `webjobs serve` answered with a 500, or a failed job whose error
 * said nothing useful, through the real CLI's server: an extract schema nested
 * thousands deep, a map of a name that resolves to a private address, and a
 * language model (or whatever stands between) answering something unreadable.
 *
 * The private name: `serve` runs with a preloaded module that has the system
 * resolver answer 127.0.0.1 for names ending in .test, as a line in /etc/hosts
 * would; nothing else resolves differently.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/api/limits.js';
import { runCli, tempHome } from './helpers/cli.js';
import { rawAnswer, startFakeAnthropic, textOnly, toolUseWithInput, type FakeAnthropic } from './helpers/fakeAnthropic.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const KEY = 'status-key-0123456789';
let site: FixtureServer;
let llm: FakeAnthropic;
let server: ServeProcess;
const api = serveClient(() => server.url, KEY);

/** A schema of objects within objects, `levels` deep. */
function deepSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { inner: schema } };
  return schema;
}

/** A module for --import that has dns.promises.lookup answer 127.0.0.1 for *.test names. */
function hostsPreload(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-hosts-'));
  const file = path.join(dir, 'hosts.mjs');
  writeFileSync(
    file,
    `import dns from 'node:dns';
const lookup = dns.promises.lookup.bind(dns.promises);
dns.promises.lookup = async (host, options) => {
  if (!/\\.test\\.?$/i.test(host)) return lookup(host, options);
  const answer = { address: '127.0.0.1', family: 4 };
  return options?.all ? [answer] : answer;
};
`,
  );
  return `--import=${pathToFileURL(file).href}`;
}

const home = tempHome();
const env = () => ({ WEBJOBS_HOME: home, ANTHROPIC_API_KEY: 'sk-test-key', ANTHROPIC_BASE_URL: llm.url, WEBJOBS_LLM_MAX_RETRIES: '0' });

beforeAll(async () => {
  llm = await startFakeAnthropic();
  site = await startFixtureServer({
    '/': (_req, res) => sendHtml(res, html(`<main><h1>Intranet</h1><a href="/a">A</a>${articleText('intranet', 3)}</main>`)),
    '/product': (_req, res) => sendHtml(res, html(`<main><h1>Aurora Teapot</h1><p>Price: 49.90 EUR</p>${articleText('teapots', 3)}</main>`)),
  });
  server = await startServe({
    args: ['--allow-host', new URL(site.url).host, '--quiet'],
    env: { ...env(), WEBJOBS_API_KEYS: `${KEY}:scale`, NODE_OPTIONS: [process.env.NODE_OPTIONS, hostsPreload()].filter(Boolean).join(' ') },
  });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
  await llm?.close();
});

beforeEach(() => {
  llm.reset();
  site.requests.length = 0;
});

describe('an extract schema nested thousands deep', () => {
  it('is a 400 saying how deep a schema may be, not a stack overflow; the CLI says so in one line, exit 2', async () => {
    const schema = deepSchema(1_000);
    const answer = await api.call('POST', '/api/extract', { body: { urls: [site.at('/product')], schema } });
    expect(answer.status).toBe(400);
    const message = `request.schema nests objects and arrays more than ${LIMITS.maxSchemaDepth} levels deep, the limit`;
    expect(answer.body.message).toBe(message);
    const file = path.join(home, 'deep.schema.json');
    writeFileSync(file, JSON.stringify(schema));
    const cli = await runCli(['extract', site.at('/product'), '--schema', file], { env: env() });
    expect(cli).toMatchObject({ code: 2, stdout: '', stderr: `webjobs: ${message}\n` });
    expect(site.requests).toEqual([]);
    expect(llm.requests).toEqual([]);
  });

  it('a schema as deep as the limit allows is taken', async () => {
    const answer = await api.call('POST', '/api/extract', { body: { urls: [site.at('/product')], schema: deepSchema(Math.floor((LIMITS.maxSchemaDepth - 1) / 2)) } });
    expect(answer.status).toBe(200);
    await api.waitFinal(`/api/extract/${answer.body.jobId}`);
  });
});

describe('/api/map of a name that resolves to a private address', () => {
  it('is a 400 with the refusal, as the other routes refuse at start; nothing is fetched', async () => {
    const url = `http://intranet.test:${new URL(site.url).port}/`;
    const answer = await api.call('POST', '/api/map', { body: { url } });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(
      `refused to fetch ${url}: intranet.test (127.0.0.1) is a loopback, private, link-local or metadata address, which this service does not fetch`,
    );
    expect(site.requests).toEqual([]);
    // The site's own address, allowed, is mapped.
    const allowed = await api.call('POST', '/api/map', { body: { url: site.url } });
    expect(allowed.status).toBe(200);
  });
});

describe('a model reply that cannot be read', () => {
  async function failedExtract(): Promise<string> {
    const path = await api.start('extract', { urls: [site.at('/product')], schema: { type: 'object', properties: { name: { type: 'string' } } } });
    expect(await api.waitFinal(path)).toBe('failed');
    return (await api.call('GET', path)).body.error;
  }

  it("a gateway's page instead of a message: the job fails quoting it", async () => {
    llm.fallback = rawAnswer('<html><body><h1>502 Bad Gateway</h1>\n<p>upstream timed out</p></body></html>');
    const error = await failedExtract();
    expect(error).toBe('the Anthropic API answered with something that is not a message: "<html><body><h1>502 Bad Gateway</h1>\\n<p>upstream timed out</p></body></html>"');
  });

  it('JSON of another shape: the job fails quoting it', async () => {
    llm.fallback = rawAnswer(JSON.stringify({ completion: 'The teapot is called Aurora.' }), 'application/json');
    expect(await failedExtract()).toBe('the Anthropic API answered with something that is not a message: {"completion":"The teapot is called Aurora."}');
  });

  it('a tool call whose input is a string, cut short: the job fails quoting it', async () => {
    llm.fallback = toolUseWithInput('{"name": "Aurora Tea');
    expect(await failedExtract()).toBe(
      'the extracted data could not be read: the model called extract_data with something that is not a JSON object: "{\\"name\\": \\"Aurora Tea"',
    );
  });

  it('text three times instead of the tool: the job fails with what the model said last, cut to a short excerpt', async () => {
    llm.fallback = textOnly(`I cannot help with that. ${'Really. '.repeat(100)}`);
    const error = await failedExtract();
    expect(error).toMatch(/^the extracted data did not match the schema after 3 attempts: the model answered without calling the extract_data tool; the model's last answer: "I cannot help with that\. Really\. .*… \(\d+ characters\)$/);
    expect(error.length).toBeLessThan(400);
    expect(llm.requests).toHaveLength(3);
  });
});
