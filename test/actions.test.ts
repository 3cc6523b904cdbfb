/**
 * Page actions (issue 53) in a real Chromium against loopback pages: each action,
 * "Load more", an endless list, a virtualized list, the record's `actions`, the
 * limits refused before any page is read, a selector that never appears, a PDF.
 * One `serve` (one browser) for the browser cases; the CLI for its flags and exit codes.
 */
import { statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { actionRoutes } from './helpers/actionSite.js';
import { html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { pdfDocument } from './helpers/pdf.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const KEY = 'actions-key-0123456789';
const OTHER_KEY = 'actions-other-key-0123456789';
let site: FixtureServer;
let server: ServeProcess;
/** The private network: a server on a port serve does not allow, counting every connection it gets. */
let refused: { server: http.Server; port: number; connections: number };
const api = serveClient(() => server.url, KEY);

beforeAll(async () => {
  const refusedServer = http.createServer((_req, res) => res.end('<h1>Internal secret</h1>'));
  refused = { server: refusedServer, port: 0, connections: 0 };
  refusedServer.on('connection', () => refused.connections++);
  await new Promise<void>((resolve) => refusedServer.listen(0, '127.0.0.1', resolve));
  refused.port = (refusedServer.address() as AddressInfo).port;
  const secret = () => `http://127.0.0.1:${refused.port}/secret`;
  site = await startFixtureServer({
    ...actionRoutes(),
    '/hostile': (_req, res) =>
      sendHtml(
        res,
        html(`<main><h1>Links out</h1><p>A page whose actions try to reach the private network.</p>
<a id="link" href="${secret()}">secret</a> <a id="popup" target="_blank" href="${secret()}">popup</a>
<form id="form" method="post" action="${secret()}"><input id="field" name="q"></form></main>`),
      ),
    '/doc.pdf': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(pdfDocument([{ content: 'BT /F1 12 Tf 72 700 Td (A PDF document) Tj ET' }]));
    },
  });
  server = await startServe({ args: ['--allow-host', new URL(site.url).host, '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale,${OTHER_KEY}:scale` } });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
  refused?.server.closeAllConnections();
  await new Promise((resolve) => refused?.server.close(resolve));
});

interface Page {
  markdown?: string;
  metadata: Record<string, string>;
  actions?: { screenshots: string[]; scrapes: { url: string; html: string }[]; javascriptReturns: { type: string; value: unknown }[]; pdfs: string[] };
}

async function scrape(path: string, actions: unknown[], extra: object = {}, key = KEY): Promise<{ status: string; error?: string; data?: Page }> {
  const job = await api.start('scrape', { url: site.at(path), scrapeOptions: { timeout: 15_000, ...(actions.length > 0 ? { actions } : {}), ...extra } }, key);
  await api.waitFinal(job, key);
  return (await api.call('GET', job, { key })).body;
}

/** Signs in on the loopback login page, as a person would. */
const LOGIN = [
  { type: 'click', selector: '#user' },
  { type: 'write', text: 'ada' },
  { type: 'click', selector: '#password' },
  { type: 'write', text: 'secret' },
  { type: 'click', selector: '#go' },
  { type: 'wait', selector: 'h1' },
  { type: 'executeJavascript', script: "localStorage.setItem('cart', '3 items'); location.pathname" },
];

const items = (markdown: string | undefined) => [...(markdown ?? '').matchAll(/Item number (\d+) of the list/g)].map((m) => Number(m[1]));
const rows = (markdown: string | undefined) => [...(markdown ?? '').matchAll(/Row (\d+) of the virtual table/g)].map((m) => Number(m[1]));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('actions in Chromium (serve, /api)', () => {
  it('"Load more" clicked three times: the Markdown is the page after the last click', async () => {
    const click = { type: 'click', selector: '#more' };
    const job = await scrape('/more', [click, click, click]);
    expect(job.status).toBe('completed');
    expect(items(job.data!.markdown)).toEqual(range(1, 20));
  });

  it('an endless list: scroll repeat loads every batch and stops when no more come', async () => {
    const job = await scrape('/endless', [{ type: 'scroll', direction: 'down', repeat: 10 }]);
    expect(job.status).toBe('completed');
    expect(items(job.data!.markdown)).toEqual(range(1, 100));
  });

  it('a virtualized list: collect keeps every row once, in order', async () => {
    const job = await scrape('/virtual', [{ type: 'scroll', selector: '#viewport', repeat: 40, collect: true }]);
    expect(job.status).toBe('completed');
    expect(rows(job.data!.markdown)).toEqual(range(1, 200));
  });

  it('without collect, a virtualized list gives only the rows left in the DOM', async () => {
    const job = await scrape('/virtual', [{ type: 'scroll', selector: '#viewport', repeat: 40 }]);
    expect(job.status).toBe('completed');
    expect(rows(job.data!.markdown).length).toBeLessThan(40);
  });

  it('click, write, press Enter: the form is sent and the results page is read', async () => {
    const job = await scrape('/search', [
      { type: 'click', selector: '#q' },
      { type: 'write', text: 'lamps' },
      { type: 'press', key: 'Enter' },
    ]);
    expect(job.status).toBe('completed');
    expect(job.data!.markdown).toContain('Results for lamps');
    expect(job.data!.metadata.url).toBe(site.at('/results?q=lamps'));
  });

  it('wait for a selector, scrape, executeJavascript, screenshot and pdf fill the record', async () => {
    const job = await scrape('/late', [
      { type: 'wait', selector: '.late' },
      { type: 'scrape' },
      { type: 'executeJavascript', script: "document.querySelectorAll('p').length; ({ title: document.title, n: 2 + 3 })" },
      { type: 'executeJavascript', script: 'document.title = "Changed"; undefined' },
      { type: 'screenshot' },
      { type: 'pdf' },
    ]);
    expect(job.status).toBe('completed');
    const actions = job.data!.actions!;
    expect(actions.scrapes).toHaveLength(1);
    expect(actions.scrapes[0]!.url).toBe(site.at('/late'));
    expect(actions.scrapes[0]!.html).toContain('Content that came late from a script');
    expect(actions.javascriptReturns).toEqual([
      { type: 'object', value: { title: 'Late', n: 5 } },
      { type: 'undefined', value: null },
    ]);
    expect(job.data!.markdown).toContain('Content that came late');
    // Files, served per key, as screenshots are.
    expect(actions.screenshots).toHaveLength(1);
    expect(actions.pdfs).toHaveLength(1);
    const shot = await fetch(actions.screenshots[0]!, { headers: { authorization: `Bearer ${KEY}` } });
    expect(shot.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await shot.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    const pdf = await fetch(actions.pdfs[0]!, { headers: { authorization: `Bearer ${KEY}` } });
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    expect((await fetch(actions.pdfs[0]!, { headers: { authorization: 'Bearer another-key-0123456789' } })).status).not.toBe(200);
  });

  it('a selector that never appears fails the page, naming the action and its place', async () => {
    const job = await scrape('/more', [{ type: 'click', selector: '#more' }, { type: 'click', selector: '#never' }], { timeout: 1_500 });
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/action 2 \(click "#never"\): no element matches "#never" after \d+ ms/);
  });

  it('actions on a PDF: a clear error', async () => {
    const job = await scrape('/doc.pdf', [{ type: 'click', selector: 'a' }]);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/is a PDF document: page actions run on web pages only/);
  });

  it('bad actions are refused with HTTP 400 before any page is read', async () => {
    const before = site.requests.length;
    const bad = async (actions: unknown, extra: object = {}) => {
      const answer = await api.call('POST', '/api/scrape', { body: { url: site.at('/more'), scrapeOptions: { actions, ...extra } } });
      expect(answer.status).toBe(400);
      return answer.body.message as string;
    };
    expect(await bad(Array.from({ length: 51 }, () => ({ type: 'scrape' })))).toMatch(/51 actions given, the limit is 50/);
    expect(await bad([{ type: 'hover', selector: 'a' }])).toMatch(/actions\[0\]: unknown action type "hover"/);
    expect(await bad([{ type: 'click' }])).toMatch(/actions\[0\] \(click\): needs "selector"/);
    expect(await bad([{ type: 'write' }])).toMatch(/actions\[0\] \(write\): needs "text"/);
    expect(await bad([{ type: 'wait', milliseconds: 40_000 }, { type: 'wait', milliseconds: 30_000 }])).toMatch(/the waits add up to 70000 ms .* the limit is 60000 ms/);
    expect(await bad([{ type: 'wait', milliseconds: 30_000 }], { waitFor: 40_000 })).toMatch(/the waits add up to 70000 ms/);
    expect(await bad([{ type: 'scrape' }], { engine: 'http' })).toMatch(/actions are run in a browser: use engine auto or browser, not http/);
    expect(site.requests.length).toBe(before);
  });

  it('Firecrawl v2 scrape takes actions and answers them in the document', async () => {
    const response = await fetch(`${server.url}/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.at('/more'), actions: [{ type: 'click', selector: '#more' }, { type: 'executeJavascript', script: 'document.querySelectorAll("li").length' }] }),
    });
    const body = (await response.json()) as { success: boolean; data: Page };
    expect(body.success).toBe(true);
    expect(body.data.actions!.javascriptReturns).toEqual([{ type: 'number', value: 10 }]);
    expect(items(body.data.markdown)).toEqual(range(1, 10));
  });
});

describe('the address guard on serve: what an action causes opens no connection to a refused address', () => {
  it.each([
    ['a click on a link', [{ type: 'click', selector: '#link' }]],
    ['a click on a link that opens a window', [{ type: 'click', selector: '#popup' }, { type: 'wait', milliseconds: 500 }]],
    ['a form sent with Enter', [{ type: 'click', selector: '#field' }, { type: 'write', text: 'x' }, { type: 'press', key: 'Enter' }]],
    ['a script setting location', [{ type: 'executeJavascript', script: `location.href = 'http://127.0.0.1:' + ${'${PORT}'} + '/secret'` }]],
    ['fetch() from a script', [{ type: 'executeJavascript', script: `fetch('http://127.0.0.1:' + ${'${PORT}'} + '/secret').then((r) => r.status, () => 'refused')` }]],
  ])('%s', async (_name, actions) => {
    const withPort = JSON.parse(JSON.stringify(actions).replaceAll('${PORT}', String(refused.port))) as unknown[];
    const job = await scrape('/hostile', withPort);
    expect(refused.connections).toBe(0);
    // Either the page failed naming the refusal, or it stayed where it was; never the secret.
    expect(JSON.stringify(job)).not.toContain('Internal secret');
    if (job.status === 'completed') expect(job.data!.metadata.url).toBe(site.at('/hostile'));
    if (_name === 'fetch() from a script') expect(job.data!.actions!.javascriptReturns).toEqual([{ type: 'string', value: 'refused' }]);
  });
});

describe('profiles', () => {
  it('on serve: a login through actions is kept under the key, and never seen by another key', async () => {
    const login = await scrape('/login', LOGIN, { profile: { name: 'shop' } });
    expect(login.status).toBe('completed');
    expect(login.data!.markdown).toContain('Welcome back, Ada');
    const cart = [{ type: 'executeJavascript', script: "localStorage.getItem('cart')" }];
    const later = await scrape('/account', cart, { profile: { name: 'shop' } });
    expect(later.data!.markdown).toContain('Welcome back, Ada');
    expect(later.data!.actions!.javascriptReturns).toEqual([{ type: 'string', value: '3 items' }]);
    const other = await scrape('/account', cart, { profile: { name: 'shop' } }, OTHER_KEY);
    expect(other.status).toBe('completed');
    expect(other.data!.markdown).toContain('Please sign in');
    expect(other.data!.actions!.javascriptReturns).toEqual([{ type: 'null', value: null }]);
    // Without the profile, the same key is not signed in: the session lives in the profile, not in the browser.
    expect((await scrape('/account', [])).data!.markdown).toContain('Please sign in');
  }, 120_000);

  it('the CLI: log in once with --profile, then a later run sees the signed-in page; profiles lists and deletes it', async () => {
    const home = tempHome();
    const cli = (args: string[]) => runCli(args, { env: { WEBJOBS_HOME: home }, timeoutMs: 120_000 });
    const login = await cli(['scrape', site.at('/login'), '--profile', 'shop', '--actions', JSON.stringify(LOGIN)]);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('Welcome back, Ada');
    const file = path.join(home, 'profiles', 'local', 'shop.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(login.stderr).not.toContain('s3cr3t-session');
    const later = await cli(['scrape', site.at('/account'), '--profile', 'shop']);
    expect(later.code).toBe(0);
    expect(later.stdout).toContain('Welcome back, Ada');
    expect((await cli(['profiles'])).stdout).toMatch(/^shop\t\d{4}-/);
    expect((await cli(['profiles', 'delete', 'shop'])).code).toBe(0);
    expect((await cli(['profiles', '--json'])).stdout.trim()).toBe('[]');
    const missing = await cli(['profiles', 'delete', 'shop']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no profile named shop/);
  }, 300_000);
});

describe('the CLI', () => {
  const home = tempHome();
  const cli = (args: string[]) => runCli(args, { env: { WEBJOBS_HOME: home }, timeoutMs: 120_000 });

  it('--actions with --engine http: exit 2 naming the rule, before any page is read', async () => {
    const before = site.requests.length;
    const result = await cli(['scrape', site.at('/more'), '--engine', 'http', '--actions', '[{"type":"click","selector":"#more"}]']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/actions are run in a browser: use engine auto or browser, not http/);
    expect(site.requests.length).toBe(before);
  });

  it('--actions: bad JSON, an unknown type, too many: exit 2', async () => {
    expect((await cli(['scrape', site.at('/more'), '--actions', '[{"type":'])).stderr).toMatch(/--actions.*not valid JSON/);
    const unknown = await cli(['scrape', site.at('/more'), '--actions', '[{"type":"hover"}]']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown action type "hover"/);
    const waits = await cli(['scrape', site.at('/more'), '--wait-for', '30s', '--actions', '[{"type":"wait","milliseconds":40000}]']);
    expect(waits.code).toBe(2);
    expect(waits.stderr).toMatch(/the waits add up to 70000 ms/);
  });

  it('--wait-for given a selector is refused with a hint naming --wait-for-selector', async () => {
    const result = await cli(['scrape', site.at('/late'), '--wait-for', '#root main']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/to wait for an element use --wait-for-selector '#root main'/);
  });

  it('--wait-for-selector waits for the element, and --actions reads a file', async () => {
    const file = path.join(home, 'actions.json');
    writeFileSync(file, JSON.stringify([{ type: 'executeJavascript', script: "document.querySelector('.late').textContent = 'Read after the actions of a file'" }]));
    const result = await cli(['scrape', site.at('/late'), '--wait-for-selector', '.late', '--actions', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Read after the actions of a file');
  }, 150_000);
});
