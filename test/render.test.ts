/**
 * Pages rendered by script and HTTP errors without a body, through the real engine:
 * a real Chromium (BrowserPool) scraping pages served on 127.0.0.1, default options
 * unless a test says otherwise.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../src/engine/browser/browser.js';
import { scrapeUrl } from '../src/engine/browser/scrape.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

let site: FixtureServer;
let pool: BrowserPool;

/** Answers `status` with no body at all, as many APIs and proxies do. */
const emptyAnswer = (status: number) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': '0' });
  res.end();
};

/** An application shell: a title saying it is loading and an empty mount point, filled by `script`. */
const shell = (script: string, mount = '<div id="root"></div>') =>
  html(`${mount}<noscript>You need to enable JavaScript to run this app.</noscript><script>${script}</script>`, { title: 'Loading' });

const rendered = (topic: string) => JSON.stringify(`<article><h1>Rendered ${topic}</h1>${articleText(topic)}</article>`);

beforeAll(async () => {
  site = await startFixtureServer({
    // Fills #root 150 ms after load, as a client-side app does after its bundle has run.
    '/timer-shell': (_req, res) =>
      sendHtml(
        res,
        shell(`addEventListener('load', () => setTimeout(() => {
          document.title = 'Timer app';
          document.getElementById('root').innerHTML = ${rendered('timers')};
        }, 150));`),
      ),
    // Fetches its data from the same server after load; the API answers a little later.
    '/fetch-shell': (_req, res) =>
      sendHtml(
        res,
        shell(
          `addEventListener('load', () => fetch('/api/story').then((r) => r.json()).then((story) => {
            document.getElementById('app').innerHTML = story.html;
          }));`,
          '<div id="app">Loading…</div>',
        ),
      ),
    '/api/story': (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ html: JSON.parse(rendered('fetches')) }));
      }, 300);
    },
    // Same with XMLHttpRequest, the API answering later still.
    '/xhr-shell': (_req, res) =>
      sendHtml(
        res,
        shell(`const xhr = new XMLHttpRequest();
          xhr.open('GET', '/api/slow-story');
          xhr.onload = () => { document.getElementById('root').innerHTML = JSON.parse(xhr.responseText).html; };
          xhr.send();`),
      ),
    '/api/slow-story': (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ html: JSON.parse(rendered('requests')) }));
      }, 1_200);
    },
    // Pages with content whose clock never stops ticking: the DOM never settles.
    '/clock': (_req, res) =>
      sendHtml(
        res,
        html(`<article><h1>Timekeeping</h1>${articleText('clocks')}<p id="clock"></p></article>
          <script>(function tick() {
            document.getElementById('clock').textContent = String(Date.now());
            setTimeout(tick, 20);
          })();</script>`),
      ),
    '/interval-clock': (_req, res) =>
      sendHtml(
        res,
        html(`<article><h1>Timekeeping</h1>${articleText('intervals')}<p id="clock"></p></article>
          <script>setInterval(() => { document.getElementById('clock').textContent = String(Date.now()); }, 20);</script>`),
      ),
    // A page with content and a script that keeps timers for itself: they must still fire as asked.
    '/timers': (_req, res) =>
      sendHtml(
        res,
        html(`<article><h1>Timers</h1>${articleText('schedules')}<ul id="log"></ul></article>
          <script>
            const log = (what) => { const li = document.createElement('li'); li.textContent = what; document.getElementById('log').append(li); };
            const cancelled = setTimeout(() => log('cancelled timer fired'), 10);
            clearTimeout(cancelled);
            setTimeout(function (word) { log(word + ' ' + (this === window)); }, 5, 'argument');
            setTimeout("log('string timer fired')", 5);
          </script>`),
      ),
    // A shell that never renders: its API never answers.
    '/stuck-shell': (_req, res) => sendHtml(res, shell(`fetch('/api/never');`, '<div id="root">Loading…</div>')),
    '/api/never': () => {
      /* never answers */
    },
    '/empty-500': emptyAnswer(500),
    '/empty-404': emptyAnswer(404),
    '/empty-503-plain': (_req, res) => {
      res.writeHead(503);
      res.end();
    },
    '/empty-500-json': (_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json', 'content-length': '0' });
      res.end();
    },
    // Refreshes itself at once, for ever: each hop a new document.
    '/loop': (req, res) => {
      const hop = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? 0);
      sendHtml(res, html(`<p>Hop ${hop}</p>`, { head: `<meta http-equiv="refresh" content="0; url=/loop?n=${hop + 1}">` }));
    },
    // The same loop, but each document's body comes 300 ms after its headers: a page held
    // between those two moments has a document with nothing in it.
    '/slow-loop': (req, res) => {
      const hop = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? 0);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.flushHeaders();
      setTimeout(() => res.end(html(`<p>Hop ${hop}</p>`, { head: `<meta http-equiv="refresh" content="0; url=/slow-loop?n=${hop + 1}">` })), 300);
    },
    '/body-500': (_req, res) => sendHtml(res, html(`<article><h1>Server trouble</h1>${articleText('errors')}</article>`), 500),
  });
  pool = new BrowserPool();
});

