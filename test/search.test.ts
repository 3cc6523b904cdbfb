/**
 * `webjobs search` (issue 55) as a user runs it: the real CLI against stand-ins of
 * SearXNG and the Brave Search API on loopback (helpers/searchEngines.ts), which
 * answer as those APIs' documentation says, failures included. Scraped results
 * come from a fixture site on 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startBrave, startSearxng, type IndexedPage, type StandIn } from './helpers/searchEngines.js';

const BRAVE_KEY = 'BSA-test-key';
/** Requests for /harbour, which never answers; whoever waits for one is woken when it comes. */
const held: http.IncomingMessage[] = [];
let wakeHeld: () => void = () => undefined;
const untilHeld = () => new Promise<void>((resolve) => (held.length > 0 ? resolve() : (wakeHeld = resolve)));
let site: FixtureServer;
let searxng: StandIn;
let searxngHtmlOnly: StandIn;
let brave: StandIn;
let home: string;

/** 25 pages about lanterns on three hosts (never fetched unless scraped), one of them listed twice, and two real pages. */
function lanternIndex(siteUrl: string): IndexedPage[] {
  const pages: IndexedPage[] = Array.from({ length: 25 }, (_, i) => ({
    url: `https://${i % 3 === 0 ? 'www.lanterns.example' : i % 3 === 1 ? 'lanterns.example' : 'paper.example'}/lantern/${i + 1}`,
    title: `Lantern ${i + 1} & co`,
    text: `Paper lantern number ${i + 1}, lit at the festival.`,
    ageDays: i < 5 ? 2 : 100,
  }));
  // The engine lists the first page again on its second page, as engines merged by SearXNG do.
  pages.splice(12, 0, { ...pages[0]!, title: 'Lantern 1 again' });
  return [
    ...pages,
    { url: `${siteUrl}/tides`, title: 'Tide tables', text: 'Tides of the harbour, tide times by day.' },
    { url: `${siteUrl}/harbour`, title: 'Harbour lights', text: 'A harbour page that never finishes loading.' },
    // Nothing listens on port 1: the page cannot be read.
    { url: 'http://127.0.0.1:1/tides', title: 'Old tide page', text: 'Tides of last year, tide archive.' },
  ];
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { WEBJOBS_HOME: home, WEBJOBS_SEARXNG_URL: '', WEBJOBS_BRAVE_API_KEY: '', WEBJOBS_BRAVE_URL: '', WEBJOBS_REMOTE: '', ...extra };
}
const withSearxng = (extra: NodeJS.ProcessEnv = {}) => env({ WEBJOBS_SEARXNG_URL: searxng.url, ...extra });
const withBrave = (extra: NodeJS.ProcessEnv = {}) => env({ WEBJOBS_BRAVE_API_KEY: BRAVE_KEY, WEBJOBS_BRAVE_URL: brave.url, ...extra });

beforeAll(async () => {
  home = tempHome();
  site = await startFixtureServer({
    '/tides': (_req, res) => sendHtml(res, html(`<article><h1>Tide tables</h1>${articleText('tides')}</article>`, { title: 'Tide tables' })),
    '/harbour': (req) => {
      held.push(req);
      wakeHeld();
    },
    '/robots.txt': (_req, res) => {
      res.writeHead(404);
      res.end();
    },
  });
  const index = lanternIndex(site.url);
  searxng = await startSearxng(index, { formats: ['html', 'json'] });
  searxngHtmlOnly = await startSearxng(index);
  brave = await startBrave(index, { key: BRAVE_KEY });
});

afterAll(async () => {
  await Promise.all([site?.close(), searxng?.close(), searxngHtmlOnly?.close(), brave?.close()]);
});

const lines = (text: string) => text.trim().split('\n');

