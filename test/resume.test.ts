/**
 * `webjobs resume ID` (issue 41): a batch or crawl killed with SIGKILL, or stopped
 * by Ctrl-C / SIGTERM, goes on in the same job and ends with every page exactly
 * once, none fetched twice: the test site counts the pages it served, by path.
 * Jobs that may not resume (completed, failed on their own, running, unknown) are
 * refused with exit 11 (4 for an unknown id), their files unchanged.
 *
 * The site serves the first `serveFirst` page requests and holds every later one
 * unanswered: the CLI is signalled once every page served is stored and one is
 * held, so that no page was both served and lost. A held page is one the killed
 * run never got; served is counted when the answer is sent. --delay 1ms (and
 * --concurrency 1 for the batch) make requests go one at a time, so "the first
 * requests served" are the first pages stored.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileJobStore } from '../src/store/fileStore.js';
import { runCli, startCli, tempHome, type RunningCli } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

/** The site: page i links to pages 2i+1 and 2i+2 (a binary tree of PAGES pages); robots.txt allows all. */
const PAGES = 15;
const pagePath = (i: number) => (i === 0 ? '/' : `/p${i}`);

let site: FixtureServer;
const served = new Map<string, number>();
let serveFirst = Infinity;
let pageRequests = 0;
let held: http.ServerResponse[] = [];

function page(i: number) {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    pageRequests++;
    if (pageRequests > serveFirst) {
      held.push(res);
      return;
    }
    const links = [2 * i + 1, 2 * i + 2].filter((n) => n < PAGES).map((n) => `<a href="${pagePath(n)}">page ${n}</a>`).join(' ');
    sendHtml(res, html(`<article><h1>Page ${i}</h1>${articleText(`page ${i}`, 3)}<p>${links}</p></article>`, { title: `Page ${i}` }));
    served.set(pagePath(i), (served.get(pagePath(i)) ?? 0) + 1);
  };
}

beforeAll(async () => {
  const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
    '/robots.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nAllow: /\n');
    },
  };
  for (let i = 0; i < PAGES; i++) routes[pagePath(i)] = page(i);
  site = await startFixtureServer(routes);
});

beforeEach(() => {
  served.clear();
  pageRequests = 0;
  serveFirst = Infinity;
  releaseHeld();
});

function releaseHeld(): void {
  for (const res of held) res.destroy();
  held = [];
}

afterAll(async () => {
  releaseHeld();
  await site?.close();
});

