/**
 * Revalidation (issue 41): a stored page that came with an ETag or Last-Modified
 * is asked for again with If-None-Match / If-Modified-Since; on a 304 the stored
 * result stands, neither downloaded nor extracted again. With change tracking (any
 * run after the first) and with an expired --max-age entry; over HTTP and in
 * Chromium. The real CLI against a real server that records the headers it gets
 * and answers 304 when they match.
 */
import { promises as fs, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { startProxy } from './helpers/proxyServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';
import { until } from './helpers/resumeSite.js';

/** A page its server validates: `version` is what a 200 sends; `etag`/`lastModified` what it sends and checks. */
interface Doc {
  version: number;
  etag?: string;
  lastModified?: string;
}

const docs: Record<string, Doc> = {
  '/etag': { version: 1, etag: '"e-1"', lastModified: 'Wed, 01 Jan 2025 00:00:00 GMT' },
  '/dated': { version: 1, lastModified: 'Wed, 01 Jan 2025 00:00:00 GMT' },
  '/plain': { version: 1 },
  '/aged': { version: 1, etag: '"a-1"' },
  '/rendered': { version: 1, etag: '"r-1"' },
  '/database': { version: 1, etag: '"d-1"' },
  '/renewed': { version: 1, etag: '"n-1"' },
  '/held-same': { version: 1, etag: '"hs-1"' },
  '/held-changed': { version: 1, etag: '"hc-1"' },
  '/proxied-http': { version: 1, etag: '"p-1"' },
  '/proxied-browser': { version: 1, etag: '"p-1"' },
};

/** The network behind serve: a server on a port the address guard does not allow, which must get nothing. */
let inside: FixtureServer;
/** Pages whose conditional request (and only that) is redirected inside: the guard must refuse that hop. */
const moving = ['/moving-http', '/moving-browser'];

function serveDoc(name: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const doc = docs[name]!;
  const validators = { ...(doc.etag ? { etag: doc.etag } : {}), ...(doc.lastModified ? { 'last-modified': doc.lastModified } : {}) };
  const etagMatches = doc.etag !== undefined && req.headers['if-none-match'] === doc.etag;
  const dateMatches = req.headers['if-none-match'] === undefined && doc.lastModified !== undefined && req.headers['if-modified-since'] === doc.lastModified;
  if (etagMatches || dateMatches) {
    res.writeHead(304, validators);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...validators });
  res.end(html(`<article><h1>${name} v${doc.version}</h1><p>Price ${doc.version * 10} euros.</p>${articleText('revalidation')}</article>`, { title: name }));
}

let site: FixtureServer;

beforeAll(async () => {
  inside = await startFixtureServer({ '/secret': (_req, res) => sendHtml(res, html('<h1>Internal secret</h1>')) });
  const movingRoutes = moving.map((name) => [
    name,
    (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.headers['if-none-match'] === '"m-1"') {
        res.writeHead(302, { location: inside.at('/secret') });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: '"m-1"' });
      res.end(html(`<article><h1>${name}</h1>${articleText('moving')}</article>`));
    },
  ]);
  site = await startFixtureServer({
    ...Object.fromEntries(Object.keys(docs).map((name) => [name, (req: http.IncomingMessage, res: http.ServerResponse) => serveDoc(name, req, res)])),
    ...Object.fromEntries(movingRoutes),
  });
});

afterAll(async () => {
  await site?.close();
  await inside?.close();
});

/** The requests the server got for a path, with their conditional headers. */
const received = (pathName: string) =>
  site.received
    .filter((r) => r.path === pathName)
    .map((r) => ({ method: r.method, ifNoneMatch: r.headers['if-none-match'], ifModifiedSince: r.headers['if-modified-since'] }));

interface Scraped {
  markdown: string;
  metadata: Record<string, string>;
  changeTracking?: { changeStatus: string; previousScrapeAt: string | null; diff?: { text: string } };
}

async function scrape(env: NodeJS.ProcessEnv, args: string[]): Promise<Scraped> {
  const result = await runCli(['scrape', ...args, '--json'], { env, timeoutMs: 90_000 });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { data: Scraped }).data;
}

const TRACK = ['--formats', 'markdown,changeTracking'];
const SLOW = 180_000;

