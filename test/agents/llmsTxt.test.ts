/**
 * llms.txt without a model: `webjobs llmstxt` (the real CLI) and Firecrawl's POST /v1/llmstxt and
 * GET /v1/llmstxt/{id} on a real `serve`, over a small documentation site on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstSentence } from '../../src/agents/llmsTxt.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { html, sendHtml, startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';

const KEY = 'llmstxt-test-key-0123456789';
const env = { WEBJOBS_HOME: tempHome() };
let site: FixtureServer;
let serve: ServeProcess;

const page = (title: string, body: string, description = '') =>
  html(`<main><h1>${title}</h1>${body}</main>`, { title, head: description ? `<meta name="description" content="${description}">` : '' });

beforeAll(async () => {
  site = await startFixtureServer({
    '/': (_req, res) =>
      sendHtml(
        res,
        page('Acme | Tools for builders', '<p>Welcome.</p><a href="/docs/install">Install</a> <a href="/docs/usage">Usage</a> <a href="/blog/launch">Launch</a> <a href="/gone">Gone</a>', 'Acme makes tools for builders.'),
      ),
    '/docs/install': (_req, res) => sendHtml(res, page('Install', '<p>Install Acme with npm in one minute. Then read on.</p>', 'How to install Acme.')),
    '/docs/usage': (_req, res) => sendHtml(res, page('Usage', '<p>Run acme build in your project folder to build it. It takes a minute.</p>')),
    '/blog/launch': (_req, res) => sendHtml(res, page('We launched', '<p>Today we launched Acme for everyone who builds things.</p>', 'The launch post.')),
    '/gone': (_req, res) => sendHtml(res, page('Not found', '<p>No such page.</p>'), 404),
  });
  serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
});

afterAll(async () => {
  await serve?.stop();
  await site?.close();
});

describe('webjobs llmstxt', () => {
  it('writes llms.txt as llmstxt.org defines it: title, summary, sections by first path segment, pages with descriptions', async () => {
    const result = await runCli(['llmstxt', site.at('/')], { env });
    expect(result.code).toBe(0);
    const text = result.stdout;
    expect(text.startsWith('# Acme\n\n> Acme makes tools for builders.\n')).toBe(true);
    expect(text).toContain(`## Docs\n\n- [Install](${site.at('/docs/install')}): How to install Acme.\n- [Usage](${site.at('/docs/usage')}): Run acme build in your project folder to build it.\n`);
    expect(text).toContain(`## Blog\n\n- [We launched](${site.at('/blog/launch')}): The launch post.\n`);
    // A page answered with an HTTP error is no page of the site.
    expect(text).not.toContain('/gone');
  });

  it('--full writes llms-full.txt to -o: every page under its title and URL', async () => {
    const file = `${tempHome()}/llms-full.txt`;
    const result = await runCli(['llmstxt', site.at('/'), '--full', '--max-pages', '3', '-o', file], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('# Acme\n')).toBe(true);
    expect(text).toContain(`Source: ${site.at('/')}`);
    expect(text.match(/^Source: /gm)!.length).toBeLessThanOrEqual(3);
  });

  it('refuses a bad --max-pages with exit 2', async () => {
    const result = await runCli(['llmstxt', site.at('/'), '--max-pages', 'lots'], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    // A crawl may take 100,000 pages; llms.txt holds every page until it is written, so it keeps to 10,000.
    const over = await runCli(['llmstxt', site.at('/'), '--max-pages', '10001'], { env });
    expect(over.code).toBe(2);
    expect(over.stderr).toContain('at most 10,000');
  });
});

describe('POST /v1/llmstxt', () => {
  it('generates llms.txt (and llms-full.txt with showFullText), read with GET /v1/llmstxt/{id}', async () => {
    // Firecrawl's clients send the key as a Bearer token.
    const client = {
      call: async (method: string, path: string, options: { body?: unknown } = {}) => {
        const response = await fetch(`${serve.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${KEY}`, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
        });
        return { status: response.status, body: await response.json() };
      },
    };
    const started = await client.call('POST', '/v1/llmstxt', { body: { url: site.at('/'), maxUrls: 10, showFullText: true } });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ success: true, id: expect.any(String) });
    let answer;
    for (;;) {
      answer = (await client.call('GET', `/v1/llmstxt/${started.body.id}`)).body;
      if (answer.status !== 'processing') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answer).toMatchObject({ success: true, status: 'completed' });
    expect(answer.data.llmstxt).toContain('> Acme makes tools for builders.');
    expect(answer.data.llmstxt).toContain(`- [Install](${site.at('/docs/install')}): How to install Acme.`);
    expect(answer.data.llmsfulltxt).toContain('Install Acme with npm in one minute.');
    const bad = await client.call('POST', '/v1/llmstxt', { body: { url: site.at('/'), maxUrls: 'all' } });
    expect(bad.status).toBe(400);
  });
});

describe('a page\'s first sentence', () => {
  it('is the first prose paragraph up to its full stop, links as their text', () => {
    expect(firstSentence('# Title\n\n- a list\n\nSee [the guide](http://x/g) for more. And then.')).toBe('See the guide for more.');
  });
});