afterAll(async () => {
  await pool?.close();
  await site?.close();
});

describe('pages rendered by script, default options', () => {
  it('reads a shell that fills #root 150 ms after load', async () => {
    const data = await scrapeUrl(pool, site.at('/timer-shell'));
    expect(data.markdown).toContain('Rendered timers');
    expect(data.markdown).toContain('Paragraph 6 about timers');
    expect(data.metadata.title).toBe('Timer app');
  });

  it('reads a shell that renders JSON fetched after load', async () => {
    const data = await scrapeUrl(pool, site.at('/fetch-shell'));
    expect(site.requests).toContain('GET /api/story');
    expect(data.markdown).toContain('Paragraph 6 about fetches');
    expect(data.markdown).not.toContain('Loading');
  });

  it('waits for an XMLHttpRequest in flight, even one slower than the quiet period', async () => {
    const data = await scrapeUrl(pool, site.at('/xhr-shell'));
    expect(data.markdown).toContain('Paragraph 6 about requests');
  });

  it('completes a page that keeps mutating forever, with its content', async () => {
    const data = await scrapeUrl(pool, site.at('/clock'));
    expect(data.markdown).toContain('Paragraph 6 about clocks');
    const interval = await scrapeUrl(pool, site.at('/interval-clock'));
    expect(interval.markdown).toContain('Paragraph 6 about intervals');
  });

  it("leaves the page's own timers working as the page asked", async () => {
    const data = await scrapeUrl(pool, site.at('/timers'), { onlyMainContent: false });
    expect(data.markdown).toContain('argument true');
    expect(data.markdown).toContain('string timer fired');
    expect(data.markdown).not.toContain('cancelled timer fired');
  });

  it('completes a shell that never renders with what it shows, inside a short timeout', async () => {
    const data = await scrapeUrl(pool, site.at('/stuck-shell'), { timeout: 3_000 });
    expect(data.metadata.statusCode).toBe('200');
    expect(data.metadata.warning).toBeUndefined();
  });

  it('adds waitFor after the settle wait, and keeps waitUntil', async () => {
    const data = await scrapeUrl(pool, site.at('/timer-shell'), { waitUntil: 'domcontentloaded', waitFor: 100 });
    expect(data.markdown).toContain('Paragraph 6 about timers');
  });
});

describe('HTTP errors without a body', () => {
  for (const [path, status] of [
    ['/empty-500', '500'],
    ['/empty-404', '404'],
    ['/empty-503-plain', '503'],
    ['/empty-500-json', '500'],
  ] as const) {
    it(`completes ${path} with status ${status} and no content, never Chromium's error page`, async () => {
      const data = await scrapeUrl(pool, site.at(path), { formats: ['markdown', 'html', 'links'] });
      expect(data.metadata.statusCode).toBe(status);
      expect(data.metadata.url).toBe(site.at(path));
      expect(data.metadata.sourceURL).toBe(site.at(path));
      expect(data.markdown).toBe('');
      expect(data.html).toBe('');
      expect(data.links).toEqual([]);
      expect(data.metadata.warning).toMatch(/answered HTTP \d+ with an empty body/);
      expect(JSON.stringify(data)).not.toMatch(/isn.t working|HTTP ERROR|chrome-error/i);
    });
  }

  it('still reads a 500 that has a real HTML body', async () => {
    const data = await scrapeUrl(pool, site.at('/body-500'));
    expect(data.metadata.statusCode).toBe('500');
    expect(data.metadata.url).toBe(site.at('/body-500'));
    expect(data.markdown).toContain('Server trouble');
    expect(data.markdown).toContain('Paragraph 6 about errors');
  });

  it('a tab that showed an error page serves the next page normally', async () => {
    await scrapeUrl(pool, site.at('/empty-500'));
    const data = await scrapeUrl(pool, site.at('/timer-shell'));
    expect(data.markdown).toContain('Paragraph 6 about timers');
  });
});

describe('a page that refreshes itself for ever', () => {
  it('is held still after a bounded number of hops and read there, every time', { timeout: 300_000 }, async () => {
    // Chromium refuses (or leaves unanswered) an order to stop a tab between two documents;
    // eight scrapes hit that moment (before the fix, one of the first three failed or hung).
    for (let i = 0; i < 8; i++) {
      const data = await scrapeUrl(pool, site.at('/loop'), { onlyMainContent: false });
      expect(data.markdown).toMatch(/^Hop \d+$/m);
      expect(data.markdown).toContain(`Hop ${new URL(data.metadata.url).searchParams.get('n')}`);
    }
  });

  it('is read with its content when each document is slow to come', { timeout: 300_000 }, async () => {
    // Before the page was told to cancel its own navigations, the stop order nearly always landed
    // between a document's headers and its body, and the scrape read an empty page.
    for (let i = 0; i < 4; i++) {
      const data = await scrapeUrl(pool, site.at('/slow-loop'), { onlyMainContent: false });
      expect(data.markdown).toMatch(/^Hop \d+$/m);
      expect(data.markdown).toContain(`Hop ${new URL(data.metadata.url).searchParams.get('n')}`);
    }
  });
});
