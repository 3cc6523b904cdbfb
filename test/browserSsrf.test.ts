/**
 * `webjobs serve` must not let a page reach the network behind it by any way the
 * browser offers: popups, script-clicked links, forms posted to a new window,
 * WebSockets (IPv4, IPv6, a name that resolves to loopback), shared and service
 * workers, iframes, preconnects, redirects after load — in scrape, crawl and
 * extract jobs. The fixture site is allowed (--allow-host); a second server on
 * another loopback port plays the private network and COUNTS every TCP connection
 * it receives: each scenario must leave it at zero.
 *
 * Waiting: each hostile action is followed, in the same script, by a request to
 * a sentinel path of the allowed site, sent only after the hostile request has
 * ended; a connection to the refused server would have been counted before the
 * sentinel arrives. Where the fix leaves no script to send a sentinel (a popup
 * closed at once), the wait is capped, which only makes the check stricter.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { startFakeAnthropic, toolUse, type FakeAnthropic } from './helpers/fakeAnthropic.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startProxy, type TestProxy } from './helpers/proxyServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const KEY = 'ssrf-key-0123456789';

/** The private network: counts TCP connections on 127.0.0.1 and ::1 (one dual-stack socket). */
interface Refused {
  port: number;
  connections: number;
  paths: string[];
  close(): Promise<void>;
}

