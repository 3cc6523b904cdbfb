/**
 * Cron that never lies (issue 56): the daily script
 * `webjobs batch URL1 URL2 --formats markdown,changeTracking --exit-code --output-dir od/ -q`
 * run day after day against a loopback page that changes and fails on demand, and
 * the same script killed with kill -9 and run again (or resumed). Every run's exit
 * code and files are checked: a failed page never replaces a good file, and a
 * change is reported until a run that found it ends and says so.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { until } from './helpers/resumeSite.js';
import { isProcessAlive } from '../src/api/processes.js';

let site: FixtureServer;
/** What /watched answers: its status and the word its article is about. */
const watched = { status: 200, word: 'alpha' };
/** Requests of /hold left unanswered (a page loading when the run is killed), or answered at once when `holding` is off. */
let holding = false;
let held: http.ServerResponse[] = [];

beforeAll(async () => {
  site = await startFixtureServer({
    '/watched': (_req, res) =>
      watched.status === 200
        ? sendHtml(res, html(`<article><h1>Watched</h1>${articleText(`the ${watched.word} news`)}</article>`, { title: 'Watched' }))
        : sendHtml(res, html(`<h1>Error ${watched.status}</h1><p>Something broke on our side.</p>`, { title: 'Error' }), watched.status),
    '/steady': (_req, res) => sendHtml(res, html(`<article><h1>Steady</h1>${articleText('nothing new here')}</article>`, { title: 'Steady' })),
    '/missing': (_req, res) => sendHtml(res, html('<h1>Not found</h1>', { title: 'Not found' }), 404),
    '/tracked-links': (_req, res) =>
      sendHtml(res, html(`<article><h1>Links</h1>${articleText('links here')}<p><a href="/steady?utm_source=news&amp;utm_medium=mail">steady</a> <a href="/watched?b=1&amp;gclid=x&amp;a=%20">watched</a></p></article>`)),
    '/hold': (_req, res) => {
      if (holding) held.push(res);
      else sendHtml(res, html(`<article><h1>Hold</h1>${articleText('held page')}</article>`, { title: 'Hold' }));
    },
  });
});

afterAll(async () => {
  for (const res of held) res.destroy();
  await site?.close();
});

const scratch = mkdtempSync(path.join(os.tmpdir(), 'webjobs-cron-script-'));

interface IndexRow {
  file: string | null;
  url: string;
  status: string;
  statusCode: number | null;
  error: string | null;
  changeStatus?: string;
}

function readIndex(dir: string): { jobId: string; pages: IndexRow[] } {
  return JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as { jobId: string; pages: IndexRow[] };
}

function readChanges(dir: string): { url: string; changeStatus: string }[] {
  return (JSON.parse(readFileSync(path.join(dir, 'changes.json'), 'utf8')) as { pages: { url: string; changeStatus: string }[] }).pages;
}

const TRACK = ['--formats', 'markdown,changeTracking', '--engine', 'http'];