describe('changeTracking revalidates the stored page', () => {
  const env = { WEBJOBS_HOME: tempHome() };

  it('sends If-None-Match and If-Modified-Since; a 304 keeps the stored result (same), even though the body would now differ', async () => {
    const url = site.at('/etag');
    const first = await scrape(env, [url, ...TRACK, '--engine', 'http']);
    expect(first.changeTracking!.changeStatus).toBe('new');
    expect(received('/etag')).toEqual([{ method: 'GET', ifNoneMatch: undefined, ifModifiedSince: undefined }]);

    // The page would now say v2, but the server still answers its old ETag with 304: the stored v1 stands,
    // so it was neither downloaded nor read again.
    docs['/etag']!.version = 2;
    const second = await scrape(env, [url, ...TRACK, '--engine', 'http']);
    expect(received('/etag')[1]).toEqual({ method: 'GET', ifNoneMatch: '"e-1"', ifModifiedSince: 'Wed, 01 Jan 2025 00:00:00 GMT' });
    expect(received('/etag')).toHaveLength(2);
    expect(second.changeTracking!.changeStatus).toBe('same');
    expect(second.markdown).toBe(first.markdown);
    expect(second.markdown).toContain('/etag v1');
    expect(second.metadata.statusCode).toBe('200');

    // A new ETag: 200, read again, changed with its diff; the next run asks with the new ETag.
    docs['/etag']!.etag = '"e-2"';
    const third = await scrape(env, [url, ...TRACK, '--engine', 'http']);
    expect(third.changeTracking!.changeStatus).toBe('changed');
    expect(third.changeTracking!.diff!.text).toContain('+# /etag v2');
    await scrape(env, [url, ...TRACK, '--engine', 'http']);
    expect(received('/etag').map((r) => r.ifNoneMatch)).toEqual([undefined, '"e-1"', '"e-1"', '"e-2"']);
  }, SLOW);

  it('a page with Last-Modified only is asked If-Modified-Since; one with neither is fetched whole each time', async () => {
    await scrape(env, [site.at('/dated'), ...TRACK, '--engine', 'http']);
    docs['/dated']!.version = 2;
    const again = await scrape(env, [site.at('/dated'), ...TRACK, '--engine', 'http']);
    expect(received('/dated')[1]).toEqual({ method: 'GET', ifNoneMatch: undefined, ifModifiedSince: 'Wed, 01 Jan 2025 00:00:00 GMT' });
    expect(again.changeTracking!.changeStatus).toBe('same');
    expect(again.markdown).toContain('/dated v1');

    await scrape(env, [site.at('/plain'), ...TRACK, '--engine', 'http']);
    docs['/plain']!.version = 2;
    const plain = await scrape(env, [site.at('/plain'), ...TRACK, '--engine', 'http']);
    expect(received('/plain').map((r) => [r.ifNoneMatch, r.ifModifiedSince])).toEqual([[undefined, undefined], [undefined, undefined]]);
    expect(plain.changeTracking!.changeStatus).toBe('changed');
  }, SLOW);

  it('in Chromium: a conditional GET before rendering; on 304 the page is not rendered again', async () => {
    const url = site.at('/rendered');
    const first = await scrape(env, [url, ...TRACK, '--engine', 'browser']);
    expect(first.metadata.engine).toBe('browser');
    expect(received('/rendered')).toHaveLength(1);
    docs['/rendered']!.version = 2;
    const second = await scrape(env, [url, ...TRACK, '--engine', 'browser']);
    // One request more, the conditional one; no navigation followed it.
    expect(received('/rendered')).toEqual([
      { method: 'GET', ifNoneMatch: undefined, ifModifiedSince: undefined },
      { method: 'GET', ifNoneMatch: '"r-1"', ifModifiedSince: undefined },
    ]);
    expect(second.changeTracking!.changeStatus).toBe('same');
    expect(second.markdown).toContain('/rendered v1');
    // A new ETag: the conditional GET gets 200, and the page is rendered.
    docs['/rendered']!.etag = '"r-2"';
    const third = await scrape(env, [url, ...TRACK, '--engine', 'browser']);
    expect(third.changeTracking!.changeStatus).toBe('changed');
    expect(third.markdown).toContain('/rendered v2');
    expect(received('/rendered').slice(2).map((r) => r.ifNoneMatch)).toEqual(['"r-1"', undefined]);
  }, SLOW);
});