function onlyJob(home: string): string {
  const ids = readdirSync(path.join(home, 'jobs')).filter((name) => !name.startsWith('.'));
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

function storedPages(home: string): number {
  try {
    const jobs = path.join(home, 'jobs');
    const [id] = readdirSync(jobs).filter((name) => !name.startsWith('.'));
    return id ? readdirSync(path.join(jobs, id, 'pages')).filter((name) => /^\d+\.json$/.test(name)).length : 0;
  } catch {
    return 0;
  }
}

/** Waits until every page served is stored and a later one is held, then signals the CLI. */
async function stopWhenHeld(cli: RunningCli, home: string, signal: NodeJS.Signals): Promise<void> {
  const until = Date.now() + 40_000;
  while (!(held.length > 0 && storedPages(home) === serveFirst)) {
    if (cli.child.exitCode !== null) throw new Error(`the CLI ended early: ${cli.output().stderr}`);
    if (Date.now() > until) throw new Error(`never held: ${storedPages(home)} stored, ${held.length} held`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  cli.child.kill(signal);
}

/** Every page of the site served exactly once over both runs. */
function expectEachServedOnce(paths: string[]): void {
  expect(Object.fromEntries([...served].sort())).toEqual(Object.fromEntries(paths.map((p) => [p, 1]).sort()));
}

interface Entry {
  url: string;
  status: string;
}

const allPaths = Array.from({ length: PAGES }, (_, i) => pagePath(i));
const crawlArgs = () => ['crawl', site.at('/'), '--max-pages', '100', '--delay', '1', '--ignore-sitemap', '--engine', 'http'];
const batchUrls = () => allPaths.map((p) => site.at(p));
const batchArgs = () => ['batch', ...batchUrls(), '--concurrency', '1', '--engine', 'http'];

describe('webjobs resume', () => {
  it('a crawl killed with SIGKILL goes on from its frontier: every page once, none fetched twice', async () => {
    const home = tempHome();
    serveFirst = 5;
    const cli = startCli(crawlArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 'SIGKILL');
    expect((await cli.done).signal).toBe('SIGKILL');
    const jobId = onlyJob(home);
    releaseHeld();
    serveFirst = Infinity;

    const resumed = await runCli(['resume', jobId, '--json'], { env: { WEBJOBS_HOME: home } });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const record = JSON.parse(resumed.stdout) as { status: string; data: Entry[] };
    expect(record.status).toBe('completed');
    const urls = record.data.map((entry) => new URL(entry.url).pathname);
    expect([...urls].sort()).toEqual([...allPaths].sort());
    expect(record.data.every((entry) => entry.status === 'completed')).toBe(true);
    // The pages stored before the kill keep their places: breadth-first from the start page.
    expect(urls.slice(0, 5)).toEqual(['/', '/p1', '/p2', '/p3', '/p4']);
    expectEachServedOnce(allPaths);
  });

  it('a batch killed with SIGKILL scrapes only the pages it had not stored', async () => {
    const home = tempHome();
    serveFirst = 6;
    const cli = startCli(batchArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 'SIGKILL');
    await cli.done;
    const jobId = onlyJob(home);
    releaseHeld();
    serveFirst = Infinity;

    const status = await runCli(['status', jobId], { env: { WEBJOBS_HOME: home } });
    expect(status.stdout.trim()).toBe('failed');
    const resumed = await runCli(['resume', jobId.slice(0, 8), '--jsonl'], { env: { WEBJOBS_HOME: home } });
    expect(resumed.code).toBe(0);
    // --jsonl: the pages of this run, each at its place in the list.
    const lines = resumed.stdout.trim().split('\n').map((line) => JSON.parse(line) as Entry & { index: number });
    expect(lines.map((line) => line.index).sort((a, b) => a - b)).toEqual(Array.from({ length: PAGES - 6 }, (_, i) => i + 6));
    const result = JSON.parse((await runCli(['result', jobId, '--json'], { env: { WEBJOBS_HOME: home } })).stdout) as { status: string; data: Entry[] };
    expect(result.status).toBe('completed');
    expect(result.data.map((entry) => entry.url)).toEqual(batchUrls());
    expectEachServedOnce(allPaths);
  });

  it('a crawl stopped by Ctrl-C names resume, and goes on from there', async () => {
    const home = tempHome();
    serveFirst = 3;
    const cli = startCli(crawlArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 'SIGINT');
    const stopped = await cli.done;
    expect(stopped.code).toBe(130);
    const jobId = onlyJob(home);
    expect(stopped.stderr.trim()).toBe(
      `webjobs: interrupted (SIGINT): crawl job ${jobId} stopped, 3 pages done; read it with: webjobs result ${jobId}; go on with: webjobs resume ${jobId}`,
    );
    releaseHeld();
    serveFirst = Infinity;
    const resumed = await runCli(['resume', jobId, '--json'], { env: { WEBJOBS_HOME: home } });
    expect(resumed.code).toBe(0);
    const record = JSON.parse(resumed.stdout) as { data: Entry[] };
    expect(record.data.map((entry) => new URL(entry.url).pathname).sort()).toEqual([...allPaths].sort());
    expectEachServedOnce(allPaths);
  });

  it('a batch stopped by SIGTERM goes on, and a second stop is resumable again', async () => {
    const home = tempHome();
    serveFirst = 4;
    const first = startCli(batchArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(first, home, 'SIGTERM');
    expect((await first.done).code).toBe(143);
    const jobId = onlyJob(home);
    releaseHeld();
    pageRequests = 0;
    serveFirst = 4;
    const second = startCli(['resume', jobId], { env: { WEBJOBS_HOME: home } });
    const until = Date.now() + 40_000;
    while (!(held.length > 0 && storedPages(home) === 8) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    second.child.kill('SIGTERM');
    const again = await second.done;
    expect(again.code).toBe(143);
    expect(again.stderr).toContain(`go on with: webjobs resume ${jobId}`);
    releaseHeld();
    serveFirst = Infinity;
    const last = await runCli(['resume', jobId, '--json'], { env: { WEBJOBS_HOME: home } });
    expect(last.code).toBe(0);
    expect((JSON.parse(last.stdout) as { data: Entry[] }).data.map((entry) => entry.url)).toEqual(batchUrls());
    expectEachServedOnce(allPaths);
  });
});

describe('webjobs resume refuses', () => {
  /** Every file of the job, with its content: what must not change. */
  function snapshot(home: string, jobId: string): Record<string, string> {
    const dir = path.join(home, 'jobs', jobId);
    const files: Record<string, string> = {};
    const walk = (sub: string) => {
      for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
        const rel = path.join(sub, entry.name);
        if (entry.isDirectory()) walk(rel);
        else files[rel] = readFileSync(path.join(dir, rel), 'utf8');
      }
    };
    walk('');
    return files;
  }

  it('a completed job: exit 11, one line, nothing changed', async () => {
    const home = tempHome();
    const done = await runCli(['batch', site.at('/p1'), site.at('/p2'), '--engine', 'http', '--json'], { env: { WEBJOBS_HOME: home } });
    expect(done.code).toBe(0);
    const jobId = onlyJob(home);
    const before = snapshot(home, jobId);
    const refused = await runCli(['resume', jobId], { env: { WEBJOBS_HOME: home } });
    expect(refused.code).toBe(11);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(`webjobs: batch job ${jobId} completed; there is nothing to resume\n`);
    expect(snapshot(home, jobId)).toEqual(before);
  });

  it('a job that failed on its own, and a scrape: exit 11, nothing changed', async () => {
    const home = tempHome();
    const store = new FileJobStore(home);
    const { meta } = await store.create('crawl', { url: site.at('/') }, { jobId: '', status: 'pending' });
    await store.update(meta.jobId, (record) => {
      record.status = 'failed';
      record.error = 'includePatterns/excludePatterns: matching them costs too much';
    });
    await store.close();
    const before = snapshot(home, meta.jobId);
    const failed = await runCli(['resume', meta.jobId], { env: { WEBJOBS_HOME: home } });
    expect(failed.code).toBe(11);
    expect(failed.stderr).toMatch(/^webjobs: crawl job \S+ failed on its own, not by an interruption; start it again/);
    expect(failed.stderr.trim().split('\n')).toHaveLength(1);
    expect(snapshot(home, meta.jobId)).toEqual(before);

    const scrape = await runCli(['scrape', site.at('/p3'), '--engine', 'http', '--no-wait'], { env: { WEBJOBS_HOME: home } });
    const scrapeId = scrape.stdout.trim();
    await runCli(['wait', scrapeId], { env: { WEBJOBS_HOME: home } });
    const refused = await runCli(['resume', scrapeId], { env: { WEBJOBS_HOME: home } });
    expect(refused.code).toBe(11);
    expect(refused.stderr).toMatch(/is a scrape job; only batch and crawl jobs resume/);
  });

  it('an unknown id: exit 4', async () => {
    const home = tempHome();
    const unknown = await runCli(['resume', '00000000-0000-4000-8000-000000000000'], { env: { WEBJOBS_HOME: home } });
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/^webjobs: No job with id 00000000-0000-4000-8000-000000000000/);
  });

  it('a running job: exit 11, and it goes on', async () => {
    const home = tempHome();
    serveFirst = 1;
    const cli = startCli(batchArgs().slice(0, 4), { env: { WEBJOBS_HOME: home } });
    const until = Date.now() + 40_000;
    while (held.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    const jobId = onlyJob(home);
    const refused = await runCli(['resume', jobId], { env: { WEBJOBS_HOME: home } });
    expect(refused.code).toBe(11);
    expect(refused.stderr).toMatch(/is still running/);
    cli.child.kill('SIGINT');
    expect((await cli.done).code).toBe(130);
  });
});
