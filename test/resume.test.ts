/**
 * `webjobs resume ID` (issue 41): a batch or crawl killed with SIGKILL, or stopped
 * by Ctrl-C / SIGTERM, goes on in the same job and ends with every page exactly
 * once, none fetched twice: the test site counts the pages it served, by path.
 * Jobs that may not resume (completed, failed on their own, running, unknown) are
 * refused with exit 11 (4 for an unknown id), their files unchanged.
 *
 * The site (helpers/resumeSite.ts) serves the first N page requests and holds every later one
 * unanswered: the CLI is signalled once every page served is stored and one is
 * held, so that no page was both served and lost. A held page is one the killed
 * run never got; served is counted when the answer is sent. --delay 1ms (and
 * --concurrency 1 for the batch) make requests go one at a time, so "the first
 * requests served" are the first pages stored.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileJobStore } from '../src/store/fileStore.js';
import { runCli, startCli, tempHome, type RunningCli } from './helpers/cli.js';
import { allPaths, expectEachServedOnce, PAGES, startResumeSite, storedEntries, until, type ResumeSite } from './helpers/resumeSite.js';

let site: ResumeSite;
beforeAll(async () => {
  site = await startResumeSite();
});
beforeEach(() => site.reset());
afterAll(async () => {
  site?.releaseHeld();
  await site?.server.close();
});

function onlyJob(home: string): string {
  const ids = readdirSync(path.join(home, 'jobs')).filter((name) => !name.startsWith('.'));
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

async function storedPages(home: string): Promise<number> {
  const jobs = path.join(home, 'jobs');
  const [id] = (() => {
    try {
      return readdirSync(jobs).filter((name) => !name.startsWith('.'));
    } catch {
      return [];
    }
  })();
  return id ? storedEntries(path.join(jobs, id)) : 0;
}

/** Waits until `stored` pages are stored and a later request is held, then signals the CLI. */
async function stopWhenHeld(cli: RunningCli, home: string, stored: number, signal: NodeJS.Signals): Promise<void> {
  let seen = 0;
  await until(
    async () => {
      if (cli.child.exitCode !== null) throw new Error(`the CLI ended early: ${cli.output().stderr}`);
      seen = await storedPages(home);
      return site.held() > 0 && seen === stored;
    },
    () => `${seen} stored, ${site.held()} held`,
  );
  cli.child.kill(signal);
}

interface Entry {
  url: string;
  status: string;
}

const at = (p: string) => site.server.at(p);
const crawlArgs = () => ['crawl', at('/'), '--max-pages', '100', '--delay', '1', '--ignore-sitemap', '--engine', 'http'];
const batchUrls = () => allPaths.map(at);
const batchArgs = () => ['batch', ...batchUrls(), '--concurrency', '1', '--engine', 'http'];

