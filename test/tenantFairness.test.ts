/**
 * Keys of one `webjobs serve` do not reach each other through the page cache,
 * and share its job slots: URL credentials are part of a cached page's key, each
 * key has its own cache entries (unless --shared-cache), a page read half-loaded
 * is never cached, and one key's long batches do not hold every slot. A real
 * serve (default --max-jobs 2), two keys, a fixture site on 127.0.0.1.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const KEYS = { a: 'fair-a-key-0123456789', b: 'fair-b-key-0123456789' };
const SLOW = 180_000;

let site: FixtureServer;
let serve: ServeProcess;
const api = serveClient(() => serve.url, KEYS.a);

/** Held pages: their responses wait until the test releases them. */
const heldResponses: http.ServerResponse[] = [];
const heldWaiters: (() => void)[] = [];
let releasedAll = false;
/** Whether /slow-load's image hangs (the page's load event never comes). */
let imageHangs = true;
const hungImages: http.ServerResponse[] = [];

const article = (title: string) => html(`<article><h1>${title}</h1>${articleText(title)}</article>`, { title });

function untilHeld(count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (heldResponses.length >= count ? resolve() : heldWaiters.push(check));
    check();
  });
}

beforeAll(async () => {
  site = await startFixtureServer({
    '/account': (req, res) => {
      const auth = req.headers.authorization;
      if (auth === `Basic ${Buffer.from('alice:s3cret').toString('base64')}`) return sendHtml(res, article('Alice account'));
      if (auth === `Basic ${Buffer.from('bob:hunter2').toString('base64')}`) return sendHtml(res, article('Bob account'));
      res.writeHead(401, { 'www-authenticate': 'Basic realm="x"', 'content-type': 'text/html' });
      res.end(html('<h1>Who are you?</h1><p>Log in first.</p>', { title: 'Login' }));
    },
    '/public': (_req, res) => sendHtml(res, article('Public page')),
    '/slow-load': (_req, res) => sendHtml(res, html(`<article><h1>Slow load</h1>${articleText('slow load')}</article><iframe src="/image.png"></iframe>`, { title: 'Slow load' })),
    '/image.png': (_req, res) => {
      if (!imageHangs) {
        res.writeHead(404);
        res.end();
        return;
      }
      hungImages.push(res);
    },
    '/quick': (_req, res) => sendHtml(res, article('Quick page')),
  }, (req, res) => {
    if (!req.url?.startsWith('/held/')) {
      res.writeHead(404);
      res.end();
      return;
    }
    if (releasedAll) return sendHtml(res, article(`Held ${req.url}`));
    heldResponses.push(res);
    heldWaiters.splice(0).forEach((wake) => wake());
  });
  serve = await startServe({
    args: ['--allow-private', '--quiet'],
    env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEYS.a}:scale,${KEYS.b}:scale` },
  });
});

afterAll(async () => {
  releasedAll = true;
  for (const res of heldResponses.splice(0)) sendHtml(res, article('released'));
  for (const res of hungImages.splice(0)) res.destroy();
  await serve?.stop();
  await site?.close();
});

interface Page {
  markdown?: string;
  metadata: Record<string, string>;
}

async function scrape(key: string, url: string, scrapeOptions: Record<string, unknown>): Promise<Page> {
  const path = await api.start('scrape', { url, scrapeOptions: { formats: ['markdown'], ...scrapeOptions } }, key);
  expect(await api.waitFinal(path, key)).toBe('completed');
  const { body } = await api.call('GET', path, { key });
  return body.data as Page;
}

const http_ = { engine: 'http', maxAge: 600_000 };

describe('the page cache', () => {
  it('keeps the credentials of a URL in the key: a page read as alice is never served without them', async () => {
    const withAlice = site.at('/account').replace('http://', 'http://alice:s3cret@');
    const first = await scrape(KEYS.a, withAlice, http_);
    expect(first.metadata.cacheState).toBe('miss');
    expect(first.markdown).toContain('Alice account');
    // The same key, the same URL without credentials: not alice's page.
    const bare = await scrape(KEYS.a, site.at('/account'), http_);
    expect(bare.markdown).not.toContain('Alice account');
    expect(bare.metadata.statusCode).toBe('401');
    // Other credentials: their own page.
    const withBob = await scrape(KEYS.a, site.at('/account').replace('http://', 'http://bob:hunter2@'), http_);
    expect(withBob.markdown).toContain('Bob account');
    expect(withBob.metadata.cacheState).toBe('miss');
    // Alice's again: from the cache.
    const again = await scrape(KEYS.a, withAlice, http_);
    expect(again.metadata.cacheState).toBe('hit');
    expect(again.markdown).toContain('Alice account');
  }, SLOW);

  it("is each key's own: another key's request is a miss, and neither sees what the other fetched", async () => {
    const withAlice = site.at('/account').replace('http://', 'http://alice:s3cret@');
    // Key B, with alice's very credentials, gets no hit from key A's entry.
    const stolen = await scrape(KEYS.b, withAlice, http_);
    expect(stolen.metadata.cacheState).toBe('miss');
    const before = site.requests.filter((r) => r === 'GET /public').length;
    expect((await scrape(KEYS.a, site.at('/public'), http_)).metadata.cacheState).toBe('miss');
    expect((await scrape(KEYS.b, site.at('/public'), http_)).metadata.cacheState).toBe('miss');
    expect((await scrape(KEYS.a, site.at('/public'), http_)).metadata.cacheState).toBe('hit');
    expect(site.requests.filter((r) => r === 'GET /public').length).toBe(before + 2);
  }, SLOW);

  it('never keeps a page read as it stood when its load did not finish within the timeout', async () => {
    const url = site.at('/slow-load');
    const half = await scrape(KEYS.a, url, { engine: 'browser', maxAge: 600_000, timeout: 2_000 });
    expect(half.metadata.warning).toMatch(/did not finish loading within 2000 ms/);
    expect(half.metadata.cacheState).toBe('miss');
    imageHangs = false;
    for (const res of hungImages.splice(0)) res.destroy();
    const whole = await scrape(KEYS.a, url, { engine: 'browser', maxAge: 600_000, timeout: 30_000 });
    expect(whole.metadata.cacheState).toBe('miss');
    expect(whole.metadata.warning).toBeUndefined();
    // The whole page is kept.
    expect((await scrape(KEYS.a, url, { engine: 'browser', maxAge: 600_000, timeout: 30_000 })).metadata.cacheState).toBe('hit');
  }, SLOW);
});

describe('job slots', () => {
  it("one key's two long batches do not hold every slot: another key's scrape runs and completes meanwhile", async () => {
    const batch = (name: string) => ({ urls: [site.at(`/held/${name}-1`), site.at(`/held/${name}-2`)], scrapeOptions: { engine: 'http', timeout: 120_000 } });
    const first = await api.start('scrape/batch', batch('one'), KEYS.a);
    const second = await api.start('scrape/batch', batch('two'), KEYS.a);
    // Key A's first batch holds its pages open on the site.
    await untilHeld(1);
    const scrapeB = await api.start('scrape', { url: site.at('/quick'), scrapeOptions: { engine: 'http' } }, KEYS.b);
    expect(await api.waitFinal(scrapeB, KEYS.b)).toBe('completed');
    // A's batches are still under way: nothing of theirs was released.
    expect((await api.call('GET', `${first}/status`)).body.status).toBe('running');
    expect(['pending', 'running']).toContain((await api.call('GET', `${second}/status`)).body.status);
    releasedAll = true;
    for (const res of heldResponses.splice(0)) sendHtml(res, article('released'));
    expect(await api.waitFinal(first)).toBe('completed');
    expect(await api.waitFinal(second)).toBe('completed');
  }, SLOW);
});
