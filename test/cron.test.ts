/**
 * The CLI in cron and scripts, second round (issue 38): HTTP errors and --fail,
 * screenshots to files, every entry of `result`, crawl limits said, warnings on
 * stderr, a stopped batch's count, and -o to files that cannot be written (43.13).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runShell, startCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { pngSize } from './helpers/png.js';
import { alignedBatchSize } from '../src/cli/jobPages.js';

let site: FixtureServer;
const home = tempHome();
const env = { WEBJOBS_HOME: home };
const scratch = mkdtempSync(path.join(os.tmpdir(), 'webjobs-cron-'));
let onSlow: () => void = () => undefined;

const links = Array.from({ length: 6 }, (_, i) => `<a href="/p${i}">page ${i}</a>`).join(' ');

beforeAll(async () => {
  site = await startFixtureServer({
    '/good': (_req, res) => sendHtml(res, html(`<article><h1>Good</h1>${articleText('good news')}</article>`, { title: 'Good' })),
    '/broken': (_req, res) => sendHtml(res, html(`<article><h1>Server error</h1>${articleText('server trouble')}</article>`, { title: 'Error' }), 500),
    '/empty500': (_req, res) => {
      res.writeHead(500);
      res.end();
    },
    '/shell': (_req, res) =>
      sendHtml(res, html(`<div id="root"></div><script>document.getElementById('root').innerHTML = '<h1>Rendered</h1>';</script>`, { title: 'App' })),
    '/start404': (_req, res) => sendHtml(res, html(`<article><h1>Start</h1>${articleText('the start')}<p><a href="/p0">p0</a> <a href="/gone">gone</a></p></article>`)),
    '/start': (_req, res) => sendHtml(res, html(`<article><h1>Start</h1>${articleText('the start')}<p>${links}</p></article>`, { title: 'Start' })),
    ...Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`/p${i}`, (_req: unknown, res: import('node:http').ServerResponse) => sendHtml(res, html(`<article><h1>P${i}</h1>${articleText(`p${i}`)}</article>`))]),
    ),
    // Never answers: pages in flight when a batch is stopped.
    '/slow': () => onSlow(),
  });
});

afterAll(async () => {
  await site?.close();
});

describe('HTTP errors (38.1)', () => {
  it('without --fail: the page is written, exit 0, and one line on stderr names the status', async () => {
    const result = await runCli(['scrape', site.at('/broken'), '--engine', 'http'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('server trouble');
    expect(result.stderr).toMatch(/^webjobs: warning: .*\/broken answered HTTP 500\b.*--fail/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('scrape --fail -o: a 500 keeps the previous file, exits 1 (not 2) and says why in one line', async () => {
    const file = path.join(scratch, 'status.md');
    writeFileSync(file, 'the good old page\n');
    for (const page of ['/broken', '/empty500']) {
      const result = await runCli(['scrape', site.at(page), '--engine', 'http', '--fail', '-o', file], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^webjobs: .*${page} answered HTTP 500.*\\n$`));
      expect(readFileSync(file, 'utf8')).toBe('the good old page\n');
    }
    const stdout = await runCli(['scrape', site.at('/broken'), '--engine', 'http', '--fail'], { env });
    expect(stdout.code).toBe(1);
    expect(stdout.stdout).toBe('');
    const good = await runCli(['scrape', site.at('/good'), '--engine', 'http', '--fail', '-o', file], { env });
    expect(good.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('good news');
  });

  it('batch and crawl --fail: error pages count as failed (exit 3), in every output', async () => {
    const urls = [site.at('/good'), site.at('/broken'), site.at('/missing')];
    const text = await runCli(['batch', ...urls, '--engine', 'http', '--fail'], { env });
    expect(text.code).toBe(3);
    expect(text.stdout).toContain('==> [2/3] ' + site.at('/broken') + ' (failed: HTTP 500');
    expect(text.stdout).not.toContain('server trouble');
    expect(text.stderr).toContain('2 of 3 pages failed');
    const jsonl = await runCli(['batch', ...urls, '--engine', 'http', '--fail', '--jsonl'], { env });
    expect(jsonl.code).toBe(3);
    const statuses = jsonl.stdout.trim().split('\n').map((line) => JSON.parse(line)).sort((a, b) => a.url.localeCompare(b.url));
    expect(statuses.map((e) => [e.url, e.status, e.metadata.statusCode])).toEqual([
      [site.at('/broken'), 'failed', '500'],
      [site.at('/good'), 'completed', '200'],
      [site.at('/missing'), 'failed', '404'],
    ]);
    const dir = path.join(scratch, 'pages');
    const written = await runCli(['batch', ...urls, '--engine', 'http', '--fail', '--output-dir', dir], { env });
    expect(written.code).toBe(3);
    const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'));
    expect(index.pages.map((p: { status: string; file: string | null }) => [p.status, p.file === null])).toEqual([
      ['completed', false],
      ['failed', true],
      ['failed', true],
    ]);
    const crawl = await runCli(['crawl', site.at('/start404'), '--ignore-sitemap', '--engine', 'http', '--fail', '--json'], { env });
    expect(crawl.code).toBe(3);
    expect(JSON.parse(crawl.stdout).data.map((e: { url: string; status: string }) => [new URL(e.url).pathname, e.status])).toEqual([
      ['/start404', 'completed'],
      ['/p0', 'completed'],
      ['/gone', 'failed'],
    ]);
    expect((await runCli(['crawl', site.at('/start404'), '--ignore-sitemap', '--engine', 'http', '--json'], { env })).code).toBe(0);
    // Without --fail the batch is a success, with one line naming the statuses.
    const lenient = await runCli(['batch', ...urls, '--engine', 'http'], { env });
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toMatch(/^webjobs: warning: 2 of 3 pages answered HTTP errors \(404, 500\).*--fail/m);
  });
});

describe('screenshots to files (38.2)', () => {
  it('-o shot.png and a redirected stdout get the image, not its path', async () => {
    const file = path.join(scratch, 'shot.png');
    const toFile = await runCli(['scrape', site.at('/good'), '--formats', 'screenshot', '-o', file], { env });
    expect(toFile.code).toBe(0);
    expect(pngSize(readFileSync(file)).width).toBe(1280);
    const redirected = path.join(scratch, 'redirected.png');
    const shell = await runShell(`webjobs scrape ${site.at('/good')} --formats screenshot > ${redirected}`, { env });
    expect(shell.code).toBe(0);
    expect(pngSize(readFileSync(redirected)).width).toBe(1280);
  });
});

describe('result prints every entry (38.3)', () => {
  it('a batch of 130 pages: result gives all 130, --page one result batch, --json accepted', async () => {
    const urls = Array.from({ length: 130 }, (_, i) => site.at(`/good?n=${i}`));
    const batch = await runCli(['batch', '-', '--engine', 'http', '--no-wait', '--json'], { env, input: urls.join('\n') });
    expect(batch.code).toBe(0);
    const { jobId } = JSON.parse(batch.stdout);
    const waited = await runShell(`until [ "$(webjobs status ${jobId})" = completed ]; do sleep 0.2; done`, { env });
    expect(waited.code).toBe(0);
    const all = await runCli(['result', jobId], { env });
    expect(all.code).toBe(0);
    const record = JSON.parse(all.stdout);
    expect(record.data.map((e: { url: string }) => e.url)).toEqual(urls);
    expect(record).toMatchObject({ totalPageBatches: 1, currentPageBatch: 1, totalScrapedPages: 130 });
    expect((await runCli(['result', jobId, '--json'], { env })).stdout).toBe(all.stdout);
    const second = JSON.parse((await runCli(['result', jobId, '--page', '2'], { env })).stdout);
    expect(second.data).toHaveLength(30);
    expect(second).toMatchObject({ totalPageBatches: 2, currentPageBatch: 2, batchSize: 100 });
  });
});

describe('alignedBatchSize: result batches that fall where the last read stopped', () => {
  it('keeps the size on a boundary, else the largest divisor of the offset below it', () => {
    expect(alignedBatchSize(0, 100)).toBe(100);
    expect(alignedBatchSize(300, 100)).toBe(100);
    // A service answered 37 entries of 100 (bounded by bytes): the next batches start at entry 37.
    expect(alignedBatchSize(37, 37)).toBe(37);
    expect(alignedBatchSize(74, 37)).toBe(37);
    expect(alignedBatchSize(60, 37)).toBe(30);
    expect(alignedBatchSize(101, 100)).toBe(1);
    for (const [offset, max] of [[137, 100], [1000, 64], [999, 1000]] as const) {
      const size = alignedBatchSize(offset, max);
      expect(offset % size).toBe(0);
      expect(size).toBeLessThanOrEqual(max);
    }
  });
});

describe('crawl limits (38.5)', () => {
  it('says on stderr, without a terminal, that --max-pages cut the crawl and how many URLs were left', async () => {
    const result = await runCli(['crawl', site.at('/start'), '--max-pages', '2', '--ignore-sitemap', '--engine', 'http', '--jsonl'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(2);
    expect(result.stderr).toMatch(/^webjobs: the crawl stopped at --max-pages 2; 5 more URLs were found and not crawled\n$/);
    const whole = await runCli(['crawl', site.at('/start'), '--max-pages', '20', '--ignore-sitemap', '--engine', 'http', '--jsonl'], { env });
    expect(whole.stdout.trim().split('\n')).toHaveLength(7);
    expect(whole.stderr).toBe('');
  });
});

describe('warnings on stderr (38.8)', () => {
  it('--engine http on a page that needs scripts says so on stderr', async () => {
    const result = await runCli(['scrape', site.at('/shell'), '--engine', 'http'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^webjobs: warning: .*\/shell: this page may need a browser .*\n$/);
    const quiet = await runCli(['scrape', site.at('/shell'), '--engine', 'http', '-q'], { env });
    expect(quiet.stderr).toBe('');
  });
});

describe('a stopped batch counts what was stored (38.9)', () => {
  it('the record, the Ctrl-C line and the result agree on the pages stored', async () => {
    let slowAsked = 0;
    const allAsked = new Promise<void>((resolve) => {
      onSlow = () => {
        if (++slowAsked === 8) resolve();
      };
    });
    const urls = [site.at('/good'), ...Array.from({ length: 8 }, (_, i) => site.at(`/slow?n=${i}`))];
    const cli = startCli(['batch', ...urls, '--engine', 'http', '--concurrency', '9', '--jsonl'], { env });
    const goodStored = new Promise<void>((resolve) => cli.child.stdout!.on('data', () => cli.output().stdout.includes('\n') && resolve()));
    await Promise.race([Promise.all([allAsked, goodStored]), cli.done.then((r) => Promise.reject(new Error(`the CLI ended early: ${r.stderr}`)))]);
    cli.child.kill('SIGINT');
    const ended = await cli.done;
    expect(ended.code).toBe(130);
    const jobId = /webjobs result (\S+)/.exec(ended.stderr)![1]!;
    expect(ended.stderr).toContain('stopped, 1 of 9 pages done');
    const record = JSON.parse((await runCli(['result', jobId], { env })).stdout);
    expect(record.status).toBe('stopped');
    expect(record.data.filter((e: { status: string }) => e.status !== 'pending')).toHaveLength(1);
    expect(record.totalScrapedPages).toBe(1);
  });
});

describe('-o to a file that cannot be written (43.13)', () => {
  it('/dev/full and /proc/version: one line, exit 1, no stack', async () => {
    for (const target of ['/dev/full', '/proc/version']) {
      if (!existsSync(target)) continue;
      for (const args of [['scrape', site.at('/good')], ['batch', site.at('/good'), '--jsonl'], ['batch', site.at('/good')]]) {
        const result = await runCli([...args, '--engine', 'http', '-o', target], { env });
        expect(result.code, `${args.join(' ')} -o ${target}: ${result.stderr}`).toBe(1);
        expect(result.stderr).toMatch(new RegExp(`^webjobs: cannot write ${target}: [^\\n]+\\n$`));
        expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
      }
    }
  });
});