describe('webjobs resume', () => {
  it('a crawl killed with SIGKILL goes on from its frontier: every page once, none fetched twice', async () => {
    const home = tempHome();
    site.serveNext(5);
    const cli = startCli(crawlArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 5, 'SIGKILL');
    expect((await cli.done).signal).toBe('SIGKILL');
    const jobId = onlyJob(home);
    site.releaseHeld();
    site.serveNext(Infinity);

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
    expectEachServedOnce(site);
  });

  it('a batch killed with SIGKILL scrapes only the pages it had not stored', async () => {
    const home = tempHome();
    site.serveNext(6);
    const cli = startCli(batchArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 6, 'SIGKILL');
    await cli.done;
    const jobId = onlyJob(home);
    site.releaseHeld();
    site.serveNext(Infinity);

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
    expectEachServedOnce(site);
  });

  it('a crawl stopped by Ctrl-C names resume, and goes on from there', async () => {
    const home = tempHome();
    site.serveNext(3);
    const cli = startCli(crawlArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 3, 'SIGINT');
    const stopped = await cli.done;
    expect(stopped.code).toBe(130);
    const jobId = onlyJob(home);
    expect(stopped.stderr.trim()).toBe(
      `webjobs: interrupted (SIGINT): crawl job ${jobId} stopped, 3 pages done; read it with: webjobs result ${jobId} or go on with: webjobs resume ${jobId}`,
    );
    site.releaseHeld();
    site.serveNext(Infinity);
    const resumed = await runCli(['resume', jobId, '--json'], { env: { WEBJOBS_HOME: home } });
    expect(resumed.code).toBe(0);
    const record = JSON.parse(resumed.stdout) as { data: Entry[] };
    expect(record.data.map((entry) => new URL(entry.url).pathname).sort()).toEqual([...allPaths].sort());
    expectEachServedOnce(site);
  });

  it('a batch stopped by SIGTERM goes on, and a second stop is resumable again', async () => {
    const home = tempHome();
    site.serveNext(4);
    const first = startCli(batchArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(first, home, 4, 'SIGTERM');
    expect((await first.done).code).toBe(143);
    const jobId = onlyJob(home);
    site.releaseHeld();
    site.serveNext(4);
    const second = startCli(['resume', jobId], { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(second, home, 8, 'SIGTERM');
    const again = await second.done;
    expect(again.code).toBe(143);
    expect(again.stderr).toContain(`go on with: webjobs resume ${jobId}`);
    site.releaseHeld();
    site.serveNext(Infinity);
    const last = await runCli(['resume', jobId, '--json'], { env: { WEBJOBS_HOME: home } });
    expect(last.code).toBe(0);
    expect((JSON.parse(last.stdout) as { data: Entry[] }).data.map((entry) => entry.url)).toEqual(batchUrls());
    expectEachServedOnce(site);
  });

  it('resume --no-wait goes on in a worker; --output-dir then holds every page', async () => {
    const home = tempHome();
    site.serveNext(5);
    const cli = startCli(batchArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 5, 'SIGINT');
    expect((await cli.done).code).toBe(130);
    const jobId = onlyJob(home);
    site.releaseHeld();
    site.serveNext(Infinity);
    const started = await runCli(['resume', jobId, '--no-wait'], { env: { WEBJOBS_HOME: home } });
    expect(started).toMatchObject({ code: 0, stdout: `${jobId}\n` });
    expect((await runCli(['wait', jobId], { env: { WEBJOBS_HOME: home } })).stdout).toBe('completed\n');
    const dir = path.join(home, 'out');
    expect((await runCli(['result', jobId, '--output-dir', dir], { env: { WEBJOBS_HOME: home } })).code).toBe(0);
    const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as { pages: Entry[] };
    expect(index.pages.map((entry) => entry.url)).toEqual(batchUrls());
    expectEachServedOnce(site);
  });

  it('a batch left pending by a process killed before it began goes on', async () => {
    const home = tempHome();
    // What `webjobs batch` leaves when killed between storing the job and starting it: pending, its owner gone.
    const store = new FileJobStore(home);
    const urls = batchUrls().slice(0, 3);
    const { meta } = await store.create('batch', { urls, scrapeOptions: { engine: 'http' } }, { jobId: '', status: 'pending', totalScrapedPages: 0 } as never);
    await store.close();
    const resumed = await runCli(['resume', meta.jobId, '--json'], { env: { WEBJOBS_HOME: home } });
    expect(resumed.code).toBe(0);
    expect((JSON.parse(resumed.stdout) as { data: Entry[] }).data.map((entry) => entry.url)).toEqual(urls);
    expectEachServedOnce(site, allPaths.slice(0, 3));
  });

  it('a crawl killed before it stored a page starts again from its start URL', async () => {
    const home = tempHome();
    site.serveNext(0);
    const cli = startCli(crawlArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 0, 'SIGKILL');
    await cli.done;
    site.releaseHeld();
    site.serveNext(Infinity);
    const resumed = await runCli(['resume', onlyJob(home), '--json'], { env: { WEBJOBS_HOME: home } });
    expect(resumed.code).toBe(0);
    const record = JSON.parse(resumed.stdout) as { data: Entry[] };
    expect(record.data.map((entry) => new URL(entry.url).pathname).sort()).toEqual([...allPaths].sort());
    expectEachServedOnce(site);
  });

  it("a resumed crawl waits out the host's delay from its last request before the stop", async () => {
    const home = tempHome();
    const delay = 4000;
    site.serveNext(1);
    const cli = startCli([...crawlArgs().filter((arg) => arg !== '--delay' && arg !== '1'), '--delay', String(delay)], { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 1, 'SIGINT');
    const stoppedAt = Date.now();
    expect((await cli.done).code).toBe(130);
    site.releaseHeld();
    site.serveNext(0);
    const jobId = onlyJob(home);
    const resumed = startCli(['resume', jobId], { env: { WEBJOBS_HOME: home } });
    await until(() => site.held() > 0, () => 'the resumed crawl asked for no page');
    resumed.child.kill('SIGINT');
    await resumed.done;
    // The request cut short by the stop ended the host's last request: the next one comes a delay after it, not at once.
    const first = site.requests.find((request) => request.at > stoppedAt)!;
    expect(first.at - stoppedAt).toBeGreaterThanOrEqual(delay);
  });

  it('a tracked crawl killed and resumed lists no page of its earlier run as removed', async () => {
    const home = tempHome();
    const args = [...crawlArgs(), '--formats', 'markdown,changeTracking'];
    // A first crawl, complete: the history every page of the next one is compared with.
    expect((await runCli(args, { env: { WEBJOBS_HOME: home } })).code).toBe(0);
    rmSync(path.join(home, 'jobs', onlyJob(home)), { recursive: true });
    site.reset();
    site.serveNext(5);
    const cli = startCli(args, { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 5, 'SIGKILL');
    await cli.done;
    const jobId = onlyJob(home);
    site.releaseHeld();
    site.serveNext(Infinity);

    const resumed = await runCli(['resume', jobId, '--json'], { env: { WEBJOBS_HOME: home } });
    expect(resumed.code).toBe(0);
    const record = JSON.parse(resumed.stdout) as { data: (Entry & { changeTracking?: { changeStatus: string } })[] };
    // The five pages stored before the kill were reached too: nothing is removed, every page is the same.
    expect(record.data.map((entry) => entry.changeTracking?.changeStatus)).toEqual(allPaths.map(() => 'same'));
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
    const done = await runCli(['batch', at('/p1'), at('/p2'), '--engine', 'http', '--json'], { env: { WEBJOBS_HOME: home } });
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
    const { meta } = await store.create('crawl', { url: at('/') }, { jobId: '', status: 'pending' });
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

    const scrape = await runCli(['scrape', at('/p3'), '--engine', 'http', '--no-wait'], { env: { WEBJOBS_HOME: home } });
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
    site.serveNext(1);
    const cli = startCli(batchArgs().slice(0, 4), { env: { WEBJOBS_HOME: home } });
    await until(() => site.held() > 0, () => 'no request held');
    const jobId = onlyJob(home);
    const refused = await runCli(['resume', jobId], { env: { WEBJOBS_HOME: home } });
    expect(refused.code).toBe(11);
    expect(refused.stderr).toMatch(/is still running/);
    cli.child.kill('SIGINT');
    expect((await cli.done).code).toBe(130);
  });

  it('retry of a job another process is resuming says it still runs, exit 11 as resume (issue 54, finding 7)', async () => {
    const home = tempHome();
    site.serveNext(2);
    const cli = startCli(batchArgs(), { env: { WEBJOBS_HOME: home } });
    await stopWhenHeld(cli, home, 2, 'SIGINT');
    expect((await cli.done).code).toBe(130);
    const jobId = onlyJob(home);
    site.releaseHeld();
    // The resume stores one page more, then waits on the next.
    site.serveNext(1);
    const resuming = startCli(['resume', jobId, '--json'], { env: { WEBJOBS_HOME: home } });
    await until(async () => site.held() > 0 && (await storedPages(home)) === 3, () => `${site.held()} held`);
    const retried = await runCli(['retry', jobId], { env: { WEBJOBS_HOME: home } });
    expect(retried.stderr).toBe(
      `webjobs: batch job ${jobId} is still running (its process, or one resuming it, is at work); wait for it (webjobs wait ${jobId}) or cancel it first\n`,
    );
    expect(retried.code).toBe(11);
    resuming.child.kill('SIGINT');
    expect((await resuming.done).code).toBe(130);
  });
});
