/**
 * Proxies as they are in the field, through the real CLI: a Squid-like proxy
 * (absolute-form http://, CONNECT to port 443 only), one that wants Basic
 * authentication, and SOCKS5; each engine goes through each. A proxy that is
 * down, closes the connection or refuses the credentials fails the page at once,
 * saying so and naming the proxy without its credentials.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { closedPort, startClosingProxy, startProxy, startSocksProxy, type TestProxy } from './helpers/proxyServer.js';
import { startServe } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const PAGE = html(`<article><h1>Through the proxy</h1>${articleText('proxies in the field')}</article>`, { title: 'Proxied' });
let site: FixtureServer;
let squid: TestProxy;
let authProxy: TestProxy;
let socks: TestProxy;
const home = tempHome();

beforeAll(async () => {
  site = await startFixtureServer({
    '/articles/5': (_req, res) => sendHtml(res, PAGE),
    '/articles/6': (_req, res) => sendHtml(res, PAGE.replace('Through the proxy', 'Found in the sitemap')),
    '/robots.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`User-agent: *\nDisallow: /private\nSitemap: ${site.at('/sitemap.xml')}\n`);
    },
    '/sitemap.xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.at('/articles/6')}</loc></url></urlset>`);
    },
  });
  [squid, authProxy, socks] = await Promise.all([startProxy(), startProxy({ username: 'alice', password: 's3cret' }), startSocksProxy()]);
});

afterAll(async () => {
  await Promise.all([site?.close(), squid?.close(), authProxy?.close(), socks?.close()]);
});

const withProxy = (proxyUrl: string) => ({ WEBJOBS_HOME: home, WEBJOBS_PROXY_URL: proxyUrl });
const authUrl = () => `http://alice:s3cret@127.0.0.1:${authProxy.port}`;

describe('each engine through each proxy', () => {
  const cases = [
    { name: 'Squid-like (absolute form, CONNECT to 443 only)', proxy: () => squid, url: () => squid.url },
    { name: 'Basic authentication', proxy: () => authProxy, url: authUrl },
    { name: 'SOCKS5', proxy: () => socks, url: () => socks.url },
  ];
  for (const { name, proxy, url } of cases) {
    it(`reads the page through the ${name} proxy, with engine auto, http and browser`, async () => {
      const results = await Promise.all(
        ['auto', 'http', 'browser'].map(async (engine) => {
          const before = proxy().forwarded.length;
          const target = site.at(`/articles/5?engine=${engine}`);
          const result = await runCli(['scrape', target, '--use-proxy', '--engine', engine, '--json'], { env: withProxy(url()) });
          return { engine, target, before, ...result };
        }),
      );
      for (const { engine, target, code, stdout, stderr } of results) {
        expect(code, `${engine}: ${stderr}`).toBe(0);
        expect(JSON.parse(stdout).data.markdown, engine).toContain('Through the proxy');
        // An http:// page goes to an HTTP proxy as an absolute-form request; to SOCKS5, as a connection to its host.
        expect(proxy().forwarded, engine).toContain(proxy() === socks ? new URL(target).host : target);
      }
      // Chromium asks without credentials first, and answers the 407 with them.
      expect(proxy().denied).toEqual([]);
    });
  }

  it("sends a crawl's robots.txt and sitemap through the Squid-like proxy in absolute form (http engine)", async () => {
    const { code, stderr } = await runCli(['crawl', site.at('/articles/5'), '--use-proxy', '--engine', 'http', '--max-pages', '3'], {
      env: withProxy(squid.url),
    });
    expect(code, stderr).toBe(0);
    expect(squid.forwarded).toEqual(expect.arrayContaining([site.at('/robots.txt'), site.at('/sitemap.xml'), site.at('/articles/6')]));
    expect(squid.denied).toEqual([]);
  });

  it('tunnels https:// through CONNECT to a port the Squid-like proxy allows (its SSL_ports), and only there', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-proxy-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (_req, res) => sendHtml(res, PAGE));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const proxy = await startProxy(undefined, { connectPorts: [port] });
    try {
      const env = { ...withProxy(proxy.url), NODE_EXTRA_CA_CERTS: path.join(dir, 'cert.pem') };
      const { code, stdout, stderr } = await runCli(['scrape', `https://127.0.0.1:${port}/secure`, '--use-proxy', '--engine', 'http'], { env });
      expect(code, stderr).toBe(0);
      expect(stdout).toContain('Through the proxy');
      expect(proxy.forwarded).toEqual([`127.0.0.1:${port}`]);
    } finally {
      await proxy.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a proxy that fails fails the page at once, naming the proxy without its credentials', () => {
  // --timeout is long: a page that waited for it would say "timed out", which these tests refuse.
  const scrape = (engine: string, proxyUrl: string) =>
    runCli(['scrape', site.at(`/articles/5?failing=${engine}`), '--use-proxy', '--engine', engine, '--timeout', '40000'], { env: withProxy(proxyUrl) });

  it('refused: nothing listens at the proxy', async () => {
    const port = await closedPort();
    const results = await Promise.all(['http', 'browser'].map(async (engine) => ({ engine, ...(await scrape(engine, `http://bob:hunter2@127.0.0.1:${port}`)) })));
    for (const { engine, code, stderr } of results) {
      expect(code, engine).toBe(1);
      expect(stderr, engine).toContain(`http://127.0.0.1:${port}`);
      expect(stderr, engine).toMatch(/could not connect to the proxy/);
      expect(stderr, engine).not.toMatch(/hunter2|timed out/);
    }
  });

  it('closed: the proxy hangs up on every request, and is not asked again and again', async () => {
    const closing = await startClosingProxy();
    try {
      const results = await Promise.all(['http', 'browser'].map(async (engine) => ({ engine, ...(await scrape(engine, `http://bob:hunter2@127.0.0.1:${closing.port}`)) })));
      for (const { engine, code, stderr } of results) {
        expect(code, engine).toBe(1);
        expect(stderr, engine).toContain(`http://127.0.0.1:${closing.port}`);
        expect(stderr, engine).toMatch(/closed the connection|could not connect to the proxy/);
        expect(stderr, engine).not.toMatch(/hunter2|timed out/);
      }
      // A busy loop reconnects thousands of times; a browser retries a few.
      expect(closing.connections).toBeLessThan(20);
    } finally {
      await closing.close();
    }
  });

  it('407: wrong credentials, on the page and on https:// (CONNECT)', async () => {
    const wrong = `http://alice:wrong-password@127.0.0.1:${authProxy.port}`;
    const results = await Promise.all(['http', 'browser'].map(async (engine) => ({ engine, ...(await scrape(engine, wrong)) })));
    const secure = await runCli(['scrape', 'https://127.0.0.1:443/', '--use-proxy', '--engine', 'http', '--timeout', '40000'], { env: withProxy(wrong) });
    for (const { engine, code, stderr } of [...results, { engine: 'http, https://', ...secure }]) {
      expect(code, engine).toBe(1);
      expect(stderr, engine).toContain(`proxy http://127.0.0.1:${authProxy.port} refused the credentials (HTTP 407)`);
      expect(stderr, engine).not.toMatch(/wrong-password|timed out/);
    }
  });
});

describe('webjobs serve, whose egress proxy chains to the user\'s', () => {
  it('reads pages through the Squid-like proxy with both engines; a proxy that hangs up fails them at once', async () => {
    const closing = await startClosingProxy();
    const server = await startServe({
      args: ['--allow-host', new URL(site.url).host, '--quiet'],
      env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: 'proxy-key-0123456789:scale', WEBJOBS_PROXY_URL: squid.url,
        WEBJOBS_PROXY_URL_DE: `http://bob:hunter2@127.0.0.1:${closing.port}` },
    });
    const api = serveClient(() => server.url, 'proxy-key-0123456789');
    try {
      for (const engine of ['http', 'browser']) {
        const url = site.at(`/articles/5?serve=${engine}`);
        const job = await api.start('scrape', { url, scrapeOptions: { engine }, sessionOptions: { useProxy: true } });
        expect(await api.waitFinal(job), engine).toBe('completed');
        expect(squid.forwarded, engine).toContain(url);
        const failing = await api.start('scrape', { url, scrapeOptions: { engine, timeout: 40_000 }, sessionOptions: { useProxy: true, proxyCountry: 'DE' } });
        expect(await api.waitFinal(failing), engine).toBe('failed');
        const { error } = (await api.call('GET', failing)).body as { error: string };
        expect(error, engine).toContain(`http://127.0.0.1:${closing.port}`);
        expect(error, engine).not.toMatch(/hunter2|timed out/);
      }
      expect(squid.denied).toEqual([]);
      expect(closing.connections).toBeLessThan(20);
    } finally {
      await server.stop();
      await closing.close();
    }
  });
});
