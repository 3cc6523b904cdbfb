/**
 * Session options for real: a proxy on loopback that counts what it forwards and
 * wants credentials, and a 2Captcha-compatible solver with pages that only show
 * their content after receiving the right token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { startFakeSolver, type FakeSolver } from './helpers/fakeSolver.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startProxy, type TestProxy } from './helpers/proxyServer.js';

const TOKEN = 'solved-token-123';
const SITEKEY = '6Lc_test_sitekey';
let site: FixtureServer;
let proxy: TestProxy;
let germanProxy: TestProxy;
let solver: FakeSolver;
const home = tempHome();

const SECRET = `<article><h1>Behind the challenge</h1>${articleText('secrets')}</article>`;

beforeAll(async () => {
  site = await startFixtureServer({
    '/page': (_req, res) => sendHtml(res, html(`<article><h1>Proxied page</h1>${articleText('proxies')}</article>`)),
    '/robots.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nDisallow: /private\n');
    },
    '/recaptcha': (_req, res) =>
      sendHtml(
        res,
        html(`<main id="main"><h1>Checking you are human</h1>
          <div class="g-recaptcha" style="width:304px;height:78px" data-sitekey="${SITEKEY}" data-callback="onSolved"></div></main>
          <script>
            function onSolved(token) {
              fetch('/verify?token=' + encodeURIComponent(token)).then(r => r.text()).then(body => {
                document.getElementById('main').innerHTML = body;
              });
            }
          </script>`),
      ),
    '/hcaptcha': (_req, res) =>
      sendHtml(
        res,
        html(`<form method="post" action="/verify-form"><h1>One moment</h1>
          <div class="h-captcha" style="width:304px;height:78px" data-sitekey="hc-key"></div></form>`),
      ),
    '/article-with-form': (_req, res) =>
      sendHtml(
        res,
        html(`<article><h1>Long read</h1>${articleText('long reads', 30)}</article>
          <form><h2>Email this article</h2><div class="g-recaptcha" style="width:304px;height:78px" data-sitekey="${SITEKEY}"></div></form>`),
      ),
    '/hidden-widget': (_req, res) =>
      sendHtml(res, html(`<article><h1>Short note</h1><p>Brief.</p></article><div class="g-recaptcha" style="display:none" data-sitekey="${SITEKEY}"></div>`)),
    '/verify': (req, res) => {
      const token = new URL(req.url!, site.url).searchParams.get('token');
      sendHtml(res, token === TOKEN ? SECRET : '<p>wrong token</p>', token === TOKEN ? 200 : 403);
    },
    '/verify-form': async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const token = new URLSearchParams(body).get('h-captcha-response');
      sendHtml(res, html(token === TOKEN ? SECRET : '<p>wrong token</p>'), token === TOKEN ? 200 : 403);
    },
  });
  proxy = await startProxy({ username: 'alice', password: 's3cret' });
  germanProxy = await startProxy({ username: 'user-de', password: 'pw' });
  solver = await startFakeSolver('solver-key', TOKEN);
});

afterAll(async () => {
  await Promise.all([site.close(), proxy.close(), germanProxy.close(), solver.close()]);
});

const baseEnv = () => ({ WEBJOBS_HOME: home, WEBJOBS_PROXY_URL: `http://alice:s3cret@127.0.0.1:${proxy.port}` });

/** Whether the proxy carried `url`: both engines send a plain-HTTP page to it as a request for the URL (absolute form). */
const throughProxy = (forwarded: string[], url: string) => forwarded.includes(url);

