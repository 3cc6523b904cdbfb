/**
 * Jobs of `webjobs serve` do not touch each other through the browser: each job
 * has its own browser context, dialogs never hold a page, a cancelled job's page
 * stops at once, and redirects a page makes after load are followed. Real `serve`
 * (one job at a time, so that jobs follow each other in the same browser) and a
 * real Chromium against a fixture site on 127.0.0.1.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const KEYS = { a: 'tenant-a-key-0123456789', b: 'tenant-b-key-0123456789' };

let site: FixtureServer;
let server: ServeProcess;
const api = serveClient(() => server.url, KEYS.a);

/** Cookie headers the site received, per path. */
const cookiesSeen = new Map<string, string | undefined>();
/** Requests for /cached.js, a script the site lets browsers keep for an hour. */
let cachedScriptRequests = 0;
/** Answers of /hang that the browser has given up on (their connection closed). */
let hangsClosed = 0;
/** Requests for the endless chain of refreshes. */
let loopHops = 0;
let hangsOpened = 0;
const hangWaiters: (() => void)[] = [];
const notifyHang = () => hangWaiters.splice(0).forEach((wake) => wake());

function untilHang(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (condition() ? resolve() : hangWaiters.push(check));
    check();
  });
}

const article = (title: string, extra = '') => html(`<article><h1>${title}</h1>${articleText(title)}</article>${extra}`, { title });

