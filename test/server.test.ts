/**
 * Contract of `webjobs serve`: every endpoint with good and bad requests, checked
 * by status code and body, against the real CLI's server and a real Chromium.
 * The fixture site is on 127.0.0.1 like everything here, so the server runs
 * WITHOUT --allow-private and lets only the site's own port through
 * (--allow-host); a second site on another port plays the private network.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateRequest } from '../src/api/validate.js';
import type { JobKind } from '../src/api/types.js';
import { tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEYS = { scale: 'scale-key-0123456789', free: 'free-key-0123456789', paid: 'paid-key-0123456789', busy: 'busy-key-0123456789' };
const MAX_JOBS_PER_KEY = 2;

let site: FixtureServer;
let internal: FixtureServer;
let server: ServeProcess;

interface Answer {
  status: number;
  body: any;
}

async function api(method: string, path: string, options: { key?: string | null; body?: unknown; raw?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? KEYS.scale : options.key;
  if (key !== null) headers['x-api-key'] = key;
  const payload = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${path}`, { method, headers, body: payload });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The message validateRequest gives the CLI for the same body: the server's 400 must say the same. */
function cliMessage(kind: JobKind, body: unknown): string {
  try {
    validateRequest(kind, body);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the body to be invalid');
}

async function waitFinal(path: string, key = KEYS.scale): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const { body } = await api('GET', `${path}/status`, { key });
    if (['completed', 'failed', 'stopped'].includes(body.status)) return body.status;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${path} did not finish`);
}

async function waitStatus(path: string, wanted: string, key = KEYS.scale): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await api('GET', `${path}/status`, { key })).body.status === wanted) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${path} never became ${wanted}`);
}

beforeAll(async () => {
  internal = await startFixtureServer({
    '/secret': (_req, res) => sendHtml(res, html('<h1>Internal secret</h1><p>Not for the internet.</p>')),
    '/sitemap.xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end('<urlset><url><loc>http://127.0.0.1/</loc></url></urlset>');
    },
    '/tracker.js': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end('document.title = "leaked";');
    },
  });
  site = await startFixtureServer({
    '/article': (_req, res) => sendHtml(res, html(`<article><h1>Served article</h1>${articleText('servers')}</article>`, { title: 'Served' })),
    '/p1': (_req, res) => sendHtml(res, html(`<article><h1>Page one</h1>${articleText('one')}</article>`)),
    '/p2': (_req, res) => sendHtml(res, html(`<article><h1>Page two</h1>${articleText('two')}</article>`)),
    '/p3': (_req, res) => sendHtml(res, html(`<article><h1>Page three</h1>${articleText('three')}</article>`)),
    '/to-internal': (_req, res) => {
      res.writeHead(302, { location: internal.at('/secret') });
      res.end();
    },
    '/to-localhost': (_req, res) => {
      res.writeHead(302, { location: internal.at('/secret').replace('127.0.0.1', 'localhost') });
      res.end();
    },
    '/embeds-internal': (_req, res) =>
      sendHtml(res, html(`<article><h1>Embeds</h1>${articleText('embeds')}</article><script src="${internal.at('/tracker.js')}"></script>`)),
    '/hang': () => new Promise(() => undefined),
    '/robots.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`User-agent: *\nAllow: /\nSitemap: ${site.at('/sitemap-hop')}\n`);
    },
    '/sitemap-hop': (_req, res) => {
      res.writeHead(302, { location: internal.at('/sitemap.xml') });
      res.end();
    },
  });
  server = await startServe({
    args: ['--allow-host', new URL(site.url).host, '--max-jobs-per-key', String(MAX_JOBS_PER_KEY), '--quiet'],
    env: {
      WEBJOBS_HOME: tempHome(),
      WEBJOBS_API_KEYS: `${KEYS.scale}:scale,${KEYS.free}:free,${KEYS.paid}:paid,${KEYS.busy}:enterprise`,
    },
  });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
  await internal?.close();
});