// Each test runs the CLI four to six times, one after another.
describe('the daily script (issue 56)', { timeout: 240_000 }, () => {
  const env = { WEBJOBS_HOME: tempHome() };
  const od = path.join(scratch, 'daily');
  const urls = () => [site.at('/watched'), site.at('/steady')];
  const daily = (...more: string[]) => runCli(['batch', ...urls(), ...TRACK, '--exit-code', '--output-dir', od, '-q', ...more], { env });
  /** The Markdown file of /watched, as the first run named it. */
  let watchedMd = '';
  const watchedFile = () => (watchedMd ||= path.join(od, readIndex(od).pages[0]!.file!));

  it('200, 500, 200, 200: the file is always the last good page, every run says what happened', async () => {
    watched.status = 200;
    watched.word = 'alpha';
    const day1 = await daily();
    expect(day1.code).toBe(10);
    expect(readIndex(od).pages.map((p) => p.changeStatus)).toEqual(['new', 'new']);
    expect(readFileSync(watchedFile(), 'utf8')).toContain('the alpha news');

    watched.status = 500;
    const day2 = await daily();
    // No --fail: a warning, even with -q, and the good file kept.
    expect(day2.code).toBe(0);
    expect(day2.stderr).toMatch(/\/watched answered HTTP 500 Internal Server Error.*kept/);
    const row2 = readIndex(od).pages[0]!;
    expect(row2).toMatchObject({ statusCode: 500, error: expect.stringMatching(/HTTP 500/) });
    expect(row2.changeStatus).toBeUndefined();
    expect(readFileSync(watchedFile(), 'utf8')).toContain('the alpha news');
    expect(readFileSync(watchedFile(), 'utf8')).not.toContain('Error 500');

    watched.status = 200;
    const day3 = await daily();
    expect(day3.code).toBe(0);
    expect(day3.stderr).toBe('');
    expect(readIndex(od).pages.map((p) => [p.changeStatus, p.error])).toEqual([
      ['same', null],
      ['same', null],
    ]);
    expect(readFileSync(watchedFile(), 'utf8')).toContain('the alpha news');
    expect(readChanges(od)).toEqual([]);

    watched.word = 'beta';
    const day4 = await daily();
    expect(day4.code).toBe(10);
    expect(readChanges(od)).toEqual([expect.objectContaining({ url: site.at('/watched'), changeStatus: 'changed' })]);
    expect(readFileSync(watchedFile(), 'utf8')).toContain('the beta news');
  });

  it('with --fail a 500 fails that page (exit 3), in the job too, and the good file stays', async () => {
    watched.status = 503;
    const run = await daily('--fail');
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/1 of 2 pages failed/);
    const index = readIndex(od);
    expect(index.pages[0]).toMatchObject({ status: 'failed', statusCode: 503, error: expect.stringMatching(/HTTP 503/) });
    expect(readFileSync(watchedFile(), 'utf8')).toContain('the beta news');
    // What the run decided is the job's: result, retry and jobs agree with index.json.
    const result = await runCli(['result', index.jobId, '--json'], { env });
    const entries = (JSON.parse(result.stdout) as { data: { status: string }[] }).data;
    expect(entries.map((e) => e.status)).toEqual(['failed', 'completed']);
    const status = await runCli(['status', index.jobId], { env });
    expect(status.stdout).toBe('completed\n');
    expect(status.stderr).toBe('webjobs: 1 page completed, 1 failed\n');
    const listed = JSON.parse((await runCli(['jobs', '--json', '--limit', '1'], { env })).stdout) as { jobId: string; pages: unknown }[];
    expect(listed).toEqual([expect.objectContaining({ jobId: index.jobId, status: 'completed', pages: { completed: 1, failed: 1, changed: 0 } })]);
    const text = await runCli(['jobs', '--limit', '1'], { env });
    expect(text.stdout).toMatch(new RegExp(`^${index.jobId}  batch    completed  \\S+  \\S+/watched  \\(1 page completed, 1 failed\\)\n$`));
    watched.status = 200;
    const retry = await runCli(['retry', index.jobId, '--timeout', '20s', '-q'], { env });
    expect(retry.code, retry.stderr + retry.stdout).toBe(0);
    expect(retry.stdout).toContain('the beta news');
  });

  it('a file deleted by hand is written again when its page is the same', async () => {
    watched.status = 200;
    rmSync(watchedFile());
    const run = await daily();
    expect(run.code).toBe(0);
    expect(readFileSync(watchedFile(), 'utf8')).toContain('the beta news');
  });

  it('a failure and a change in one run: exit 10, the failure on stderr and in index.json', async () => {
    watched.word = 'gamma';
    const run = await runCli(['batch', site.at('/watched'), site.at('/missing'), ...TRACK, '--exit-code', '--fail', '--output-dir', od, '-q'], { env });
    expect(run.code).toBe(10);
    expect(run.stderr).toMatch(/1 of 2 pages failed/);
    expect(readIndex(od).pages[1]).toMatchObject({ status: 'failed', statusCode: 404 });
  });
});

