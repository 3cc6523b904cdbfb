/**
 * The changeTracking format (issue 41): a page's Markdown against the last result
 * of the same URL, options and tag in the same store: new, same, changed (with a
 * unified diff), separate histories by tag, --exit-code (10 when something
 * changed, 0 when nothing did), bad options. The real CLI, a real serve (/api and
 * Firecrawl's /v1 and /v2), a fixture site whose page changes between runs.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const KEY = 'change-tracking-key-0123456789';
let site: FixtureServer;
let serve: ServeProcess;
const version: Record<string, number> = { '/pricing': 1, '/a': 1, '/b': 1, '/c': 1, '/d': 1, '/served': 1 };

const page = (name: string) => () =>
  html(`<article><h1>${name} v${version[name]}</h1><p>Plan ${version[name]}: ${version[name] * 9} euros a month.</p>${articleText('pricing')}</article>`, { title: name });

beforeAll(async () => {
  const routes = Object.fromEntries(Object.keys(version).map((name) => [name, (_req: unknown, res: Parameters<typeof sendHtml>[0]) => sendHtml(res, page(name)())]));
  site = await startFixtureServer(routes);
  serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
});

afterAll(async () => {
  await serve?.stop();
  await site?.close();
});

interface Tracked {
  previousScrapeAt: string | null;
  changeStatus: string;
  visibility: string;
  diff?: { text: string; json: { files: { additions: number; deletions: number; chunks: { changes: { type: string; content: string }[] }[] }[] } };
}

const TRACK = ['--formats', 'markdown,changeTracking', '--engine', 'http'];

async function scrape(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number | null; tracked: Tracked; markdown: string }> {
  const result = await runCli(['scrape', ...args, ...TRACK, '--json'], { env });
  expect(result.stderr).toBe('');
  const record = JSON.parse(result.stdout) as { data: { markdown: string; changeTracking: Tracked } };
  return { code: result.code, tracked: record.data.changeTracking, markdown: record.data.markdown };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('scrape --formats markdown,changeTracking', () => {
  const env = { WEBJOBS_HOME: tempHome() };

  it('new, then same, then changed with a unified diff; --exit-code says 10 when something changed, 0 when nothing did', async () => {
    const url = site.at('/pricing');
    const first = await scrape(env, [url, '--exit-code']);
    expect(first.tracked).toEqual({ previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' });
    expect(first.code).toBe(10);

    const second = await scrape(env, [url, '--exit-code']);
    expect(second.tracked.changeStatus).toBe('same');
    expect(second.tracked.previousScrapeAt).toMatch(ISO);
    expect(second.tracked.diff).toBeUndefined();
    expect(second.code).toBe(0);

    version['/pricing'] = 2;
    const third = await scrape(env, [url, '--exit-code']);
    expect(third.code).toBe(10);
    expect(third.tracked.changeStatus).toBe('changed');
    expect(Date.parse(third.tracked.previousScrapeAt!)).toBeGreaterThanOrEqual(Date.parse(second.tracked.previousScrapeAt!));
    const diff = third.tracked.diff!;
    expect(diff.text).toMatch(/^--- a\/previous\n\+\+\+ b\/current\n@@ -1,\d+ \+1,\d+ @@\n/);
    expect(diff.text).toContain('\n-# /pricing v1\n+# /pricing v2\n');
    expect(diff.text).toContain('\n-Plan 1: 9 euros a month.\n+Plan 2: 18 euros a month.\n');
    expect(diff.json.files[0]).toMatchObject({ additions: 2, deletions: 2 });
    expect(diff.json.files[0]!.chunks[0]!.changes[0]).toEqual({ type: 'del', del: true, ln: 1, content: '-# /pricing v1' });

    // Without --exit-code a change is still exit 0; the page is now stored as v2: the next run is "same".
    version['/pricing'] = 3;
    expect((await scrape(env, [url])).code).toBe(0);
    expect((await scrape(env, [url, '--exit-code'])).tracked.changeStatus).toBe('same');
  }, 120_000);

  it('the history is the Markdown\'s: a scrape with other formats too, and a crawl, compare with it', async () => {
    const url = site.at('/pricing');
    version['/pricing'] = 4;
    await scrape(env, [url]);
    const withHtml = await runCli(['scrape', url, '--formats', 'markdown,html,changeTracking', '--engine', 'http', '--json'], { env });
    expect((JSON.parse(withHtml.stdout) as { data: { changeTracking: Tracked } }).data.changeTracking.changeStatus).toBe('same');
    const crawl = await runCli(['crawl', url, '--max-pages', '1', ...TRACK, '--exit-code', '--jsonl'], { env });
    expect(crawl.code, crawl.stderr).toBe(0);
    expect((JSON.parse(crawl.stdout) as { changeTracking: Tracked }).changeTracking.changeStatus).toBe('same');
    version['/pricing'] = 5;
    const changed = await runCli(['crawl', url, '--max-pages', '1', ...TRACK, '--exit-code', '--jsonl'], { env });
    expect(changed.code, changed.stderr).toBe(10);
    expect((JSON.parse(changed.stdout) as { changeTracking: Tracked }).changeTracking.changeStatus).toBe('changed');
  }, 120_000);

  it('a tag keeps a separate history', async () => {
    const url = site.at('/pricing');
    version['/pricing'] = 10;
    await scrape(env, [url]);
    const tagged = await scrape(env, [url, '--change-tag', 'weekly']);
    expect(tagged.tracked).toEqual({ previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' });
    version['/pricing'] = 11;
    expect((await scrape(env, [url, '--change-tag', 'weekly'])).tracked.changeStatus).toBe('changed');
    // The untagged history still holds v10: it is compared with that, not with the tag's v11.
    const untagged = await scrape(env, [url]);
    expect(untagged.tracked.changeStatus).toBe('changed');
    expect(untagged.tracked.diff!.text).toContain('-# /pricing v10\n+# /pricing v11');
    expect((await scrape(env, [url, '--change-tag', 'weekly'])).tracked.changeStatus).toBe('same');
    // Another store (WEBJOBS_HOME) has its own histories.
    expect((await scrape({ WEBJOBS_HOME: tempHome() }, [url])).tracked.changeStatus).toBe('new');
  }, 120_000);

  it('bad options are exit 2 with one line, and nothing is fetched', async () => {
    const before = site.requests.length;
    const cases: [string[], RegExp][] = [
      [['scrape', site.at('/pricing'), '--exit-code'], /--exit-code goes with change tracking: add --formats markdown,changeTracking/],
      [['scrape', site.at('/pricing'), '--change-tag', 'x', '--formats', 'markdown'], /--change-tag goes with change tracking/],
      [['scrape', site.at('/pricing'), '--formats', 'changeTracking'], /changeTracking compares the Markdown: ask for markdown too/],
      [['batch', site.at('/a'), '--formats', 'html,changeTracking'], /changeTracking compares the Markdown: ask for markdown too/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { env });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(site.requests.length).toBe(before);
  }, 60_000);
});

describe('batch --formats markdown,changeTracking --exit-code', () => {
  const env = { WEBJOBS_HOME: tempHome() };
  const run = async () => {
    const result = await runCli(['batch', site.at('/a'), site.at('/b'), ...TRACK, '--exit-code', '--jsonl'], { env });
    expect(result.stderr).toBe('');
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { url: string; changeTracking: Tracked });
    const status = Object.fromEntries(lines.map((line) => [new URL(line.url).pathname, line.changeTracking.changeStatus]));
    return { code: result.code, status };
  };

  it('exits 10 while a page is new or changed, 0 once none is', async () => {
    expect(await run()).toEqual({ code: 10, status: { '/a': 'new', '/b': 'new' } });
    expect(await run()).toEqual({ code: 0, status: { '/a': 'same', '/b': 'same' } });
    version['/b'] = 2;
    expect(await run()).toEqual({ code: 10, status: { '/a': 'same', '/b': 'changed' } });
    expect(await run()).toEqual({ code: 0, status: { '/a': 'same', '/b': 'same' } });
  }, 120_000);
});

describe('batch --output-dir with changeTracking, run again into the same directory', () => {
  const env = { WEBJOBS_HOME: tempHome() };
  const dir = path.join(tempHome(), 'pages');
  const run = async () => {
    const result = await runCli(['batch', site.at('/c'), site.at('/d'), ...TRACK, '--output-dir', dir], { env });
    expect(result.code, result.stderr).toBe(0);
    const changes = JSON.parse(await fs.readFile(path.join(dir, 'changes.json'), 'utf8')) as { pages: { url: string; changeStatus: string; file: string | null; diff?: string }[] };
    const index = JSON.parse(await fs.readFile(path.join(dir, 'index.json'), 'utf8')) as { pages: { url: string; changeStatus?: string; file: string | null }[] };
    return { changes: changes.pages, index: index.pages };
  };
  const OLD = new Date('2001-01-01T00:00:00Z');

  it('writes only the new and changed pages, and lists them in changes.json with their diff', async () => {
    const first = await run();
    expect(first.changes.map((page) => [new URL(page.url).pathname, page.changeStatus])).toEqual([['/c', 'new'], ['/d', 'new']]);
    expect(first.index.map((page) => page.changeStatus)).toEqual(['new', 'new']);
    const files = first.index.map((page) => path.join(dir, page.file!));
    for (const file of files) await fs.utimes(file, OLD, OLD);

    const second = await run();
    expect(second.changes).toEqual([]);
    expect(second.index.map((page) => [page.changeStatus, page.file])).toEqual(first.index.map((page) => ['same', page.file]));
    for (const file of files) expect((await fs.stat(file)).mtime.getTime()).toBe(OLD.getTime());

    version['/d'] = 2;
    const third = await run();
    expect(third.changes).toHaveLength(1);
    expect(third.changes[0]).toMatchObject({ url: site.at('/d'), changeStatus: 'changed', file: first.index[1]!.file });
    expect(third.changes[0]!.diff).toContain('+Plan 2: 18 euros a month.');
    expect((await fs.stat(files[0]!)).mtime.getTime()).toBe(OLD.getTime());
    expect(await fs.readFile(files[1]!, 'utf8')).toContain('Plan 2: 18 euros a month.');
    await expect(fs.readdir(dir)).resolves.not.toContain(expect.stringMatching(/\.changes\.json$/));
  }, 120_000);
});

describe('serve: /api, and Firecrawl /v1 and /v2 scrape', () => {
  const client = serveClient(() => serve.url, KEY);
  const firecrawl = async (route: string, body: unknown) => {
    const response = await fetch(`${serve.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { success: boolean; error?: string; data: { markdown: string; changeTracking: Tracked } } };
  };

  it('/api scrape tracks changes; the tag of /v1 (changeTrackingOptions) and of /v2 (the format object) is the same history', async () => {
    const url = site.at('/served');
    const api = async () => {
      const path = await client.start('scrape', { url, scrapeOptions: { formats: ['markdown', 'changeTracking'], engine: 'http' } });
      expect(await client.waitFinal(path)).toBe('completed');
      return (await client.call('GET', path)).body.data.changeTracking as Tracked;
    };
    expect((await api()).changeStatus).toBe('new');
    version['/served'] = 2;
    const changed = await api();
    expect(changed.changeStatus).toBe('changed');
    expect(changed.diff!.text).toContain('+# /served v2');

    const v1 = await firecrawl('/v1/scrape', { url, formats: ['markdown', 'changeTracking'], changeTrackingOptions: { tag: 'fc' } });
    expect(v1.status).toBe(200);
    expect(v1.body.data.changeTracking).toEqual({ previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' });
    const v2 = await firecrawl('/v2/scrape', { url, formats: ['markdown', { type: 'changeTracking', tag: 'fc', modes: ['git-diff'] }] });
    expect(v2.status).toBe(200);
    expect(v2.body.data.changeTracking.changeStatus).toBe('same');
    expect(v2.body.data.changeTracking.previousScrapeAt).toMatch(ISO);
  }, 120_000);

  it('bad change-tracking options are 400; the json mode, not there yet, is 501', async () => {
    const url = site.at('/served');
    const bad = await client.call('POST', '/api/scrape', { body: { url, scrapeOptions: { formats: ['changeTracking'] } } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/changeTracking compares the Markdown: ask for markdown too/);
    const stray = await client.call('POST', '/api/scrape', { body: { url, scrapeOptions: { changeTrackingOptions: { tag: 'x' } } } });
    expect(stray.status).toBe(400);
    const mode = await firecrawl('/v1/scrape', { url, formats: ['markdown', 'changeTracking'], changeTrackingOptions: { modes: ['diff'] } });
    expect(mode.status).toBe(400);
    expect(mode.body.error).toMatch(/modes: unknown mode "diff" \(allowed: git-diff, json\)/);
    const json = await firecrawl('/v2/scrape', { url, formats: ['markdown', { type: 'changeTracking', modes: ['json'], prompt: 'prices' }] });
    expect(json.status).toBe(501);
    expect(json.body.error).toMatch(/the json mode \(schema, prompt\) is not supported by webjobs yet/);
  }, 60_000);
});
