/**
 * Saved pages (issue 38, item 7): `webjobs scrape page.html`, `webjobs scrape -`
 * and paths among batch's URLs read the page on this machine, with the HTTP
 * engine's extraction and no network; `serve`, its Firecrawl routes and `mcp`
 * still refuse file:// URLs.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, runShell, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

let site: FixtureServer;
const home = tempHome();
const env = { WEBJOBS_HOME: home };
const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-saved-'));
const saved = path.join(dir, 'article.html');

/** A page as a browser saves it: it still names scripts, styles, images and a refresh on the site it came from. */
function savedPage(): string {
  return html(
    `<article><h1>Saved Lighthouse</h1>${articleText('lighthouse')}<p><a href="${site.at('/next')}">next page</a> <a href="other.html">other</a></p>
     <img src="${site.at('/img.png')}"></article><script src="${site.at('/app.js')}"></script><iframe src="${site.at('/frame')}"></iframe>`,
    {
      title: 'Saved Lighthouse',
      head: `<link rel="stylesheet" href="${site.at('/style.css')}"><meta http-equiv="refresh" content="0; url=${site.at('/moved')}">`,
    },
  );
}

beforeAll(async () => {
  site = await startFixtureServer({
    '/live': (_req, res) => sendHtml(res, html(`<article><h1>Live Harbour</h1>${articleText('harbour')}</article>`, { title: 'Live Harbour' })),
  });
  writeFileSync(saved, savedPage());
});

afterAll(async () => {
  await site?.close();
});

/** Requests the site saw other than for /live: a saved page must cause none. */
const stray = () => site.requests.filter((request) => !request.endsWith(' /live'));

describe('saved pages on the command line', () => {
  it('scrape PATH reads the saved page with no request to the site it names', async () => {
    const result = await runShell('webjobs scrape article.html --json', { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    const { data } = JSON.parse(result.stdout);
    expect(data.markdown).toContain('# Saved Lighthouse');
    expect(data.markdown).toContain('lighthouse');
    expect(data.metadata.url).toBe(pathToFileURL(saved).href);
    expect(data.metadata.engine).toBe('http');
    expect(stray()).toEqual([]);
  });

  it('scrape - reads HTML on stdin and removes the file it kept it in', async () => {
    const result = await runCli(['scrape', '-', '--json'], { env, input: savedPage() });
    expect(result.code, result.stderr).toBe(0);
    const { data } = JSON.parse(result.stdout);
    expect(data.markdown).toContain('# Saved Lighthouse');
    expect(existsSync(new URL(data.metadata.url))).toBe(false);
    expect(stray()).toEqual([]);
    const empty = await runCli(['scrape', '-'], { env, input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^webjobs: nothing on stdin/);
  });

  it('a file:// URL is read as the path is', async () => {
    const result = await runCli(['scrape', pathToFileURL(saved).href, '--formats', 'links'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(site.at('/next'));
  });

  it('batch takes paths among its URLs, in --file lists too', async () => {
    writeFileSync(path.join(dir, 'list.txt'), `${site.at('/live')}\n./article.html\n`);
    const result = await runShell('webjobs batch --file list.txt article.html --jsonl', { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.status)).toEqual(['completed', 'completed', 'completed']);
    const byUrl = new Map(lines.map((line) => [line.url, line.markdown as string]));
    expect(byUrl.get(site.at('/live'))).toContain('Live Harbour');
    expect(byUrl.get(pathToFileURL(saved).href)).toContain('Saved Lighthouse');
    expect(stray()).toEqual([]);
  });

  it('a path that is not there, a folder, or a saved page with --remote: exit 2, one line', async () => {
    const missing = await runShell('webjobs scrape missing.html', { cwd: dir, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe('webjobs: cannot read missing.html: no such file (a saved page is named by its path; a site by its URL, https://...)');
    const folder = await runCli(['scrape', dir], { env });
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/it is a folder/);
    const remote = await runCli(['scrape', saved, '--remote', 'http://127.0.0.1:9'], { env });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/saved page on this machine: --remote reads http\(s\) URLs only/);
    const batch = await runShell('webjobs batch article.html gone.html', { cwd: dir, env });
    expect(batch.code).toBe(2);
    expect(batch.stderr).toMatch(/argument 2: cannot read gone.html: no such file/);
  });

  it('what only a browser does fails the saved page saying so', async () => {
    const result = await runCli(['scrape', saved, '--formats', 'screenshot'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/is a saved page, read without a browser or a network, but the screenshot format is taken in a browser/);
    const browser = await runCli(['scrape', saved, '--engine', 'browser'], { env });
    expect(browser.code).toBe(1);
    expect(browser.stderr).toMatch(/--engine browser renders pages in Chromium/);
  });
});

describe('file:// stays refused where requests come from elsewhere', () => {
  let serve: ServeProcess;
  const KEY = 'saved-pages-key-0123456789';

  beforeAll(async () => {
    serve = await startServe({ env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
  });

  afterAll(async () => {
    await serve?.stop();
  });

  const post = async (route: string, body: unknown) => {
    const response = await fetch(`${serve.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };

  it('serve and its Firecrawl routes answer 400 to a file:// URL', async () => {
    const file = pathToFileURL(saved).href;
    for (const [route, body] of [
      ['/api/scrape', { url: file }],
      ['/api/scrape/batch', { urls: [site.at('/live'), file] }],
      ['/v1/scrape', { url: file }],
      ['/v1/batch/scrape', { urls: [file] }],
    ] as const) {
      const answer = await post(route, body);
      expect(answer.status, `${route}: ${answer.text}`).toBe(400);
      expect(answer.text).toMatch(/http or https/);
    }
  });

  it('webjobs mcp refuses a file:// URL an agent asks for', async () => {
    const client = new Client({ name: 'saved-pages-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: { ...process.env, NO_COLOR: '1', WEBJOBS_HOME: home } as Record<string, string>, stderr: 'ignore' }));
    try {
      const result = (await client.callTool({ name: 'scrape', arguments: { url: pathToFileURL(saved).href } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/http or https/);
      expect(JSON.stringify(result.content)).not.toContain('Saved Lighthouse');
    } finally {
      await client.close();
    }
  });
});
