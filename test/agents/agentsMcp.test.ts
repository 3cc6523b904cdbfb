/**
 * MCP answers sized for agents (issue 57), through the SDK's own client and the built CLI: page
 * content sent once, a compact tools/list, maxChars and maxTokens with the cursor, chunks, a page
 * answered with an HTTP error as an error, a screenshot as image content, and a refused private
 * address naming the flags that allow it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenCounter, type CountTokens } from '../../src/agents/tokens.js';
import { BIN, tempHome } from '../helpers/cli.js';
import { html, sendHtml, startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { pngSize } from '../helpers/png.js';

let site: FixtureServer;
let count: CountTokens;
const clients: Client[] = [];

const paragraphs = Array.from({ length: 60 }, (_, i) => `<p>Paragraph ${i}: the river bends past the mill and the orchard, then on towards the sea.</p>`).join('\n');

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env: { ...process.env, WEBJOBS_HOME: tempHome() } as Record<string, string>, stderr: 'ignore' });
  const client = new Client({ name: 'agents-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

let local: Client;
beforeAll(async () => {
  count = await tokenCounter();
  site = await startFixtureServer({
    '/long': (_req, res) => sendHtml(res, html(`<main><h1>Long</h1>${paragraphs}</main>`, { title: 'Long' })),
    '/broken': (_req, res) => sendHtml(res, html('<main><h1>Internal Server Error</h1><p>Something broke.</p></main>'), 500),
  });
  local = await connect(['--allow-host', new URL(site.url).host]);
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await site?.close();
});

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const structured = (result: CallToolResult): any => result.structuredContent;

describe('MCP answers sized for agents', () => {
  // 27.6 KB before (without search, page actions, profiles, maxDepth); 19.2 KB compacted, 24.9 KB with those
  // four added (the scrape options, actions among them, are in three tools' schemas).
  it('lists the tools in a compact tools/list (27.6 KB before, without search or actions)', async () => {
    const list = await local.listTools();
    expect(JSON.stringify(list).length).toBeLessThan(26_000);
    for (const tool of list.tools) expect(tool.description!.length).toBeLessThan(300);
  });

  it('sends page content once: in the text, not again in the structured content', async () => {
    const result = await call(local, 'scrape', { url: site.at('/long') });
    expect(textOf(result)).toContain('Paragraph 59');
    expect(JSON.stringify(result.structuredContent)).not.toContain('Paragraph');
    expect(structured(result).data.metadata.title).toBe('Long');
  });

  it('keeps to maxChars and maxTokens, the cursor reading on', async () => {
    const small = await call(local, 'scrape', { url: site.at('/long'), maxChars: 500 });
    expect(small.isError).toBeFalsy();
    expect(structured(small).data.chars[1]).toBeLessThanOrEqual(500);
    const cursor = structured(small).nextCursor as string;
    expect(cursor).toBeTruthy();
    const jobId = structured(small).jobId as string;
    const next = await call(local, 'job_result', { jobId, cursor, maxChars: 500 });
    expect(structured(next).data.chars[0]).toBe(structured(small).data.chars[1]);
    const tokens = await call(local, 'job_result', { jobId, maxTokens: 200 });
    expect(count(textOf(tokens))).toBeLessThanOrEqual(200);
    expect(structured(tokens).nextCursor).toBeTruthy();
  });

  it('gives chunks and keeps the page within scrapeOptions.maxTokens', async () => {
    const result = await call(local, 'scrape', { url: site.at('/long'), scrapeOptions: { formats: ['chunks'], chunkTokens: 100, maxTokens: 400 } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('"headings": [');
    expect(textOf(result)).toContain('cut at scrapeOptions.maxTokens');
    expect(structured(result).data.metadata.truncated).toBe(true);
  });

  it('makes a page answered with HTTP 500 an error: isError in scrape, (failed: HTTP 500) in batch_scrape', async () => {
    const one = await call(local, 'scrape', { url: site.at('/broken') });
    expect(one.isError).toBe(true);
    expect(textOf(one)).toContain('HTTP 500');
    const batch = await call(local, 'batch_scrape', { urls: [site.at('/broken'), site.at('/long')] });
    expect(textOf(batch)).toContain(`${site.at('/broken')} (failed: HTTP 500)`);
    expect(textOf(batch)).toContain(`${site.at('/long')} (completed)`);
  });

  it('sends a screenshot as image content', async () => {
    const result = await call(local, 'scrape', { url: site.at('/long'), scrapeOptions: { formats: ['screenshot'] } });
    expect(result.isError).toBeFalsy();
    const image = result.content.find((part) => part.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(pngSize(Buffer.from((image as { data: string }).data, 'base64')).width).toBeGreaterThan(100);
  });

  it('names --allow-host and --allow-private when it refuses a private address', async () => {
    const guarded = await connect([]);
    const before = site.requests.length;
    const refused = await call(guarded, 'scrape', { url: site.at('/long') });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('--allow-host');
    expect(textOf(refused)).toContain('--allow-private');
    expect(site.requests.length).toBe(before);
  });
});