describe('kill -9 and run again (issue 56)', { timeout: 240_000 }, () => {
  const env = { WEBJOBS_HOME: tempHome() };
  const od = path.join(scratch, 'killed');
  const args = () => ['batch', site.at('/watched'), site.at('/hold'), ...TRACK, '--exit-code', '--output-dir', od, '-q', '--concurrency', '1'];
  const jobIds = () => (existsSync(path.join(env.WEBJOBS_HOME, 'jobs')) ? readdirSync(path.join(env.WEBJOBS_HOME, 'jobs')).filter((name) => !name.startsWith('.')) : []);

  /** Runs the script until /watched is written and /hold is loading, then (after `whileRunning`) kills it with SIGKILL; the job's id. */
  async function killMidway(whileRunning?: (jobId: string) => Promise<void>): Promise<string> {
    const before = new Set(jobIds());
    holding = true;
    const cli = startCli(args(), { env });
    const file = () => readdirSync(od).find((name) => name.includes('watched'));
    await until(
      () => held.length > 0 && file() !== undefined && readFileSync(path.join(od, file()!), 'utf8').includes(`the ${watched.word} news`),
      () => `held ${held.length}, ${cli.output().stderr}`,
    );
    await whileRunning?.(jobIds().find((job) => !before.has(job))!);
    cli.child.kill('SIGKILL');
    expect((await cli.done).signal).toBe('SIGKILL');
    for (const res of held) res.destroy();
    held = [];
    holding = false;
    const [id] = jobIds().filter((job) => !before.has(job));
    return id!;
  }

  it('a change found by a killed run is reported by the next run, once', async () => {
    watched.status = 200;
    watched.word = 'one';
    expect((await runCli(args(), { env })).code).toBe(10);
    expect((await runCli(args(), { env })).code).toBe(0);
    watched.word = 'two';
    // Counted while it runs, by jobs and status alike: /watched stored (and changed), /hold loading.
    await killMidway(async (jobId) => {
      await until(
        async () => {
          const listed = JSON.parse((await runCli(['jobs', '--json', '--limit', '1'], { env })).stdout) as { jobId: string; status: string; pages?: unknown }[];
          return JSON.stringify(listed) === JSON.stringify([{ ...listed[0], jobId, status: 'running', pages: { completed: 1, failed: 0, changed: 1 } }]);
        },
        () => 'jobs lists the running job with 1 page completed and changed',
      );
      expect((await runCli(['status', jobId], { env })).stderr).toBe('webjobs: 1 page completed, 0 failed, 1 changed\n');
    });
    const again = await runCli(args(), { env });
    expect(again.code).toBe(10);
    expect(readChanges(od)).toEqual([expect.objectContaining({ url: site.at('/watched'), changeStatus: 'changed' })]);
    const after = await runCli(args(), { env });
    expect(after.code).toBe(0);
    expect(readChanges(od)).toEqual([]);
  });

  it('resume right after the kill goes on as the job was started: its folder, formats and --exit-code', async () => {
    watched.word = 'three';
    await runCli(args(), { env });
    watched.word = 'four';
    const jobId = await killMidway();
    rmSync(path.join(od, 'index.json'), { force: true });
    const resumed = await runCli(['resume', jobId], { env });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(10);
    expect(resumed.stdout).toBe('');
    expect(readIndex(od).jobId).toBe(jobId);
    expect(readChanges(od)).toEqual([expect.objectContaining({ url: site.at('/watched'), changeStatus: 'changed' })]);
    // Reported by the resumed run: the next one has nothing new.
    expect((await runCli(args(), { env })).code).toBe(0);
  });
});

describe('right after kill -9 (issue 56)', () => {
  it('a killed process its shell has not reaped yet (a zombie) is dead to the job store', async () => {
    // The shell stops itself after starting `sleep`, so it cannot reap it once it is killed.
    const shell = spawn('sh', ['-c', 'sleep 60 & echo $!; sleep 0.5; kill -STOP $$'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((resolve) => shell.stdout.once('data', (d: Buffer) => resolve(d.toString()))));
      expect(isProcessAlive(pid)).toBe(true);
      // Not before the shell is stopped: a shell still running reaps a child that died between its commands.
      await until(
        () => /^\d+ \(.*\) T /s.test(readFileSync(`/proc/${shell.pid}/stat`, 'latin1')),
        () => `shell ${shell.pid} stopped`,
      );
      process.kill(pid, 'SIGKILL');
      await until(
        () => readFileSync(`/proc/${pid}/stat`, 'latin1').includes(') Z '),
        () => `process ${pid} a zombie`,
      );
      expect(isProcessAlive(pid)).toBe(false);
    } finally {
      shell.kill('SIGKILL');
    }
  });
});

