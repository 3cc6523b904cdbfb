/**
 * An article's facts apart from its body (issue 58), on every front end: publishedTime, modifiedTime,
 * author, language and siteName in the page's metadata, from the CLI's JSON (HTTP engine), serve's /api
 * (HTTP engine and Chromium), Firecrawl /v1 and /v2, and the MCP scrape tool, against a page on 127.0.0.1.
 * A page whose markup gives no date nor author: the date line and the byline main content takes out of the body
 * fill them, on both engines.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const KEY = 'wj-article-meta-key';
const home = tempHome();
const ld = {
  '@context': 'https://schema.org',
  '@type': 'NewsArticle',
  headline: 'Die Brücke ist fertig',
  dateModified: '2026-11-13T10:00:00+01:00',
  author: { '@type': 'Person', name: 'Anna Weber' },
  publisher: { '@type': 'Organization', name: 'Tagesblatt Verlag' },
};
const page = html(`<article><h1>Die Brücke ist fertig</h1><p>Von Anna Weber, <time datetime="2026-11-12T09:10:00+01:00">12.11.2026</time></p>${articleText('the bridge', 4)}</article>`, {
  title: 'Die Brücke ist fertig | Tagesblatt',
  lang: 'de',
  head: `<meta property="og:site_name" content="Tagesblatt"><script type="application/ld+json">${JSON.stringify(ld)}</script>`,
});
// No meta, no JSON-LD, no <time>: the date and the author are lines of the body.
const plain = html(`<article><h1>Der Hafen wird gebaut</h1><p>Von Jonas Keller</p><p>Mittwoch, 12. November 2026, 09:10 Uhr</p>${articleText('the harbour', 4)}</article>`, {
  title: 'Der Hafen wird gebaut',
  lang: 'de',
});
const FACTS = { publishedTime: '2026-11-12T09:10:00+01:00', modifiedTime: '2026-11-13T10:00:00+01:00', author: 'Anna Weber', language: 'de', siteName: 'Tagesblatt' };

let site: FixtureServer;
let server: ServeProcess;
const api = serveClient(() => server.url, KEY);

beforeAll(async () => {
  site = await startFixtureServer({ '/bridge': (_req, res) => sendHtml(res, page), '/harbour': (_req, res) => sendHtml(res, plain) });
  server = await startServe({ args: ['--allow-host', new URL(site.url).host, '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
});

describe("an article's facts in metadata, on every front end", () => {
  it('CLI --json (HTTP engine)', async () => {
    const run = await runCli(['scrape', site.at('/bridge'), '--json', '--engine', 'http'], { env: { WEBJOBS_HOME: home } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).data.metadata).toMatchObject(FACTS);
  });

  it('serve /api, HTTP engine and Chromium alike', async () => {
    for (const engine of ['http', 'browser']) {
      const job = await api.start('scrape', { url: site.at('/bridge'), scrapeOptions: { engine } });
      expect(await api.waitFinal(job)).toBe('completed');
      expect((await api.call('GET', job)).body.data.metadata, engine).toMatchObject(FACTS);
    }
  });

  it('the date line and the byline taken out of the body fill the metadata the markup lacks: CLI (HTTP engine), /api in Chromium', async () => {
    const taken = { publishedTime: 'Mittwoch, 12. November 2026, 09:10 Uhr', author: 'Jonas Keller' };
    const run = await runCli(['scrape', site.at('/harbour'), '--json', '--engine', 'http'], { env: { WEBJOBS_HOME: home } });
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout).data as { metadata: Record<string, string>; markdown: string };
    expect(data.metadata).toMatchObject(taken);
    expect(data.markdown).not.toContain('Jonas Keller');
    expect(data.markdown).not.toContain('09:10');
    expect(data.markdown).toContain('Paragraph 4 about the harbour');
    const job = await api.start('scrape', { url: site.at('/harbour'), scrapeOptions: { engine: 'browser' } });
    expect(await api.waitFinal(job)).toBe('completed');
    const browser = (await api.call('GET', job)).body.data as { metadata: Record<string, string>; markdown: string };
    expect(browser.metadata).toMatchObject(taken);
    expect(browser.markdown).not.toContain('Jonas Keller');
  });

  it('Firecrawl /v1/scrape and /v2/scrape', async () => {
    for (const version of ['v1', 'v2']) {
      const response = await fetch(`${server.url}/${version}/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: site.at('/bridge'), formats: ['markdown'] }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: { metadata: unknown } }).data.metadata, version).toMatchObject(FACTS);
    }
  });

  it('the MCP scrape tool, in its structured content', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--allow-host', new URL(site.url).host], env: { ...process.env, WEBJOBS_HOME: home } as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'webjobs-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: 'scrape', arguments: { url: site.at('/bridge') } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { data: { metadata: unknown } }).data.metadata).toMatchObject(FACTS);
    } finally {
      await client.close();
    }
  });
});
