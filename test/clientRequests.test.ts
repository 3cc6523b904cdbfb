/**
 * What clients send to `webjobs serve`, and how many requests `--remote` makes
 * (issue 37 §4), against a real serve: raw requests as axios, SDKs and curl scripts
 * send them (content-type: application/json on every call, no body), and the CLI's
 * requests counted in the serve's own request log.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const KEY = 'client-requests-key-0123456789';
const UNKNOWN = '3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d';

let site: FixtureServer;
let server: ServeProcess;
const api = serveClient(() => server.url, KEY);

/** One raw request: `headers` exactly as given (no content-length unless named), no body. */
function rawRequest(method: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Where the serve's request log stands, once every request answered before this call is in it:
 * a line is logged when its answer is sent, so the line of a request sent now comes after theirs.
 */
async function logMark(): Promise<number> {
  const mark = randomUUID();
  await fetch(`${server.url}/healthz?mark=${mark}`);
  while (!server.stderr().includes(mark)) await new Promise((resolve) => setTimeout(resolve, 20));
  return server.stderr().indexOf(mark);
}

/** The serve's request log lines about `jobId` since `since` (a logMark), without time and key. */
async function loggedRequests(jobId: string, since: number): Promise<string[]> {
  return server
    .stderr()
    .slice(since, await logMark())
    .split('\n')
    .filter((line) => line.includes(jobId))
    .map((line) => line.replace(/^\S+ /, '').replace(/ \d+ms( key=.*)?$/, ''));
}

const remote = (args: string[]) => runCli([...args, '--remote', server.url, '--api-key', KEY], { env: { WEBJOBS_HOME: tempHome() } });

beforeAll(async () => {
  site = await startFixtureServer({
    '/': (_req, res) => sendHtml(res, html(`<article><h1>Home</h1>${articleText('home', 3)}<p><a href="/a">A</a></p></article>`, { title: 'Home' })),
    '/a': (_req, res) => sendHtml(res, html(`<article><h1>Page A</h1>${articleText('alpha', 3)}</article>`, { title: 'A' })),
  });
  // Not --quiet: the request log is what the --remote test counts.
  server = await startServe({ args: ['--allow-private'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
});

describe('content-type: application/json with an empty body', () => {
  const jobs: Record<string, string> = {};

  beforeAll(async () => {
    jobs.scrape = await api.start('scrape', { url: site.at('/a') });
    jobs['scrape/batch'] = await api.start('scrape/batch', { urls: [site.at('/a'), site.at('/')] });
    jobs.crawl = await api.start('crawl', { url: site.at('/'), maxPages: 2 });
    for (const path of Object.values(jobs)) await api.waitFinal(path);
  });

  // Node's http sends neither content-length nor transfer-encoding on a DELETE without a body (as curl -X DELETE does); axios sends content-length: 0.
  const variants: [string, Record<string, string>][] = [
    ['no content-length', { 'content-type': 'application/json' }],
    ['content-length: 0', { 'content-type': 'application/json; charset=utf-8', 'content-length': '0' }],
  ];

  it.each(variants)('/api: every route answers as without the header (%s)', async (_name, headers) => {
    const withKey = { ...headers, 'x-api-key': KEY };
    for (const path of Object.values(jobs)) {
      for (const [method, route] of [['GET', `${path}/status`], ['GET', path], ['DELETE', path]] as const) {
        const answer = await rawRequest(method, route, withKey);
        expect(answer.status, `${method} ${route}: ${answer.body}`).toBe(200);
        expect(JSON.parse(answer.body).status).toBe('completed');
      }
    }
    const unknown = await rawRequest('DELETE', `/api/extract/${UNKNOWN}`, withKey);
    expect(unknown.status, unknown.body).toBe(404);
    expect((await rawRequest('GET', '/api/jobs', withKey)).status).toBe(200);
    // A start with no body is refused for what it lacks, in webjobs' words.
    const start = await rawRequest('POST', '/api/scrape', withKey);
    expect(start.status).toBe(400);
    expect(JSON.parse(start.body).message).not.toMatch(/Body cannot be empty/);
  });

  it.each(variants)('Firecrawl /v1 and /v2: cancel and status answer as without the header (%s)', async (_name, headers) => {
    const withKey = { ...headers, authorization: `Bearer ${KEY}` };
    const id = (path: string) => path.split('/').at(-1)!;
    for (const version of ['v1', 'v2']) {
      for (const route of [`/${version}/crawl/${id(jobs.crawl!)}`, `/${version}/batch/scrape/${id(jobs['scrape/batch']!)}`]) {
        for (const method of ['GET', 'DELETE']) {
          const answer = await rawRequest(method, route, withKey);
          expect(answer.status, `${method} ${route}: ${answer.body}`).toBe(200);
          expect(JSON.parse(answer.body).success).toBe(true);
        }
      }
    }
  });

  it('a body that is not JSON is still refused as such', async () => {
    const answer = await fetch(`${server.url}/api/scrape`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: '{"url":' });
    expect(answer.status).toBe(400);
    expect((await answer.json()).message).toMatch(/^the request body is not valid JSON/);
  });
});

describe('--remote without --kind asks the service once', () => {
  let crawl: string;

  beforeAll(async () => {
    const path = await api.start('crawl', { url: site.at('/'), maxPages: 2 });
    await api.waitFinal(path);
    crawl = path.split('/').at(-1)!;
  });

  it("status and result: one request finds the job's kind (a crawl, the third kind the spec's endpoints would try)", async () => {
    let since = await logMark();
    // -q: the status alone, without the page counts (read from the result) said on stderr.
    const status = await remote(['status', crawl, '-q']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout.trim()).toBe('completed');
    expect(await loggedRequests(crawl, since)).toEqual([`GET /api/jobs/${crawl} 200`]);
    since = await logMark();
    const result = await remote(['result', crawl]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed', totalCrawledPages: 2 });
    // The lookup, then only the crawl's own endpoint (result reads its entries in result batches).
    const requests = await loggedRequests(crawl, since);
    expect(requests[0]).toBe(`GET /api/jobs/${crawl} 200`);
    expect(requests.slice(1).every((line) => line.startsWith(`GET /api/crawl/${crawl}`))).toBe(true);
  });

  it('cancel of a job that ended: the lookup alone, no DELETE, exit 12', async () => {
    const path = await api.start('scrape/batch', { urls: [site.at('/a')] });
    await api.waitFinal(path);
    const batch = path.split('/').at(-1)!;
    const since = await logMark();
    const cancel = await remote(['cancel', batch]);
    expect(cancel.code, cancel.stderr).toBe(12);
    expect(cancel.stderr).toMatch(/had already ended \(completed\); nothing to cancel/);
    expect(await loggedRequests(batch, since)).toEqual([`GET /api/jobs/${batch} 200`]);
  });

  it('an unknown id: one 404, and the usual message and exit code', async () => {
    const since = await logMark();
    const status = await remote(['status', UNKNOWN]);
    expect(status.code).toBe(4);
    expect(status.stderr).toContain(`No job with id ${UNKNOWN}`);
    expect(await loggedRequests(UNKNOWN, since)).toEqual([`GET /api/jobs/${UNKNOWN} 404`]);
  });

  it("a service with the spec's endpoints only: the lookup's 404 has no code, so each kind's status endpoint is asked", async () => {
    const spec = await startFixtureServer({}, (req, res) => {
      const match = /^\/api\/(scrape|scrape\/batch|crawl|extract)\/([^/]+)\/status$/.exec(req.url ?? '');
      if (match?.[1] === 'crawl' && match[2] === crawl) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ status: 'completed' }));
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Not Found' }));
    });
    try {
      const status = await runCli(['status', crawl, '-q', '--remote', spec.url, '--api-key', KEY], { env: { WEBJOBS_HOME: tempHome() } });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout.trim()).toBe('completed');
      expect(spec.requests).toEqual([
        `GET /api/jobs/${crawl}`,
        `GET /api/scrape/${crawl}/status`,
        `GET /api/scrape/batch/${crawl}/status`,
        `GET /api/crawl/${crawl}/status`,
      ]);
    } finally {
      await spec.close();
    }
  });
});

describe('a feature the service lacks', () => {
  it('a 501 naming it: --remote exits 9 with its message, after one request (a 501 is not retried)', async () => {
    const lacking = await startFixtureServer({}, (_req, res) => {
      res.writeHead(501, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'map is not supported on this server' }));
    });
    try {
      const map = await runCli(['map', 'http://127.0.0.1:9/', '--remote', lacking.url, '--api-key', KEY], { env: { WEBJOBS_HOME: tempHome() } });
      expect(map.code, map.stderr).toBe(9);
      expect(map.stderr).toContain('map is not supported on this server');
      expect(lacking.requests).toEqual(['POST /api/map']);
    } finally {
      await lacking.close();
    }
  });
});