describe('the small ones (issue 56)', () => {
  const env = { WEBJOBS_HOME: tempHome() };

  it('-o FILE with several formats is refused before anything runs, with the ways that work', async () => {
    const file = path.join(scratch, 'status.md');
    for (const command of [['scrape', site.at('/steady')], ['batch', site.at('/steady')]]) {
      const run = await runCli([...command, ...TRACK, '-o', file], { env });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^webjobs: -o .*status\.md holds one format and --formats asks for 2 \(markdown,changeTracking\): ask for one, or use --json/);
      expect(existsSync(file)).toBe(false);
    }
    const json = await runCli(['scrape', site.at('/steady'), ...TRACK, '--json', '-o', file], { env });
    expect(json.code).toBe(0);
  });

  it('one page is "1 page", and result takes -q', async () => {
    const run = await runCli(['batch', site.at('/missing'), '--engine', 'http', '--fail', '--json'], { env });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('webjobs: 1 of 1 page failed (exit code 3)\n');
    const { jobId } = JSON.parse(run.stdout) as { jobId: string };
    const result = await runCli(['result', jobId, '-q'], { env });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { data: { status: string }[] }).data.map((e) => e.status)).toEqual(['failed']);
  });

  it('map and crawl list and fetch links without their tracking parameters', async () => {
    const map = await runCli(['map', site.at('/tracked-links'), '--json'], { env });
    expect(map.code, map.stderr).toBe(0);
    expect(map.stdout).not.toMatch(/utm_|gclid/);
    expect(map.stdout).toContain(site.at('/steady'));
    const crawl = await runCli(['crawl', site.at('/tracked-links'), '--engine', 'http', '--ignore-sitemap', '--jsonl'], { env });
    const urls = crawl.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { url: string }).url);
    expect(urls.sort()).toEqual([site.at('/steady'), site.at('/tracked-links'), site.at('/watched?b=1&a=%20')].sort());
  });

  it('scrape -o: a page answered 500 leaves the good file, with a warning even with -q', async () => {
    const file = path.join(scratch, 'watched.md');
    watched.status = 200;
    watched.word = 'kept';
    expect((await runCli(['scrape', site.at('/watched'), '--engine', 'http', '-o', file], { env })).code).toBe(0);
    watched.status = 500;
    const run = await runCli(['scrape', site.at('/watched'), '--engine', 'http', '-o', file, '-q'], { env });
    watched.status = 200;
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^webjobs: warning: .*\/watched answered HTTP 500 Internal Server Error; .*watched\.md is the last good page, kept/);
    expect(readFileSync(file, 'utf8')).toContain('the kept news');
  });

  // Nine runs of the CLI, one after another.
  it('batch and crawl -o FILE: an error page never replaces its good section; stdout never prints one', { timeout: 240_000 }, async () => {
    const file = path.join(scratch, 'pages.md');
    watched.status = 200;
    watched.word = 'sectioned';
    const batch = (...more: string[]) => runCli(['batch', site.at('/watched'), site.at('/steady'), '--engine', 'http', '-o', file, '-q', ...more], { env });
    expect((await batch()).code).toBe(0);
    const good = readFileSync(file, 'utf8');
    expect(good).toContain('the sectioned news');
    watched.status = 500;
    const day2 = await batch();
    expect(day2.code).toBe(0);
    expect(day2.stderr).toMatch(/^webjobs: warning: \S+\/watched answered HTTP 500 Internal Server Error; its section in \S+pages\.md is the last good page, kept/);
    expect(readFileSync(file, 'utf8')).toBe(good);
    // The stored job's pages, written again by result, keep the good section alike.
    const [{ jobId }] = JSON.parse((await runCli(['jobs', '--json', '--limit', '1'], { env })).stdout) as { jobId: string }[];
    const stored = await runCli(['result', jobId, '--content', '-o', file], { env });
    expect(stored.stderr).toMatch(/^webjobs: warning: \S+\/watched answered HTTP 500 Internal Server Error; its section in \S+pages\.md is the last good page, kept\n$/);
    expect(readFileSync(file, 'utf8')).toBe(good);
    const failed = await batch('--fail');
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/\/watched failed: HTTP 500 Internal Server Error \(--fail\); its section in \S+pages\.md is the last good page, kept\n/);
    expect(readFileSync(file, 'utf8')).toBe(good);
    // Nothing to keep on stdout: the header names the error, and the error page is left out.
    const printed = await runCli(['batch', site.at('/watched'), site.at('/steady'), '--engine', 'http', '-q'], { env });
    expect(printed.stdout).toContain(`==> [1/2] ${site.at('/watched')} (HTTP 500 Internal Server Error) <==\n\n\n==> [2/2] ${site.at('/steady')} <==`);
    expect(printed.stdout).not.toContain('Something broke');
    // A crawl's file alike, whatever order its pages finish in.
    const crawlFile = path.join(scratch, 'crawl.md');
    const crawl = () => runCli(['crawl', site.at('/tracked-links'), '--engine', 'http', '--ignore-sitemap', '-o', crawlFile, '-q'], { env });
    watched.status = 200;
    expect((await crawl()).code).toBe(0);
    watched.status = 502;
    expect((await crawl()).code).toBe(0);
    expect(readFileSync(crawlFile, 'utf8')).toContain('the sectioned news');
    expect(readFileSync(crawlFile, 'utf8')).not.toContain('Something broke');
    // Good again: written again.
    watched.status = 200;
    watched.word = 'restored';
    expect((await batch()).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(good.replaceAll('the sectioned news', 'the restored news'));
  });

  it('cancel of a job that ended exits 12', async () => {
    const run = await runCli(['scrape', site.at('/steady'), '--engine', 'http', '--json'], { env });
    const { jobId } = JSON.parse(run.stdout) as { jobId: string };
    const cancel = await runCli(['cancel', jobId], { env });
    expect([cancel.code, cancel.stdout]).toEqual([12, '']);
    expect(cancel.stderr).toMatch(/had already ended \(completed\); nothing to cancel\n$/);
  });
});
