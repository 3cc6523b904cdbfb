/**
 * --max-age (scrapeOptions.maxAge): a stored result of the same URL and options
 * is reused while young enough (metadata.cacheState hit), else the page is
 * scraped and stored (miss); pages that failed are never reused. Locally and on serve.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'cache-test-key-0123456789';
let site: FixtureServer;
let serve: ServeProcess;
let flakyCalls = 0;
let version = 1;

beforeAll(async () => {
  site = await startFixtureServer({
    '/article': (_req, res) => sendHtml(res, html(`<article><h1>Article v${version}</h1>${articleText('caching')}</article>`, { title: `Article v${version}` })),
    '/other': (_req, res) => sendHtml(res, html(`<article><h1>Other</h1>${articleText('others')}</article>`, { title: 'Other' })),
    /** An error page first, the real page after. */
    '/flaky': (_req, res) => {
      flakyCalls++;
      if (flakyCalls === 1) sendHtml(res, html('<h1>Server error</h1><p>Try again later.</p>', { title: 'Error' }), 500);
      else sendHtml(res, html(`<article><h1>Flaky works</h1>${articleText('recovery')}</article>`, { title: 'Flaky' }));
    },
    /** Never answers: the scrape fails with a timeout. */
    '/hang': () => new Promise(() => undefined),
  });
  serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
});

afterAll(async () => {
  await serve?.stop();
  await site?.close();
});

const count = (pathName: string) => site.requests.filter((r) => r === `GET ${pathName}`).length;

interface Scraped {
  data: { metadata: Record<string, string>; markdown?: string; links?: string[] };
}

async function scrape(env: NodeJS.ProcessEnv, args: string[]): Promise<Scraped> {
  const result = await runCli(['scrape', ...args, '--json'], { env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Scraped;
}

/** Makes every stored entry of a home's cache an hour older. */
async function ageCache(home: string): Promise<number> {
  let aged = 0;
  const root = path.join(home, 'cache');
  for (const dir of await fs.readdir(root)) {
    for (const name of await fs.readdir(path.join(root, dir))) {
      const file = path.join(root, dir, name);
      const entry = JSON.parse(await fs.readFile(file, 'utf8')) as { storedAt: number };
      entry.storedAt -= 3_600_000;
      await fs.writeFile(file, JSON.stringify(entry));
      aged++;
    }
  }
  return aged;
}

/** Each CLI run starts a browser: on a loaded 2-core machine eight of them take more than the default minute. */
const SLOW = 180_000;

describe('--max-age', () => {
  const home = tempHome();
  const env = { WEBJOBS_HOME: home };

  it('misses, then hits without fetching the page again, for any spelling of the URL', async () => {
    const before = count('/article');
    const first = await scrape(env, [site.at('/article'), '--max-age', '600']);
    expect(first.data.metadata.cacheState).toBe('miss');
    expect(count('/article')).toBe(before + 1);
    version = 2; // the site changes; the cached copy is still young enough
    const second = await scrape(env, [site.at('/article'), '--max-age', '600']);
    expect(second.data.metadata.cacheState).toBe('hit');
    expect(second.data.markdown).toBe(first.data.markdown);
    expect(second.data.markdown).toContain('Article v1');
    expect(count('/article')).toBe(before + 1);
    // Another URL spelling of the same page (a fragment, a tracking parameter) is the same page.
    const spelled = await scrape(env, [`${site.at('/article')}?utm_source=x#top`, '--max-age', '600']);
    expect(spelled.data.metadata.cacheState).toBe('hit');
  }, SLOW);

  it('other options, no --max-age and entries older than --max-age scrape the page again', async () => {
    const before = count('/article');
    // Other output-shaping options are another result.
    const links = await scrape(env, [site.at('/article'), '--max-age', '600', '--formats', 'links']);
    expect(links.data.metadata.cacheState).toBe('miss');
    expect(count('/article')).toBe(before + 1);
    // Without --max-age the page is scraped and no cacheState is said.
    const plain = await scrape(env, [site.at('/article')]);
    expect(plain.data.metadata.cacheState).toBeUndefined();
    expect(plain.data.markdown).toContain('Article v2');
    // Older than --max-age: scraped again, and stored afresh.
    expect(await ageCache(home)).toBe(2);
    const stale = await scrape(env, [site.at('/article'), '--max-age', '600']);
    expect(stale.data.metadata.cacheState).toBe('miss');
    expect(stale.data.markdown).toContain('Article v2');
    const again = await scrape(env, [site.at('/article'), '--max-age', '600']);
    expect(again.data.metadata.cacheState).toBe('hit');
  }, SLOW);

  it('never returns a failed page from the cache: HTTP errors and pages that failed are scraped again', async () => {
    const env = { WEBJOBS_HOME: tempHome() };
    const urls = [site.at('/other'), site.at('/flaky'), site.at('/hang')].join('\n');
    const args = ['batch', '-', '--max-age', '3600', '--timeout', '1500', '--json'];
    const first = await runCli(args, { env, input: urls });
    expect(first.code).toBe(3);
    const firstData = (JSON.parse(first.stdout) as { data: { status: string; metadata: Record<string, string> }[] }).data;
    expect(firstData.map((e) => [e.status, e.metadata.statusCode, e.metadata.cacheState])).toEqual([
      ['completed', '200', 'miss'],
      ['completed', '500', 'miss'],
      ['failed', undefined, undefined],
    ]);
    const hangs = count('/hang');
    const second = await runCli(args, { env, input: urls });
    const secondData = (JSON.parse(second.stdout) as { data: { status: string; metadata: Record<string, string>; markdown?: string }[] }).data;
    expect(secondData.map((e) => [e.status, e.metadata.statusCode, e.metadata.cacheState])).toEqual([
      ['completed', '200', 'hit'],
      ['completed', '200', 'miss'],
      ['failed', undefined, undefined],
    ]);
    expect(secondData[1]!.markdown).toContain('Flaky works');
    expect(count('/hang')).toBe(hangs + 1);
  }, SLOW);

  it('works on serve, for --remote clients', async () => {
    const remote = ['--remote', serve.url, '--api-key', KEY];
    const env = { WEBJOBS_HOME: tempHome() };
    const first = await scrape(env, [site.at('/other'), '--max-age', '60', ...remote]);
    expect(first.data.metadata.cacheState).toBe('miss');
    const before = count('/other');
    const second = await scrape(env, [site.at('/other'), '--max-age', '60', ...remote]);
    expect(second.data.metadata.cacheState).toBe('hit');
    expect(count('/other')).toBe(before);
    const bad = await fetch(`${serve.url}/api/scrape`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.at('/other'), scrapeOptions: { maxAge: -1 } }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/scrapeOptions\.maxAge must be between 0 and/);
  }, SLOW);
});