describe('webjobs search over SearXNG', () => {
  it('lists title, URL and snippet a block, 10 by default, asking with format=json', async () => {
    const { code, stdout, stderr } = await runCli(['search', 'lantern'], { env: withSearxng() });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const blocks = stdout.trim().split('\n\n');
    expect(blocks).toHaveLength(10);
    expect(blocks[0]).toBe('Lantern 1 & co\nhttps://www.lanterns.example/lantern/1\nPaper lantern number 1, lit at the festival.');
    const asked = searxng.asked.at(-1)!;
    expect(Object.fromEntries(asked)).toMatchObject({ q: 'lantern', format: 'json', pageno: '1' });
  });

  it('asks for further pages until --limit, without duplicates, and stops at the last page', async () => {
    const before = searxng.asked.length;
    const { code, stdout } = await runCli(['search', 'paper', 'lantern', '--limit', '40', '--jsonl'], { env: withSearxng() });
    expect(code).toBe(0);
    const results = lines(stdout).map((line) => JSON.parse(line) as { url: string; position: number });
    // 26 listings of 25 pages: the repeat on page 2 is left out.
    expect(results).toHaveLength(25);
    expect(new Set(results.map((r) => r.url)).size).toBe(25);
    expect(results.map((r) => r.position)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(searxng.asked.slice(before).map((params) => params.get('pageno'))).toEqual(['1', '2', '3', '4']);
  });

  it("prints Firecrawl v2's shape with --json", async () => {
    const { code, stdout } = await runCli(['search', 'lantern', '--limit', '2', '--json'], { env: withSearxng() });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      success: true,
      data: {
        web: [
          { url: 'https://www.lanterns.example/lantern/1', title: 'Lantern 1 & co', description: 'Paper lantern number 1, lit at the festival.', position: 1 },
          { url: 'https://lanterns.example/lantern/2', title: 'Lantern 2 & co', description: 'Paper lantern number 2, lit at the festival.', position: 2 },
        ],
      },
    });
  });

  it('never lists a result outside --include-domains or inside --exclude-domains (subdomains included)', async () => {
    const included = await runCli(['search', 'lantern', '--limit', '100', '--include-domains', 'lanterns.example', '--jsonl'], { env: withSearxng() });
    const hosts = lines(included.stdout).map((line) => new URL((JSON.parse(line) as { url: string }).url).hostname);
    expect(hosts.length).toBe(17);
    expect(new Set(hosts)).toEqual(new Set(['www.lanterns.example', 'lanterns.example']));
    const excluded = await runCli(['search', 'lantern', '--limit', '100', '--exclude-domains', 'lanterns.example', '--jsonl'], { env: withSearxng() });
    expect(new Set(lines(excluded.stdout).map((line) => new URL((JSON.parse(line) as { url: string }).url).hostname))).toEqual(new Set(['paper.example']));
  });

  it('sends --time-range as time_range and --lang as language', async () => {
    const { code, stdout } = await runCli(['search', 'lantern', '--time-range', 'week', '--lang', 'en', '--jsonl'], { env: withSearxng() });
    expect(code).toBe(0);
    expect(lines(stdout)).toHaveLength(5);
    expect(Object.fromEntries(searxng.asked.at(-1)!)).toMatchObject({ time_range: 'week', language: 'en' });
  });

  it('exits 0 with nothing on stdout when nothing is found', async () => {
    const { code, stdout } = await runCli(['search', 'zeppelin'], { env: withSearxng() });
    expect(code).toBe(0);
    expect(stdout).toBe('');
  });

  it('says in one line to enable the json format when SearXNG answers 403 (its default settings.yml)', async () => {
    const { code, stdout, stderr } = await runCli(['search', 'lantern'], { env: env({ WEBJOBS_SEARXNG_URL: searxngHtmlOnly.url }) });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(/403.*enable the json format in its settings\.yml, under search: formats/);
  });
});

describe('webjobs search over Brave', () => {
  it('sends the key as X-Subscription-Token and pages with count and offset; marks are removed', async () => {
    const before = brave.asked.length;
    const { code, stdout, stderr } = await runCli(['search', 'lantern', '--limit', '30', '--jsonl'], { env: withBrave() });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const results = lines(stdout).map((line) => JSON.parse(line) as { url: string; title: string; description: string });
    expect(results).toHaveLength(25);
    expect(results[0]).toMatchObject({ title: 'Lantern 1 & co', description: 'Paper lantern number 1, lit at the festival.' });
    expect(brave.asked.slice(before).map((p) => [p.get('count'), p.get('offset')])).toEqual([
      ['20', '0'],
      ['20', '1'],
    ]);
  });

  it('sends --time-range as freshness and --country, --lang as country, search_lang', async () => {
    const { code, stdout } = await runCli(['search', 'lantern', '--time-range', 'week', '--country', 'de', '--lang', 'de', '--jsonl'], { env: withBrave() });
    expect(code).toBe(0);
    expect(lines(stdout)).toHaveLength(5);
    expect(Object.fromEntries(brave.asked.at(-1)!)).toMatchObject({ freshness: 'pw', country: 'DE', search_lang: 'de', count: '10' });
  });

  it('names WEBJOBS_BRAVE_API_KEY when Brave refuses the key (401)', async () => {
    const { code, stderr } = await runCli(['search', 'lantern'], { env: withBrave({ WEBJOBS_BRAVE_API_KEY: 'wrong' }) });
    expect(code).toBe(2);
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(/401.*WEBJOBS_BRAVE_API_KEY/);
  });

  it('exits 7 past the rate limit (429)', async () => {
    const limited = await startBrave([], { key: BRAVE_KEY, rateLimit: 0 });
    try {
      const { code, stderr } = await runCli(['search', 'lantern'], { env: withBrave({ WEBJOBS_BRAVE_URL: limited.url }) });
      expect(code).toBe(7);
      expect(stderr).toMatch(/rate limit/);
    } finally {
      await limited.close();
    }
  });

  it('picks SearXNG when both are configured, unless --search-backend says brave', async () => {
    const both = env({ WEBJOBS_SEARXNG_URL: searxng.url, WEBJOBS_BRAVE_API_KEY: BRAVE_KEY, WEBJOBS_BRAVE_URL: brave.url });
    const [s, b] = [searxng.asked.length, brave.asked.length];
    await runCli(['search', 'lantern', '--limit', '1'], { env: both });
    expect([searxng.asked.length - s, brave.asked.length - b]).toEqual([1, 0]);
    await runCli(['search', 'lantern', '--limit', '1', '--search-backend', 'brave'], { env: both });
    expect([searxng.asked.length - s, brave.asked.length - b]).toEqual([1, 1]);
  });
});