describe('proxies', () => {
  it('sends the whole browser session through the proxy, with authentication', async () => {
    const before = proxy.forwarded.length;
    const { code, stdout, stderr } = await runCli(['scrape', site.at('/page'), '--use-proxy'], { env: baseEnv() });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Proxied page');
    expect(throughProxy(proxy.forwarded.slice(before), site.at('/page'))).toBe(true);
  });

  it('does not use the proxy without --use-proxy', async () => {
    const before = proxy.forwarded.length;
    const { code } = await runCli(['scrape', site.at('/page')], { env: baseEnv() });
    expect(code).toBe(0);
    expect(proxy.forwarded.length).toBe(before);
  });

  it('picks the proxy of the country asked for', async () => {
    const env = { ...baseEnv(), WEBJOBS_PROXY_URL_DE: `http://user-de:pw@127.0.0.1:${germanProxy.port}` };
    const before = proxy.forwarded.length;
    const { code } = await runCli(['scrape', site.at('/page'), '--proxy-country', 'DE'], { env });
    expect(code).toBe(0);
    expect(throughProxy(germanProxy.forwarded, site.at('/page'))).toBe(true);
    expect(proxy.forwarded.length).toBe(before);
  });

  it('fills a {country} placeholder for providers that encode it in the user name', async () => {
    const env = { WEBJOBS_HOME: home, WEBJOBS_PROXY_URL: `http://user-{country}:pw@127.0.0.1:${germanProxy.port}` };
    const before = germanProxy.forwarded.length;
    const { code } = await runCli(['scrape', site.at('/page'), '--use-proxy', '--proxy-country', 'DE'], { env });
    expect(code).toBe(0);
    expect(germanProxy.forwarded.length).toBeGreaterThan(before);
  });

  it('fails pages with an error naming the proxy when it refuses the credentials or is down', async () => {
    const wrong = await runCli(['scrape', site.at('/page'), '--use-proxy', '--timeout', '10000'], {
      env: { WEBJOBS_HOME: home, WEBJOBS_PROXY_URL: `http://alice:wrong@127.0.0.1:${proxy.port}` },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/proxy http:\/\/127\.0\.0\.1:\d+/);
    expect(wrong.stderr).not.toContain('wrong');
    const dead = await runCli(['scrape', site.at('/page'), '--use-proxy', '--timeout', '10000'], {
      env: { WEBJOBS_HOME: home, WEBJOBS_PROXY_URL: 'http://127.0.0.1:9' },
    });
    expect(dead.code).toBe(1);
    expect(dead.stderr).toMatch(/proxy/i);
    expect(dead.stderr).not.toMatch(/timed out/);
  });

  it("sends a crawl's own robots.txt and sitemap requests through the proxy too", async () => {
    const before = proxy.forwarded.length;
    const { code } = await runCli(['crawl', site.at('/page'), '--use-proxy', '--max-pages', '1'], { env: baseEnv() });
    expect(code).toBe(0);
    const forwarded = proxy.forwarded.slice(before);
    // Node's requests come as absolute URLs too: the proxy (Squid-like) tunnels CONNECT only to port 443.
    expect(forwarded).toContain(site.at('/robots.txt'));
    expect(throughProxy(forwarded, site.at('/page'))).toBe(true);
    expect(site.requests).toContain('GET /robots.txt');
  });

  it('refuses --use-proxy with no proxy configured, and a bad country code, before any job', async () => {
    const none = await runCli(['scrape', site.at('/page'), '--use-proxy'], { env: { WEBJOBS_HOME: home, WEBJOBS_PROXY_URL: '' } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/WEBJOBS_PROXY_URL/);
    const noCountry = await runCli(['scrape', site.at('/page'), '--proxy-country', 'FR'], { env: baseEnv() });
    expect(noCountry.code).toBe(2);
    expect(noCountry.stderr).toMatch(/no proxy for country FR/);
    const lower = await runCli(['scrape', site.at('/page'), '--proxy-country', 'de'], { env: baseEnv() });
    expect(lower.code).toBe(2);
  });
});

describe('CAPTCHAs', () => {
  const solverEnv = () => ({
    WEBJOBS_HOME: home,
    WEBJOBS_CAPTCHA_URL: solver.url,
    WEBJOBS_CAPTCHA_KEY: 'solver-key',
    WEBJOBS_CAPTCHA_POLL_MS: '100',
  });

  it('solves a reCAPTCHA through the solver and returns the content behind it', async () => {
    const { code, stdout, stderr } = await runCli(['scrape', site.at('/recaptcha'), '--solve-captchas', '--json'], { env: solverEnv() });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const record = JSON.parse(stdout);
    expect(record.data.markdown).toContain('Behind the challenge');
    expect(record.data.metadata.captcha).toBe('reCAPTCHA v2 solved');
    expect(solver.tasks.at(-1)).toMatchObject({ method: 'userrecaptcha', googlekey: SITEKEY, pageurl: site.at('/recaptcha') });
  });

  it('solves an hCaptcha in a form by submitting the form with the token', async () => {
    const { code, stdout } = await runCli(['scrape', site.at('/hcaptcha'), '--solve-captchas'], { env: solverEnv() });
    expect(code).toBe(0);
    expect(stdout).toContain('Behind the challenge');
    expect(solver.tasks.at(-1)).toMatchObject({ method: 'hcaptcha', sitekey: 'hc-key' });
  });

  it('never returns a challenge page as content when not asked to solve', async () => {
    const { code, stdout, stderr } = await runCli(['scrape', site.at('/recaptcha'), '--json'], { env: { WEBJOBS_HOME: home } });
    expect(code).toBe(1);
    expect(JSON.parse(stdout).error).toMatch(/blocked by a CAPTCHA \(reCAPTCHA v2\)/);
    expect(stderr).toMatch(/--solve-captchas/);
  });

  it('reads an article that merely carries a widget in a form, or a hidden one, as the article', async () => {
    const tasks = solver.tasks.length;
    const article = await runCli(['scrape', site.at('/article-with-form')], { env: { WEBJOBS_HOME: home } });
    expect(article.code).toBe(0);
    expect(article.stdout).toContain('Long read');
    const hidden = await runCli(['scrape', site.at('/hidden-widget'), '--solve-captchas'], { env: solverEnv() });
    expect(hidden.code).toBe(0);
    expect(hidden.stdout).toContain('Brief.');
    expect(solver.tasks.length).toBe(tasks);
  });

  it('refuses --solve-captchas with no solver configured, before any job', async () => {
    const { code, stderr } = await runCli(['scrape', site.at('/recaptcha'), '--solve-captchas'], { env: { WEBJOBS_HOME: home } });
    expect(code).toBe(2);
    expect(stderr).toMatch(/WEBJOBS_CAPTCHA_URL/);
  });
});
