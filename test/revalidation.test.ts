/**
 * Revalidation (issue 41): a stored page that came with an ETag or Last-Modified
 * is asked for again with If-None-Match / If-Modified-Since; on a 304 the stored
 * result stands, neither downloaded nor extracted again. With change tracking (any
 * run after the first) and with an expired --max-age entry; over HTTP and in
 * Chromium. The real CLI against a real server that records the headers it gets
 * and answers 304 when they match.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

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
};

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
  site = await startFixtureServer(Object.fromEntries(Object.keys(docs).map((name) => [name, (req: http.IncomingMessage, res: http.ServerResponse) => serveDoc(name, req, res)])));
});

afterAll(async () => {
  await site?.close();
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

/** Makes every stored entry of a home's cache an hour older. */
async function ageCache(home: string): Promise<number[]> {
  const storedAt: number[] = [];
  const root = path.join(home, 'cache');
  for (const dir of await fs.readdir(root)) {
    for (const name of await fs.readdir(path.join(root, dir))) {
      const file = path.join(root, dir, name);
      const entry = JSON.parse(await fs.readFile(file, 'utf8')) as { storedAt: number };
      entry.storedAt -= 3_600_000;
      storedAt.push(entry.storedAt);
      await fs.writeFile(file, JSON.stringify(entry));
    }
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