describe('authentication', () => {
  it('refuses a request without a key, and one with a wrong key, with 401', async () => {
    const none = await api('GET', '/api/jobs', { key: null });
    expect(none).toEqual({ status: 401, body: { message: expect.stringContaining('x-api-key') } });
    const wrong = await api('POST', '/api/scrape', { key: 'scale-key-012345678X', body: { url: site.at('/article') } });
    expect(wrong).toEqual({ status: 401, body: { message: 'invalid API key' } });
  });

  it('answers /healthz without a key, and unknown endpoints with a JSON 404', async () => {
    expect(await api('GET', '/healthz', { key: null })).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await api('GET', '/api/nothing')).toEqual({ status: 404, body: { message: 'no such endpoint: GET /api/nothing' } });
  });
});

describe('plans', () => {
  it('refuses batch scrape below the scale plan with 402 naming the plan', async () => {
    const answer = await api('POST', '/api/scrape/batch', { key: KEYS.free, body: { urls: [site.at('/p1')] } });
    expect(answer.status).toBe(402);
    expect(answer.body.message).toMatch(/scale plan or higher.*free plan/);
    const status = await api('GET', '/api/scrape/batch/3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d/status', { key: KEYS.paid });
    expect(status.status).toBe(402);
  });

  it('refuses useProxy and solveCaptchas on the free plan with 402; a paid key passes the plan check', async () => {
    const proxy = await api('POST', '/api/scrape', { key: KEYS.free, body: { url: site.at('/p1'), sessionOptions: { useProxy: true } } });
    expect(proxy.status).toBe(402);
    expect(proxy.body.message).toContain('sessionOptions.useProxy needs a paid plan');
    const captcha = await api('POST', '/api/crawl', { key: KEYS.free, body: { url: site.at('/p1'), sessionOptions: { solveCaptchas: true } } });
    expect(captcha.status).toBe(402);
    expect(captcha.body.message).toContain('solveCaptchas');
    const paid = await api('POST', '/api/scrape', { key: KEYS.paid, body: { url: site.at('/p1'), sessionOptions: { useProxy: true } } });
    expect(paid.status).not.toBe(402);
  });
});

describe('request validation', () => {
  const cases: [string, JobKind, unknown][] = [
    ['url of the wrong type', 'scrape', { url: 42 }],
    ['a non-http scheme', 'scrape', { url: 'ftp://example.com/file' }],
    ['a body that is an array', 'scrape', [{ url: 'https://example.com' }]],
    ['an unknown field', 'scrape', { url: 'https://example.com', colour: 'red' }],
    ['an unknown format', 'scrape', { url: 'https://example.com', scrapeOptions: { formats: ['pdf'] } }],
    ['a timeout that is a string', 'scrape', { url: 'https://example.com', scrapeOptions: { timeout: '10' } }],
    ['1,001 batch URLs', 'batch', { urls: Array.from({ length: 1001 }, (_, i) => `https://example.com/${i}`) }],
    ['a batch URL with a bad scheme', 'batch', { urls: ['https://example.com', 'javascript:alert(1)'] }],
    ['maxPages 0', 'crawl', { url: 'https://example.com', maxPages: 0 }],
    ['maxPages 101', 'crawl', { url: 'https://example.com', maxPages: 101 }],
    ['extract without schema or prompt', 'extract', { urls: ['https://example.com'] }],
  ];
  const paths: Record<JobKind, string> = { scrape: '/api/scrape', batch: '/api/scrape/batch', crawl: '/api/crawl', extract: '/api/extract' };

  it.each(cases)('refuses %s with 400 and the CLI’s own message', async (_what, kind, body) => {
    const answer = await api('POST', paths[kind], { body });
    expect(answer).toEqual({ status: 400, body: { message: cliMessage(kind, body) } });
  });

  it('refuses a body that is not JSON with 400, and one over 1 MiB with 413', async () => {
    const broken = await api('POST', '/api/scrape', { raw: '{"url": ' });
    expect(broken.status).toBe(400);
    expect(broken.body.message).toMatch(/not valid JSON/);
    // Refused before it is read: the client, still sending, must get the answer and not a reset connection (it did, now and then).
    const raw = JSON.stringify({ urls: [`https://example.com/${'x'.repeat(1_100_000)}`] });
    for (let i = 0; i < 100; i++) {
      const huge = await api('POST', '/api/scrape/batch', { raw });
      expect(huge).toEqual({ status: 413, body: { message: expect.stringContaining('too large') } });
    }
  });
});