describe('--use-proxy', () => {
  it('the conditional request goes through the session\'s proxy, as the page\'s own request (HTTP engine and Chromium)', async () => {
    const proxy = await startProxy();
    try {
      const env = { WEBJOBS_HOME: tempHome(), WEBJOBS_PROXY_URL: proxy.url };
      for (const engine of ['http', 'browser']) {
        const name = `/proxied-${engine}`;
        const url = site.at(name);
        await scrape(env, [url, ...TRACK, '--engine', engine, '--use-proxy']);
        docs[name]!.version = 2;
        const second = await scrape(env, [url, ...TRACK, '--engine', engine, '--use-proxy']);
        expect(second.changeTracking!.changeStatus).toBe('same');
        expect(received(name).map((r) => r.ifNoneMatch)).toEqual([undefined, '"p-1"']);
        // Both requests, the conditional one too, were forwarded by the proxy.
        expect(proxy.forwarded.filter((forwarded) => forwarded === url)).toHaveLength(2);
      }
    } finally {
      await proxy.close();
    }
  }, SLOW);
});

/** The entry files of a home's cache. */
async function cacheFiles(home: string): Promise<string[]> {
  const root = path.join(home, 'cache');
  const dirs = await fs.readdir(root);
  return (await Promise.all(dirs.map(async (dir) => (await fs.readdir(path.join(root, dir))).map((name) => path.join(root, dir, name))))).flat();
}

/** Makes every stored entry of a home's cache an hour older; `indent`: written as an older webjobs wrote them. */
async function ageCache(home: string, indent?: number): Promise<number[]> {
  const storedAt: number[] = [];
  for (const file of await cacheFiles(home)) {
    const entry = JSON.parse(await fs.readFile(file, 'utf8')) as { storedAt: number };
    entry.storedAt -= 3_600_000;
    storedAt.push(entry.storedAt);
    await fs.writeFile(file, JSON.stringify(entry, null, indent));
  }
  return storedAt;
}

describe('--max-age: an expired entry is revalidated', () => {
  const home = tempHome();
  const env = { WEBJOBS_HOME: home };

  it('asks If-None-Match; on 304 the stored result is a hit again, its age renewed', async () => {
    const url = site.at('/aged');
    const first = await scrape(env, [url, '--max-age', '600', '--engine', 'http']);
    expect(first.metadata.cacheState).toBe('miss');
    const [aged] = await ageCache(home);
    docs['/aged']!.version = 2;
    const second = await scrape(env, [url, '--max-age', '600', '--engine', 'http']);
    expect(received('/aged').map((r) => r.ifNoneMatch)).toEqual([undefined, '"a-1"']);
    expect(second.metadata.cacheState).toBe('hit');
    expect(second.markdown).toBe(first.markdown);
    // Renewed: young again, so the next run asks nothing at all.
    const third = await scrape(env, [url, '--max-age', '600', '--engine', 'http']);
    expect(third.metadata.cacheState).toBe('hit');
    expect(received('/aged')).toHaveLength(2);
    const [entry] = await ageCache(home);
    expect(entry! + 3_600_000).toBeGreaterThan(aged! + 3_600_000);
  }, SLOW);
});