describe('bad input and failures: one line each, nothing half-done', () => {
  it('exits 2 naming both variables when no search engine is configured', async () => {
    const { code, stdout, stderr } = await runCli(['search', 'lantern'], { env: env() });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toContain('WEBJOBS_SEARXNG_URL');
    expect(stderr).toContain('WEBJOBS_BRAVE_API_KEY');
  });

  it('exits 2 on an empty query or a --limit out of 1..100, before asking anything', async () => {
    const before = searxng.asked.length;
    for (const args of [['search', ''], ['search', '  '], ['search', 'x', '--limit', '0'], ['search', 'x', '--limit', '101']]) {
      const { code, stdout, stderr } = await runCli(args, { env: withSearxng() });
      expect(code, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(lines(stderr)).toHaveLength(1);
    }
    expect(searxng.asked.length).toBe(before);
  });

  it('exits 7 when the engine is down or does not answer in time', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await runCli(['search', 'lantern'], { env: env({ WEBJOBS_SEARXNG_URL: `http://127.0.0.1:${port}` }) });
    expect(down.code).toBe(7);
    expect(down.stderr).toMatch(/could not reach SearXNG at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);

    const silent = await startFixtureServer({ '/search': () => new Promise(() => undefined) });
    try {
      const slow = await runCli(['search', 'lantern'], { env: env({ WEBJOBS_SEARXNG_URL: silent.url, WEBJOBS_SEARCH_TIMEOUT: '0.3' }) });
      expect(slow.code).toBe(7);
      expect(lines(slow.stderr)).toHaveLength(1);
      expect(slow.stderr).toMatch(/did not answer within 0\.3s/);
    } finally {
      await silent.close();
    }
  });
});

describe('webjobs search --formats', () => {
  it('scrapes each result as batch does; a page that fails says why (exit 3)', async () => {
    const { code, stdout, stderr } = await runCli(['search', 'tide', '--formats', 'markdown', '--json'], { env: withSearxng() });
    expect(code, stderr).toBe(3);
    const { web } = (JSON.parse(stdout) as { data: { web: { url: string; title: string; markdown?: string; metadata?: Record<string, string>; error?: string }[] } }).data;
    expect(web.map((hit) => hit.url)).toEqual([`${site.url}/tides`, 'http://127.0.0.1:1/tides']);
    expect(web[0]!.title).toBe('Tide tables');
    expect(web[0]!.markdown).toContain('# Tide tables');
    expect(web[0]!.metadata?.statusCode).toBe('200');
    expect(web[1]).toMatchObject({ title: 'Old tide page', description: 'Tides of last year, tide archive.', position: 2 });
    expect(web[1]!.error).toMatch(/port/);
    expect(stderr).toMatch(/1 of 2 results could not be scraped/);
  });

  it('keeps and reuses scraped pages with --max-age, as batch does; a scrape flag without --formats is exit 2', async () => {
    const args = ['search', 'tide', 'tables', '--formats', 'markdown', '--max-age', '1h', '--engine', 'http', '--jsonl'];
    const first = await runCli(args, { env: withSearxng() });
    const again = await runCli(args, { env: withSearxng() });
    const cacheStates = (out: string) => lines(out).map((line) => (JSON.parse(line) as { metadata: { cacheState: string } }).metadata.cacheState);
    expect([cacheStates(first.stdout), cacheStates(again.stdout)]).toEqual([['miss'], ['hit']]);
    const loose = await runCli(['search', 'tide', '--max-age', '1h'], { env: withSearxng() });
    expect(loose.code).toBe(2);
    expect(loose.stderr).toMatch(/--max-age goes with --formats/);
  });

  it('Ctrl-C while results are scraped stops the scraping batch: exit 130, nothing on stdout, the job stopped', async () => {
    const run = startCli(['search', 'harbour', 'lights', '--formats', 'markdown'], { env: withSearxng() });
    await untilHeld();
    run.child.kill('SIGINT');
    const { code, stdout, stderr } = await run.done;
    expect(code).toBe(130);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/search stopped \(SIGINT\)/);
    const jobs = await runCli(['jobs', '--json'], { env: withSearxng() });
    const batches = (JSON.parse(jobs.stdout) as { kind: string; url: string; status: string }[]).filter((job) => job.url.endsWith('/harbour'));
    expect(batches.map((job) => [job.kind, job.status])).toEqual([['batch', 'stopped']]);
  });
});