describe('unknown jobs', () => {
  const unknown = '3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d';

  it.each(['/api/scrape', '/api/scrape/batch', '/api/crawl', '/api/extract'])('%s: status, result and cancel of an unknown id answer 404', async (base) => {
    for (const [method, path] of [['GET', `${base}/${unknown}/status`], ['GET', `${base}/${unknown}`], ['DELETE', `${base}/${unknown}`]] as const) {
      const answer = await api(method, path);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.message).toContain(`No job with id ${unknown}`);
    }
  });

  it('answers 400 for something that is not a job id', async () => {
    const answer = await api('GET', '/api/scrape/not-an-id/status');
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('is not a job id');
  });
});

describe('a scrape job through the API', () => {
  it('start returns only the jobId, status only the status, result the record; other keys see 404', async () => {
    const start = await api('POST', '/api/scrape', { body: { url: site.at('/article'), scrapeOptions: { formats: ['markdown', 'links'] } } });
    expect(start.status).toBe(200);
    expect(Object.keys(start.body)).toEqual(['jobId']);
    const path = `/api/scrape/${start.body.jobId}`;
    expect(await waitFinal(path)).toBe('completed');
    const status = await api('GET', `${path}/status`);
    expect(status.body).toEqual({ status: 'completed' });
    const result = await api('GET', path);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ jobId: start.body.jobId, status: 'completed', data: { metadata: { title: 'Served' } } });
    expect(result.body.data.markdown).toContain('Served article');
    expect(Array.isArray(result.body.data.links)).toBe(true);
    expect((await api('GET', path, { key: KEYS.paid })).status).toBe(404);
    expect((await api('GET', `${path}/status`, { key: KEYS.paid })).status).toBe(404);
    const mine = await api('GET', '/api/jobs');
    expect(mine.body.map((j: { jobId: string }) => j.jobId)).toContain(start.body.jobId);
    const theirs = await api('GET', '/api/jobs', { key: KEYS.paid });
    expect(theirs.body.map((j: { jobId: string }) => j.jobId)).not.toContain(start.body.jobId);
  });

  it('a status endpoint of another kind does not know the job', async () => {
    const start = await api('POST', '/api/scrape', { body: { url: site.at('/p1') } });
    expect((await api('GET', `/api/crawl/${start.body.jobId}/status`)).status).toBe(404);
    await waitFinal(`/api/scrape/${start.body.jobId}`);
  });
});