describe('renewal', () => {
  it('renews an entry in place, its file still whole; one an older webjobs wrote (indented) is read, then rewritten compact', async () => {
    const home = tempHome();
    const env = { WEBJOBS_HOME: home };
    const url = site.at('/renewed');
    const first = await scrape(env, [url, ...TRACK, '--engine', 'http']);
    // As an older webjobs wrote them: indented, an hour old.
    await ageCache(home, 2);
    const second = await scrape(env, [url, ...TRACK, '--engine', 'http']);
    expect(second.changeTracking!.changeStatus).toBe('same');
    // The history's time, as aged: read from the indented file.
    expect(Date.parse(second.changeTracking!.previousScrapeAt!)).toBeLessThan(Date.now() - 3_000_000);
    expect(second.markdown).toBe(first.markdown);
    const files = await cacheFiles(home);
    const renewed = await Promise.all(files.map(async (file) => ({ file, text: await fs.readFile(file, 'utf8'), ino: (await fs.stat(file)).ino })));
    // Compact now (the page set of a crawl is no part of a scrape: the entry and its history).
    expect(renewed).toHaveLength(2);
    for (const { text } of renewed) expect(text).toMatch(/^\{"storedAt":\d{13},/);
    // The next run renews both in place: the same files, the new time in them, whole.
    const third = await scrape(env, [url, ...TRACK, '--engine', 'http']);
    expect(third.changeTracking!.changeStatus).toBe('same');
    expect(Date.parse(third.changeTracking!.previousScrapeAt!)).toBeGreaterThan(Date.parse(second.changeTracking!.previousScrapeAt!));
    for (const { file, text, ino } of renewed) {
      const now = await fs.readFile(file, 'utf8');
      expect((await fs.stat(file)).ino).toBe(ino);
      expect(now.length).toBe(text.length);
      const { storedAt, ...rest } = JSON.parse(now) as { storedAt: number };
      const { storedAt: before, ...was } = JSON.parse(text) as { storedAt: number };
      expect(rest).toEqual(was);
      expect(storedAt).toBeGreaterThan(before);
    }
    expect(received('/renewed').map((r) => r.ifNoneMatch)).toEqual([undefined, '"n-1"', '"n-1"']);
  }, SLOW);
});

describe('serve: the conditional request', () => {
  const KEY = 'revalidation-key-0123456789';
  let serve: ServeProcess;
  let pg: TestPostgres;
  let pgServe: ServeProcess;
  const serveHome = tempHome();

  beforeAll(async () => {
    serve = await startServe({ args: ['--allow-host', new URL(site.url).host, '--quiet'], env: { WEBJOBS_HOME: serveHome, WEBJOBS_API_KEYS: `${KEY}:scale` } });
    pg = await startPostgres();
    pgServe = await startServe({ args: ['--allow-private', '--quiet', '--database', pg.url], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
  }, 120_000);

  afterAll(async () => {
    await serve?.stop();
    await pgServe?.stop();
    await pg?.stop();
  });

  const scrapeOn = async (url: string, engine: string, on: ServeProcess) => {
    const client = serveClient(() => on.url, KEY);
    const path = await client.start('scrape', { url, scrapeOptions: { formats: ['markdown', 'changeTracking'], engine } });
    const status = await client.waitFinal(path);
    const { body } = await client.call('GET', path);
    return { status, data: body.data as Scraped | undefined, error: body.error as string | undefined };
  };

  it('passes the address guard on every hop, as the page\'s own request: a redirect inside is refused (HTTP engine and Chromium)', async () => {
    for (const [name, engine] of [['/moving-http', 'http'], ['/moving-browser', 'browser']] as const) {
      const url = site.at(name);
      expect((await scrapeOn(url, engine, serve)).data?.changeTracking?.changeStatus).toBe('new');
      const second = await scrapeOn(url, engine, serve);
      expect(received(name).map((r) => r.ifNoneMatch)).toContain('"m-1"');
      if (engine === 'http') {
        // The HTTP engine's conditional request is the page's request: refused, it fails the page.
        expect(second.status).toBe('failed');
        expect(second.error).toMatch(/private|not allowed|refus/i);
      } else {
        // Chromium's conditional GET was refused: the page is rendered as ever (Chromium asks unconditionally).
        expect(second.status).toBe('completed');
        expect(second.data!.changeTracking!.changeStatus).toBe('same');
      }
    }
    expect(inside.requests).toEqual([]);
  }, SLOW);

  it('keeps no file of the page cache or of the job open once the scrapes are done (304, same; 200, changed)', async () => {
    /** The files of the store serve has open. */
    const openInStore = () =>
      readdirSync(`/proc/${serve.child.pid}/fd`)
        .map((fd) => {
          try {
            return readlinkSync(`/proc/${serve.child.pid}/fd/${fd}`);
          } catch {
            return '';
          }
        })
        .filter((file) => file.startsWith(path.join(serveHome, 'cache')) || file.startsWith(path.join(serveHome, 'jobs')));
    for (const name of ['/held-same', '/held-changed']) expect((await scrapeOn(site.at(name), 'http', serve)).data!.changeTracking!.changeStatus).toBe('new');
    docs['/held-changed'] = { version: 2, etag: '"hc-2"' };
    expect((await scrapeOn(site.at('/held-same'), 'http', serve)).data!.changeTracking!.changeStatus).toBe('same');
    expect((await scrapeOn(site.at('/held-changed'), 'http', serve)).data!.changeTracking!.changeStatus).toBe('changed');
    let open: string[] = [];
    await until(() => (open = openInStore()).length === 0, () => `serve still has open: ${open.join(', ')}`, 5_000);
  }, SLOW);

  it('on PostgreSQL (serve --database) the validators are kept in the database: 304, same', async () => {
    const url = site.at('/database');
    expect((await scrapeOn(url, 'http', pgServe)).data!.changeTracking!.changeStatus).toBe('new');
    docs['/database']!.version = 2;
    const second = await scrapeOn(url, 'http', pgServe);
    expect(received('/database').map((r) => r.ifNoneMatch)).toEqual([undefined, '"d-1"']);
    expect(second.data!.changeTracking!.changeStatus).toBe('same');
    expect(second.data!.markdown).toContain('/database v1');
  }, SLOW);
});