async function startRefused(): Promise<Refused> {
  const refused = { port: 0, connections: 0, paths: [] as string[] };
  const server = http.createServer((req, res) => {
    refused.paths.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Internal secret</h1>');
  });
  server.on('connection', () => refused.connections++);
  server.on('upgrade', (req, socket) => {
    refused.paths.push(req.url ?? '');
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  refused.port = (server.address() as AddressInfo).port;
  return Object.assign(refused, {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

let site: FixtureServer;
let refused: Refused;
let llm: FakeAnthropic;
/** The user's own proxy (useProxy), which would connect wherever it is asked. */
let userProxy: TestProxy;
/** An allowed port where nothing listens. */
let closedPort: number;
/** An allowed server that hangs up on every request before answering. */
let hangUp: net.Server;
let server: ServeProcess;
const api = serveClient(() => server.url, KEY);

const sentinels = new Map<string, number>();
const sentinelWaiters = new Set<() => void>();

const pinged = (name: string) => sentinels.get(name) ?? 0;

/** Pings of each sentinel so far, to wait for the next ones. */
function mark(names: string[]): () => Promise<void> {
  const counts = names.map(pinged);
  return async () => {
    await Promise.all(names.map((name, i) => sentinel(name, counts[i]!)));
  };
}

/**
 * Resolves once the page has pinged /sentinel/<name> more than `seen` times, or
 * after `capMs` when the fix leaves no script to ping it (waiting longer only
 * makes the check stricter).
 */
function sentinel(name: string, seen: number, capMs = 3_000): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      sentinelWaiters.delete(check);
      resolve();
    };
    const check = () => {
      if (pinged(name) > seen) done();
    };
    const timer = setTimeout(done, capMs);
    sentinelWaiters.add(check);
    check();
  });
}

const r = (path: string) => `http://127.0.0.1:${refused.port}${path}`;
const r6 = (path: string) => `http://[::1]:${refused.port}${path}`;
const rName = (path: string) => `http://localhost:${refused.port}${path}`;
const ping = (name: string) => `fetch('/sentinel/${name}').catch(() => {})`;

/** The hostile pages: each does one thing toward the refused server, then pings its sentinel. */
function pages(): Record<string, string> {
  const ws = (name: string, url: string) => `{ const ws = new WebSocket(${JSON.stringify(url)}); let once = false;
    const done = () => { if (!once) { once = true; ${ping(name)}; } }; ws.onerror = done; ws.onclose = done; ws.onopen = done; }`;
  return {
    'window-open': `<script>window.open(${JSON.stringify(r('/window-open'))}); window.open('/agent?name=window-open');</script>`,
    'link-click': `<a id="l" target="_blank" href="${r('/link-click')}">go</a><a id="m" target="_blank" href="/agent?name=link-click">agent</a>
      <script>document.getElementById('l').click(); document.getElementById('m').click();</script>`,
    'form-post': `<form id="f" method="post" target="_blank" action="${r('/form-post')}"><input name="q" value="1"></form>
      <script>document.getElementById('f').submit();</script>`,
    'websocket-v4': `<script>${ws('websocket-v4', r('/ws').replace('http', 'ws'))}</script>`,
    'websocket-v6': `<script>${ws('websocket-v6', r6('/ws').replace('http', 'ws'))}</script>`,
    'websocket-name': `<script>${ws('websocket-name', rName('/ws').replace('http', 'ws'))}</script>`,
    'shared-worker': `<script>new SharedWorker('/worker.js?name=shared-worker');</script>`,
    'service-worker': `<script>navigator.serviceWorker.register('/worker.js?name=service-worker').catch(() => ${ping('service-worker')});</script>`,
    iframes: `<iframe src="${r('/iframe')}" onload="${ping('iframe-v4').replace(/'/g, '&#39;')}"></iframe>
      <iframe src="${rName('/iframe')}" onload="${ping('iframe-name').replace(/'/g, '&#39;')}"></iframe>`,
    preconnect: `<link rel="preconnect" href="${r('')}"><link rel="preconnect" href="${rName('')}"><link rel="dns-prefetch" href="${rName('')}">
      <link rel="preconnect" href="${r6('')}"><link rel="prefetch" href="${r('/prefetch')}">`,
    'meta-refresh': '',
    'script-redirect': `<script>addEventListener('load', () => { location.href = ${JSON.stringify(r('/script-redirect'))}; });</script>`,
  };
}

beforeAll(async () => {
  refused = await startRefused();
  llm = await startFakeAnthropic();
  userProxy = await startProxy({ username: 'user', password: 'pa:ss' });
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  hangUp = net.createServer((socket) => socket.once('data', () => socket.destroy()));
  await new Promise<void>((resolve) => hangUp.listen(0, '127.0.0.1', resolve));
  const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
    '/agent': (req, res) => {
      // A window a page opened that would stay behind, fetching from the private network.
      const name = new URL(req.url!, 'http://x').searchParams.get('name');
      sendHtml(res, html(`<p>agent</p><script>setInterval(() => fetch(${JSON.stringify(r('/agent'))}).catch(() => {}), 200);
        fetch(${JSON.stringify(r('/agent'))}).catch(() => {}).finally(() => ${ping(`agent-${name}`)});</script>`));
    },
    '/worker.js': (req, res) => {
      const name = new URL(req.url!, 'http://x').searchParams.get('name');
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(`fetch(${JSON.stringify(r(`/${name}`))}).catch(() => {}).finally(() => fetch('/sentinel/${name}').catch(() => {}));
        setInterval(() => fetch(${JSON.stringify(r(`/${name}-interval`))}).catch(() => {}), 200);`);
    },
    // Everything but the redirects, which fail the page (tested on their own).
    '/all': (_req, res) => {
      const { 'meta-refresh': _m, 'script-redirect': _s, ...rest } = pages();
      sendHtml(res, html(`<article><h1>All at once</h1>${articleText('hostile pages')}</article>${Object.values(rest).join('\n')}`));
    },
  };
  for (const [name, body] of Object.entries(pages())) {
    const head = name === 'meta-refresh' ? `<meta http-equiv="refresh" content="0; url=${r('/meta-refresh')}">` : '';
    routes[`/${name}`] = (_req, res) => sendHtml(res, html(`<article><h1>Hostile ${name}</h1>${articleText(name)}</article>${body}`, { head }));
  }
  site = await startFixtureServer(routes);
  const originalPush = site.requests.push.bind(site.requests);
  // Sentinel pings, recorded as they arrive.
  site.requests.push = (...items: string[]) => {
    for (const item of items) {
      const name = /^\w+ \/sentinel\/(.+)$/.exec(item)?.[1];
      if (name) {
        sentinels.set(name, (sentinels.get(name) ?? 0) + 1);
        sentinelWaiters.forEach((check) => check());
      }
    }
    return originalPush(...items);
  };
  server = await startServe({
    args: ['--allow-host', new URL(site.url).host, '--allow-host', `127.0.0.1:${closedPort}`, '--allow-host', `127.0.0.1:${(hangUp.address() as AddressInfo).port}`, '--quiet'],
    env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale`, ANTHROPIC_API_KEY: 'sk-test-key', ANTHROPIC_BASE_URL: llm.url,
      WEBJOBS_PROXY_URL: `http://user:${encodeURIComponent('pa:ss')}@127.0.0.1:${userProxy.port}`,
    },
  });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
  await refused?.close();
  await llm?.close();
  await userProxy?.close();
  await new Promise((resolve) => hangUp?.close(resolve));
});

/** Scrapes in the browser, whose defences this file tests: read over HTTP, these pages' scripts never run at all. */
async function scrape(path: string, sessionOptions?: object): Promise<{ status: string; error?: string; data?: { metadata: { url: string } } }> {
  const job = await api.start('scrape', { url: site.at(path), scrapeOptions: { timeout: 15_000, engine: 'browser' }, sessionOptions });
  await api.waitFinal(job);
  return (await api.call('GET', job)).body;
}

describe('a page on an allowed host reaches no refused host through the browser', () => {
  const cases: [string, string[]][] = [
    ['window-open', ['agent-window-open']],
    ['link-click', ['agent-link-click']],
    ['form-post', []],
    ['websocket-v4', ['websocket-v4']],
    ['websocket-v6', ['websocket-v6']],
    ['websocket-name', ['websocket-name']],
    ['shared-worker', ['shared-worker']],
    ['service-worker', ['service-worker']],
    ['iframes', ['iframe-v4', 'iframe-name']],
    ['preconnect', []],
  ];
  for (const [name, pings] of cases) {
    it(`${name}: the scrape completes and the refused server sees no connection`, async () => {
      const before = refused.connections;
      const pathsBefore = refused.paths.length;
      const pinged = mark(pings.length > 0 ? pings : [`never-${name}`]);
      const record = await scrape(`/${name}`);
      expect(record.status).toBe('completed');
      await pinged();
      expect(refused.paths.slice(pathsBefore)).toEqual([]);
      expect(refused.connections - before).toBe(0);
    });
  }
});