describe('batch results are paged', () => {
  it('pages with page and batchSize, defaults 1 and 100, and refuses bad paging with 400', async () => {
    const urls = [site.at('/p1'), site.at('/p2'), site.at('/p3'), site.at('/article'), site.at('/p1')];
    const start = await api('POST', '/api/scrape/batch', { body: { urls } });
    expect(start.status).toBe(200);
    const path = `/api/scrape/batch/${start.body.jobId}`;
    expect(await waitFinal(path)).toBe('completed');

    const second = await api('GET', `${path}?page=2&batchSize=2`);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'completed', totalPageBatches: 3, currentPageBatch: 2, batchSize: 2, totalScrapedPages: 5 });
    expect(second.body.data.map((e: { url: string }) => e.url)).toEqual(urls.slice(2, 4));
    const last = await api('GET', `${path}?page=3&batchSize=2`);
    expect(last.body.data.map((e: { url: string }) => e.url)).toEqual(urls.slice(4));
    const whole = await api('GET', path);
    expect(whole.body).toMatchObject({ totalPageBatches: 1, currentPageBatch: 1, batchSize: 100 });
    expect(whole.body.data).toHaveLength(5);
    expect(whole.body.data.every((e: { status: string }) => e.status === 'completed')).toBe(true);

    for (const query of ['page=0', 'batchSize=1001', 'page=two', 'batchSize=0']) {
      const bad = await api('GET', `${path}?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.message).toMatch(/^(page|batchSize) must be an integer from 1 to/);
    }
  });
});

describe('server-side request forgery', () => {
  it('refuses a loopback URL at start: an IP literal, and localhost', async () => {
    const literal = await api('POST', '/api/scrape', { body: { url: internal.at('/secret') } });
    expect(literal.status).toBe(400);
    expect(literal.body.message).toContain(`refused to fetch ${internal.at('/secret')}`);
    const named = await api('POST', '/api/scrape/batch', { body: { urls: [site.at('/p1'), internal.at('/secret').replace('127.0.0.1', 'localhost')] } });
    expect(named.status).toBe(400);
    expect(named.body.message).toContain('loopback, private, link-local or metadata');
    expect(internal.requests).not.toContain('GET /secret');
  });

  it('refuses at connection time a redirect from an allowed site to a loopback address or name', async () => {
    for (const route of ['/to-internal', '/to-localhost']) {
      const start = await api('POST', '/api/scrape', { body: { url: site.at(route) } });
      expect(start.status).toBe(200);
      const path = `/api/scrape/${start.body.jobId}`;
      expect(await waitFinal(path)).toBe('failed');
      const record = (await api('GET', path)).body;
      expect(record.error).toMatch(/^refused to fetch http:\/\/(127\.0\.0\.1|localhost):\d+\/secret: .* is a loopback, private, link-local or metadata address/);
    }
    expect(internal.requests).not.toContain('GET /secret');
  });

  it('fails a map whose start URL redirects to a refused address, saying why, on /api/map and /v2/map', async () => {
    for (const route of ['/api/map', '/v2/map']) {
      const response = await fetch(`${server.url}${route}`, {
        method: 'POST',
        headers: { 'x-api-key': KEYS.scale, authorization: `Bearer ${KEYS.scale}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: site.at('/to-internal') }),
      });
      const answer = { status: response.status, body: (await response.json()) as unknown };
      expect(answer.status, route).toBe(400);
      expect(JSON.stringify(answer.body), route).toMatch(/could not map .*\/to-internal: refused to fetch http:\/\/127\.0\.0\.1:\d+\/secret: .* is a loopback, private, link-local or metadata address/);
    }
    expect(internal.requests).not.toContain('GET /secret');
  });

  it('refuses the subresources of an allowed page that point at a private address', async () => {
    const start = await api('POST', '/api/scrape', { body: { url: site.at('/embeds-internal') } });
    const path = `/api/scrape/${start.body.jobId}`;
    expect(await waitFinal(path)).toBe('completed');
    const record = (await api('GET', path)).body;
    expect(record.data.markdown).toContain('Embeds');
    expect(record.data.metadata.title).not.toBe('leaked');
    expect(internal.requests).not.toContain('GET /tracker.js');
  });
});

describe('server-side request forgery in a crawl', () => {
  it("checks every redirect hop of the crawler's own robots.txt and sitemap requests", async () => {
    const start = await api('POST', '/api/crawl', { body: { url: site.at('/p1'), maxPages: 2, followLinks: false } });
    expect(start.status).toBe(200);
    const path = `/api/crawl/${start.body.jobId}`;
    expect(await waitFinal(path)).toBe('completed');
    expect(site.requests).toContain('GET /sitemap-hop');
    expect(internal.requests).not.toContain('GET /sitemap.xml');
  });
});

describe('too many jobs for one key, and cancel', () => {
  it(`answers 429 past ${MAX_JOBS_PER_KEY} pending or running jobs of a key; cancelling frees a place`, async () => {
    const body = { url: site.at('/hang'), scrapeOptions: { timeout: 8_000 } };
    const first = await api('POST', '/api/scrape', { key: KEYS.busy, body });
    const second = await api('POST', '/api/scrape', { key: KEYS.busy, body });
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await api('POST', '/api/scrape', { key: KEYS.busy, body });
    expect(third).toEqual({ status: 429, body: { message: expect.stringContaining(`${MAX_JOBS_PER_KEY} pending or running`) } });
    // Another key is not held back by this one.
    expect((await api('POST', '/api/scrape', { key: KEYS.paid, body: { url: site.at('/p2') } })).status).toBe(200);

    await waitStatus(`/api/scrape/${first.body.jobId}`, 'running', KEYS.busy);
    const cancelled = await api('DELETE', `/api/scrape/${first.body.jobId}`, { key: KEYS.busy });
    expect(cancelled).toEqual({ status: 200, body: { status: 'stopped' } });
    expect((await api('GET', `/api/scrape/${first.body.jobId}/status`, { key: KEYS.busy })).body).toEqual({ status: 'stopped' });
    const again = await api('POST', '/api/scrape', { key: KEYS.busy, body: { url: site.at('/p3') } });
    expect(again.status).toBe(200);
    expect((await api('DELETE', `/api/scrape/${second.body.jobId}`, { key: KEYS.busy })).body).toEqual({ status: 'stopped' });
  });
});