beforeAll(async () => {
  const record = (req: http.IncomingMessage) => cookiesSeen.set(new URL(req.url!, 'http://x').pathname, req.headers.cookie);
  site = await startFixtureServer({
    '/p1': (_req, res) => sendHtml(res, article('Page one')),
    '/p2': (_req, res) => sendHtml(res, article('Page two')),
    '/p3': (_req, res) => sendHtml(res, article('Page three')),
    '/set-state': (req, res) => {
      record(req);
      res.setHeader('set-cookie', 'tenant=a; Path=/; Max-Age=3600');
      sendHtml(res, article('Setter', `<script>localStorage.setItem('tenant', 'a'); sessionStorage.setItem('tenant', 'a');</script><script src="/cached.js"></script>`));
    },
    '/read-state': (req, res) => {
      record(req);
      sendHtml(
        res,
        html(
          `<h1>Reader</h1><p id="state">unread</p><script src="/cached.js"></script>
<script>document.getElementById('state').textContent = 'cookie={' + document.cookie + '} local={' + localStorage.getItem('tenant') + '} script={' + (window.cachedCopy || 0) + '}';</script>`,
        ),
      );
    },
    '/cached.js': (_req, res) => {
      cachedScriptRequests++;
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=3600' });
      res.end('window.cachedCopy = (window.cachedCopy || 0) + 1;');
    },
    '/dialogs': (_req, res) => sendHtml(res, article('Dialogs', `<script>alert('hello'); confirm('sure?'); prompt('name?');</script>`)),
    '/leave': (_req, res) =>
      sendHtml(res, article('Leave', `<script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'stay'; });</script>`)),
    '/hang': (_req, res) => {
      hangsOpened++;
      notifyHang();
      res.on('close', () => {
        hangsClosed++;
        notifyHang();
      });
    },
    '/meta-refresh': (_req, res) => sendHtml(res, html('<p>Redirecting…</p>', { head: '<meta http-equiv="refresh" content="0; url=/p2">' })),
    '/script-redirect': (_req, res) => sendHtml(res, html(`<p>Redirecting…</p><script>addEventListener('load', () => { location.href = '/p3'; });</script>`)),
    '/refresh-chain': (_req, res) => sendHtml(res, html('<p>First hop…</p>', { head: '<meta http-equiv="refresh" content="0; url=/meta-refresh">' })),
    // A refresh that never ends: each hop sends the browser one further.
    '/loop': (req, res) => {
      loopHops++;
      const n = Number(new URL(req.url ?? '/', site.url).searchParams.get('n') ?? 0);
      sendHtml(res, html(`<p>Hop ${n}</p>`, { head: `<meta http-equiv="refresh" content="0; url=/loop?n=${n + 1}">` }));
    },
  });
  server = await startServe({
    args: ['--allow-host', new URL(site.url).host, '--max-jobs', '1', '--quiet'],
    env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEYS.a}:scale,${KEYS.b}:scale` },
  });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
});

async function scrape(path: string, key: string, scrapeOptions: Record<string, unknown> = {}) {
  const job = await api.start('scrape', { url: site.at(path), scrapeOptions: { onlyMainContent: false, ...scrapeOptions } }, key);
  await api.waitFinal(job, key);
  return (await api.call('GET', job, { key })).body;
}

describe('each job has its own browser context', () => {
  it("one key's job sees no cookie, storage or cached resource left by another key's job", async () => {
    // In the browser: the HTTP engine would neither run the scripts nor cache the script they load.
    const browser = { engine: 'browser' };
    expect((await scrape('/set-state', KEYS.a, browser)).status).toBe('completed');
    expect(cachedScriptRequests).toBe(1);
    const read = await scrape('/read-state', KEYS.b, browser);
    expect(read.status).toBe('completed');
    // The script may be kept for an hour, but not by another job's context: it is asked for again.
    expect(cachedScriptRequests).toBe(2);
    expect(read.data.markdown).toContain('cookie={} local={null} script={1}');
    expect(cookiesSeen.get('/read-state')).toBeUndefined();
    // The same key's next job is a new job too.
    expect((await scrape('/read-state', KEYS.a, browser)).data.markdown).toContain('cookie={} local={null}');
    expect(cachedScriptRequests).toBe(3);
  });
});

describe('dialogs and leftovers', () => {
  it('dismisses alert, confirm and prompt at once: the page completes with its content', async () => {
    const record = await scrape('/dialogs', KEYS.a, { timeout: 8_000 });
    expect(record.error).toBeUndefined();
    expect(record.status).toBe('completed');
    expect(record.data.markdown).toContain('Dialogs');
  });

  it('a beforeunload handler holds neither the next page of the job nor the next job', async () => {
    const batch = await api.start('scrape/batch', { urls: [site.at('/leave'), site.at('/p1')], concurrency: 1, scrapeOptions: { timeout: 8_000 } });
    expect(await api.waitFinal(batch)).toBe('completed');
    const pages = (await api.call('GET', batch)).body.data;
    expect(pages.map((p: { status: string; error: string | null }) => [p.status, p.error])).toEqual([
      ['completed', null],
      ['completed', null],
    ]);
    expect((await scrape('/leave', KEYS.a, { timeout: 8_000 })).status).toBe('completed');
    const next = await scrape('/p2', KEYS.b, { timeout: 8_000 });
    expect(next.error).toBeUndefined();
    expect(next.data.markdown).toContain('Page two');
  });
});

describe('cancel', () => {
  it('cancelling a batch ends its hanging page at once, and frees the job slot for the next job', async () => {
    const opened = hangsOpened;
    const closed = hangsClosed;
    // A timeout far beyond this test's own: only the cancel can end the page in time.
    const batch = await api.start('scrape/batch', { urls: [site.at('/hang')], scrapeOptions: { timeout: 300_000 } });
    await untilHang(() => hangsOpened > opened);
    expect((await api.call('DELETE', batch)).body).toEqual({ status: 'stopped' });
    // The browser drops the hanging request: its page is gone, not waiting out its timeout.
    await untilHang(() => hangsClosed > closed);
    // serve runs one job at a time here: the next job runs only once the cancelled one has let go.
    const next = await scrape('/p1', KEYS.b);
    expect(next.status).toBe('completed');
    expect((await api.call('GET', `${batch}/status`)).body).toEqual({ status: 'stopped' });
  }, 45_000);
});

describe('redirects after load', () => {
  it('follows a meta refresh and reads the page it lands on', async () => {
    const record = await scrape('/meta-refresh', KEYS.a);
    expect(record.error).toBeUndefined();
    expect(record.data.markdown).toContain('Page two');
    expect(record.data.metadata.url).toBe(site.at('/p2'));
    expect(record.data.metadata.sourceURL).toBe(site.at('/meta-refresh'));
  });

  it('follows location.href set on load, and a chain of refreshes', async () => {
    const scripted = await scrape('/script-redirect', KEYS.a);
    expect(scripted.error).toBeUndefined();
    expect(scripted.data.markdown).toContain('Page three');
    expect(scripted.data.metadata.url).toBe(site.at('/p3'));
    const chain = await scrape('/refresh-chain', KEYS.a);
    expect(chain.data.metadata.url).toBe(site.at('/p2'));
  });

  it('holds a page that refreshes for ever after a bounded number of hops, and reads it there', async () => {
    const record = await scrape('/loop', KEYS.a, { engine: 'browser' });
    expect(record.error).toBeUndefined();
    expect(record.status).toBe('completed');
    expect(record.data.markdown).toMatch(/^Hop \d+$/m);
    const hop = Number(new URL(record.data.metadata.url).searchParams.get('n'));
    expect(hop).toBeGreaterThanOrEqual(5);
    // Five rounds of at most five hops each, then the page is stopped where it is.
    expect(loopHops).toBeLessThanOrEqual(27);
  });
});
