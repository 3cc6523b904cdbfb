/**
 * Chunks and token budgets through every front end but MCP (test/agents/agentsMcp.test.ts): the real
 * CLI (scrape, batch, crawl), `serve`'s /api and the CLI with --remote, on a documentation-like page
 * served on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenCounter, type CountTokens } from '../../src/agents/tokens.js';
import type { Chunk } from '../../src/api/types.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { html, sendHtml, startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { serveClient } from '../helpers/serveClient.js';

const KEY = 'agents-test-key-0123456789';
const env = { WEBJOBS_HOME: tempHome() };
let site: FixtureServer;
let serve: ServeProcess;
let count: CountTokens;

const rows = Array.from({ length: 60 }, (_, i) => `<tr><td>opt${i}</td><td>Sets setting number ${i} of the client, read once at start.</td></tr>`).join('');
const code = Array.from({ length: 80 }, (_, i) => `const v${i} = await client.call("m${i}", { retries: ${i % 4} });`).join('\n');
const paragraphs = Array.from({ length: 12 }, (_, i) => `<p>Paragraph ${i} explains one more thing about the client, in a sentence or two. It goes on a little.</p>`).join('');
const DOC = html(
  `<main><h1>Client guide</h1><p>The client talks to the service over HTTP.</p>
  <h2>Install</h2><pre><code class="language-sh">npm install client</code></pre><ul><li>Node 22 or newer</li><li>An API key</li></ul>
  <h2>Options</h2><table><thead><tr><th>Name</th><th>What it does</th></tr></thead><tbody>${rows}</tbody></table>
  <h2>Example</h2><pre><code class="language-js">${code}</code></pre>
  <h2>Explanation</h2>${paragraphs}</main>`,
  { title: 'Client guide' },
);

beforeAll(async () => {
  count = await tokenCounter();
  site = await startFixtureServer({
    '/': (_req, res) => sendHtml(res, html(`<main><h1>Docs</h1><p>Start here.</p><a href="/guide">Guide</a></main>`, { title: 'Docs' })),
    '/guide': (_req, res) => sendHtml(res, DOC),
  });
  serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
});

afterAll(async () => {
  await serve?.stop();
  await site?.close();
});

interface Page {
  markdown?: string;
  chunks?: Chunk[];
  metadata: Record<string, unknown>;
}

async function scrapeJson(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ data: Page; stderr: string }> {
  const result = await runCli(['scrape', ...args, '--json'], { env: { ...env, ...extraEnv } });
  expect(result.stderr).not.toMatch(/error/i);
  expect(result.code).toBe(0);
  return { data: (JSON.parse(result.stdout) as { data: Page }).data, stderr: result.stderr };
}

function expectChunks(chunks: Chunk[] | undefined, budget: number): void {
  expect(chunks?.length).toBeGreaterThan(2);
  chunks!.forEach((chunk, i) => {
    expect(chunk.index).toBe(i);
    expect(chunk.tokens).toBe(count(chunk.text));
    expect(chunk.tokens).toBeLessThanOrEqual(budget);
  });
  expect(chunks![0]!.headings).toEqual(['Client guide']);
  expect(chunks!.some((c) => c.headings.join('/') === 'Client guide/Options' && c.text.startsWith('| Name | What it does |'))).toBe(true);
}

/** Chunks of whole blocks are slices of the Markdown, in order; the pieces of a block split (code, a table) are fenced or headed again. */
function inOrder(markdown: string, chunks: Chunk[]): void {
  let at = 0;
  for (const chunk of chunks) {
    const found = markdown.indexOf(chunk.text, at);
    if (found >= 0) at = found + chunk.text.length;
    else expect(chunk.text).toMatch(/(^|\n)(```|\| Name \|)/);
  }
  expect(markdown.slice(at).trim()).toBe('');
}

describe('--formats chunks', () => {
  it('gives each page its chunks, within --chunk-tokens, and no markdown unless asked', async () => {
    const { data } = await scrapeJson([site.at('/guide'), '--formats', 'chunks', '--chunk-tokens', '128']);
    expect(data.markdown).toBeUndefined();
    expectChunks(data.chunks, 128);
    const both = await scrapeJson([site.at('/guide'), '--formats', 'markdown,chunks']);
    expect(both.data.markdown).toContain('# Client guide');
    expectChunks(both.data.chunks, 512);
    inOrder(both.data.markdown!, both.data.chunks!);
  });

  it('prints the chunks as JSON without --json', async () => {
    const result = await runCli(['scrape', site.at('/guide'), '--formats', 'chunks', '--chunk-tokens', '64'], { env });
    expect(result.code).toBe(0);
    expectChunks(JSON.parse(result.stdout) as Chunk[], 64);
  });

  it('works in a crawl and through --remote', async () => {
    const crawl = await runCli(['crawl', site.at('/'), '--formats', 'chunks', '--chunk-tokens', '100', '--json'], { env });
    expect(crawl.code).toBe(0);
    const pages = (JSON.parse(crawl.stdout) as { data: (Page & { url: string })[] }).data;
    expectChunks(pages.find((p) => p.url.endsWith('/guide'))!.chunks, 100);
    const remote = await scrapeJson([site.at('/guide'), '--formats', 'chunks', '--chunk-tokens', '100', '--remote', serve.url, '--api-key', KEY]);
    expectChunks(remote.data.chunks, 100);
  });

  it('is a format of /api, with scrapeOptions.chunkTokens', async () => {
    const client = serveClient(() => serve.url, KEY);
    const job = await client.start('scrape', { url: site.at('/guide'), scrapeOptions: { formats: ['chunks'], chunkTokens: 200 } });
    expect(await client.waitFinal(job)).toBe('completed');
    const { body } = await client.call('GET', job);
    expectChunks(body.data.chunks, 200);
    const refused = await client.call('POST', '/api/scrape', { body: { url: site.at('/guide'), scrapeOptions: { formats: ['chunks'], chunkTokens: 8 } } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('chunkTokens');
  });
});

describe('--max-tokens', () => {
  it("cuts each page's Markdown after the last whole block that fits, says so once on stderr", async () => {
    const whole = await scrapeJson([site.at('/guide')]);
    const { data, stderr } = await scrapeJson([site.at('/guide'), '--max-tokens', '300']);
    expect(data.metadata.truncated).toBe(true);
    expect(whole.data.metadata.truncated).toBeUndefined();
    expect(count(data.markdown!)).toBeLessThanOrEqual(300);
    expect(whole.data.markdown!.startsWith(data.markdown!)).toBe(true);
    // After a whole block: what follows the cut in the whole page starts a new block.
    expect(whole.data.markdown!.slice(data.markdown!.length)).toMatch(/^\n\n/);
    expect(stderr.match(/max-tokens/g)).toHaveLength(1);
  });

  it('cuts first, then chunks what is left', async () => {
    const { data } = await scrapeJson([site.at('/guide'), '--formats', 'markdown,chunks', '--max-tokens', '300', '--chunk-tokens', '64']);
    expect(data.metadata.truncated).toBe(true);
    inOrder(data.markdown!, data.chunks!);
    expect(data.chunks!.reduce((sum, c) => sum + c.tokens, 0)).toBeLessThanOrEqual(320);
  });

  it('says once for a batch how many pages it cut', async () => {
    const result = await runCli(['batch', site.at('/guide'), site.at('/'), '--max-tokens', '100'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/max-tokens/g)).toHaveLength(1);
    expect(result.stderr).toContain('1 of 2 pages');
  });

  it.each([['--max-tokens', '15'], ['--max-tokens', 'many'], ['--chunk-tokens', '0'], ['--chunk-tokens', '1e3']])('refuses %s %s with exit 2', async (flag, value) => {
    const args = ['scrape', site.at('/guide'), flag, value, ...(flag === '--chunk-tokens' ? ['--formats', 'chunks'] : [])];
    const result = await runCli(args, { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(flag);
  });

  it('refuses --chunk-tokens without the chunks format', async () => {
    const result = await runCli(['scrape', site.at('/guide'), '--chunk-tokens', '100'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--formats chunks');
  });
});