describe('redirects after load to a refused host', () => {
  for (const name of ['meta-refresh', 'script-redirect']) {
    it(`${name}: the page fails with the guard's message, never Chromium's error page`, async () => {
      const before = refused.connections;
      const pathsBefore = refused.paths.length;
      const record = await scrape(`/${name}`);
      expect(record.status).toBe('failed');
      expect(record.error).toMatch(new RegExp(`^refused to fetch http://127\\.0\\.0\\.1:${refused.port}/${name}: .*loopback, private, link-local or metadata`));
      expect(JSON.stringify(record)).not.toContain('chrome-error');
      expect(refused.connections - before).toBe(0);
    });
  }
});

describe('crawl and extract go through the same guard', () => {
  it('a crawl of a page doing all of the above completes and reaches no refused host', async () => {
    const before = refused.connections;
    const pathsBefore = refused.paths.length;
    const pinged = mark(['websocket-v4', 'websocket-v6', 'shared-worker']);
    const job = await api.start('crawl', { url: site.at('/all'), maxPages: 1, ignoreSitemap: true, scrapeOptions: { engine: 'browser' } });
    expect(await api.waitFinal(job)).toBe('completed');
    const record = (await api.call('GET', job)).body;
    expect(record.data[0].markdown).toContain('All at once');
    await pinged();
    expect(refused.paths.slice(pathsBefore)).toEqual([]);
    expect(refused.connections - before).toBe(0);
  });

  it('an extract of that page completes and reaches no refused host', async () => {
    const before = refused.connections;
    const pathsBefore = refused.paths.length;
    const pinged = mark(['websocket-v4', 'websocket-v6', 'shared-worker']);
    llm.queue.push(toolUse({ title: 'All at once' }));
    const job = await api.start('extract', {
      urls: [site.at('/all')],
      prompt: 'the title',
      schema: { type: 'object', properties: { title: { type: 'string' } } },
    });
    expect(await api.waitFinal(job)).toBe('completed');
    expect((await api.call('GET', job)).body.data).toEqual({ title: 'All at once' });
    await pinged();
    expect(refused.paths.slice(pathsBefore)).toEqual([]);
    expect(refused.connections - before).toBe(0);
  });
});

describe("with the user's proxy (useProxy)", () => {
  it('chains every connection through it, with its credentials, after the same check: the refused server sees nothing', async () => {
    const before = refused.connections;
    const pathsBefore = refused.paths.length;
    const pinged = mark(['websocket-v4']);
    const record = await scrape('/websocket-v4', { useProxy: true });
    expect(record.status).toBe('completed');
    await pinged();
    expect(refused.paths.slice(pathsBefore)).toEqual([]);
    expect(refused.connections - before).toBe(0);
    expect(userProxy.forwarded.filter((target) => target.includes(String(refused.port)))).toEqual([]);
    // The page itself came through the user's proxy (in absolute form: it is Squid-like, CONNECT to 443 only),
    // which saw webjobs' credentials, not a 407.
    expect(userProxy.forwarded).toContain(site.at('/websocket-v4'));
    expect(userProxy.refused).toBe(0);
  });
});

describe('errors keep their meaning behind the egress proxy', () => {
  it('an allowed address where nothing listens fails the page with "connection refused", over http and https, on both engines', async () => {
    for (const engine of ['browser', 'http']) {
      for (const url of [`http://127.0.0.1:${closedPort}/`, `https://127.0.0.1:${closedPort}/`]) {
        const job = await api.start('scrape', { url, scrapeOptions: { engine } });
        expect(await api.waitFinal(job)).toBe('failed');
        expect((await api.call('GET', job)).body.error, `${engine} ${url}`).toMatch(/^connection refused: nothing is listening at/);
      }
    }
  });
});

describe('a server that hangs up behind the egress proxy', () => {
  it('fails the page saying so; the proxy\'s own answer is never read as the page, on both engines', async () => {
    for (const engine of ['browser', 'http']) {
      const job = await api.start('scrape', { url: `http://127.0.0.1:${(hangUp.address() as AddressInfo).port}/`, scrapeOptions: { engine } });
      expect(await api.waitFinal(job)).toBe('failed');
      // The HTTP engine tunnels through the egress proxy (CONNECT), which opened: the hang-up reaches it as the socket closing.
      const reason = engine === 'browser' ? /^the connection to 127\.0\.0\.1:\d+ was reset/ : /other side closed|was reset/;
      expect((await api.call('GET', job)).body.error, engine).toMatch(reason);
    }
  });
});
