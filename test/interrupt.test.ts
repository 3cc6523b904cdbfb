/**
 * Whatever ends webjobs (Ctrl-C, SIGTERM, `timeout`, SIGKILL), no Chromium and no
 * profile folder of it outlive it, and a stopped job keeps what it did.
 *
 * Each run gets its own TMPDIR: the profile folder of its Chromium lies there, so
 * every Chromium process of that run carries the folder in its command line.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runShell, startCli, tempHome, type RunningCli } from './helpers/cli.js';
import { startServe } from './helpers/serve.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const PROFILE_PREFIX = 'webjobs-chromium-';

let site: FixtureServer;
/** Resolves each time the never-answering page is asked for: the browser is up and busy. */
let slowRequested: Promise<void>;
let onSlow: () => void;
function expectSlowRequest(): Promise<void> {
  slowRequested = new Promise((resolve) => (onSlow = resolve));
  return slowRequested;
}

const home = tempHome();
let openGate!: () => void;
const gate = new Promise<void>((resolve) => (openGate = resolve));

beforeAll(async () => {
  site = await startFixtureServer({
    '/fast': (_req, res) => sendHtml(res, html(`<article><h1>Fast</h1>${articleText('fast pages')}</article>`, { title: 'Fast' })),
    '/fast2': (_req, res) => sendHtml(res, html(`<article><h1>Fast two</h1>${articleText('more fast pages')}</article>`, { title: 'Fast two' })),
    // Never answers: the job cannot end by itself while the test signals the CLI.
    '/slow': () => onSlow(),
    // A crawl's start page whose only link never answers.
    '/start': (_req, res) => sendHtml(res, html(`<article><h1>Start</h1>${articleText('the start')}<p><a href="/slow">on</a></p></article>`, { title: 'Start' })),
    // Answers once the test opens the gate (after it closed the CLI's stdout).
    '/gated': async (_req, res) => {
      await gate;
      sendHtml(res, html(`<article><h1>Gated</h1>${articleText('gated pages')}</article>`, { title: 'Gated' }));
    },
    // Over 64 KiB of Markdown: more than a pipe holds, so a reader that stops early makes the writer meet EPIPE.
    '/big': (_req, res) => sendHtml(res, html(`<article><h1>Big</h1>${articleText('big pages', 400)}</article>`, { title: 'Big' })),
  });
});

const tmps: string[] = [];
afterAll(async () => {
  openGate();
  await site?.close();
  for (const tmp of tmps) rmSync(tmp, { recursive: true, force: true });
});

/** Pids of live processes whose command line mentions `marker` (zombies have none). */
function processesMentioning(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) found.push(Number(name));
    } catch {
      /* ended while we looked */
    }
  }
  return found;
}

/**
 * Polls until no process mentions `marker`, giving up after a generous limit so a
 * failure reports the survivors instead of hanging; the assertion is on the set.
 */
async function survivors(marker: string, limitMs = 30_000): Promise<number[]> {
  const until = Date.now() + limitMs;
  for (;;) {
    const left = processesMentioning(marker);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The status of each job in the store, read from its files as the CLI leaves them. */
function jobStatuses(): string[] {
  const jobs = path.join(home, 'jobs');
  return readdirSync(jobs).map((id) => {
    try {
      return (JSON.parse(readFileSync(path.join(jobs, id, 'status.json'), 'utf8')) as { status: string }).status;
    } catch {
      return 'unreadable'; // being written
    }
  });
}

function profileDirs(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => name.startsWith(PROFILE_PREFIX));
}

/** Whatever webjobs or its Chromium left in TMPDIR (org.chromium.Chromium.* included). */
function leftIn(tmp: string, except: string[] = []): string[] {
  return readdirSync(tmp).filter((name) => !except.includes(name));
}

function newTmp(): string {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'webjobs-signal-'));
  tmps.push(tmp);
  return tmp;
}

/** A batch that gets stuck on /slow, in its own TMPDIR, once its browser asks for /slow. */
async function stuckBatch(tmp: string, extra: string[] = [], command?: string[]): Promise<RunningCli> {
  const asked = expectSlowRequest();
  // --engine browser: what is checked is that Chromium and its profile go.
  const cli = startCli(['batch', site.at('/fast'), site.at('/fast2'), site.at('/slow'), '--concurrency', '1', '--engine', 'browser', ...extra], {
    env: { WEBJOBS_HOME: home, TMPDIR: tmp },
    command,
  });
  await Promise.race([asked, cli.done.then((r) => Promise.reject(new Error(`the CLI ended early: ${r.stderr}`)))]);
  return cli;
}

describe('nothing outlives webjobs', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s: the job stops, Chromium and its profile are gone', async (signal, code) => {
    const tmp = newTmp();
    const cli = await stuckBatch(tmp);
    expect(processesMentioning(tmp).length).toBeGreaterThan(0);
    cli.child.kill(signal);
    const result = await cli.done;
    expect(result.code).toBe(code);
    expect(await survivors(tmp)).toEqual([]);
    expect(leftIn(tmp)).toEqual([]);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/stopped, 2 of 3 pages done; read it with: webjobs result [0-9a-f-]{36} or go on with: webjobs resume [0-9a-f-]{36}$/);
  });

  it('a repeated SIGTERM while the job stops does not cut the stop short (timeout(1) sends two)', async () => {
    // timeout(1) signals webjobs and then its whole process group, so webjobs gets SIGTERM twice;
    // here the second comes once the first has surely been handled: the job is recorded stopped.
    const tmp = newTmp();
    const cli = await stuckBatch(tmp);
    cli.child.kill('SIGTERM');
    while (!jobStatuses().includes('stopped')) await new Promise((resolve) => setTimeout(resolve, 10));
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(143);
    expect(result.stderr).toMatch(/^webjobs: interrupted \(SIGTERM\): batch job .* stopped, 2 of 3 pages done/);
    expect(await survivors(tmp)).toEqual([]);
  });

  it('under `timeout`: Chromium and its profile are gone', async () => {
    // timeout(1) handles a SIGTERM it is sent as its time running out: it signals webjobs, then its whole
    // process group (Chromium too). Sent once the browser is busy on the page, not after a fixed time
    // that a slow machine may not have reached the page in, and the stopped job is always checked.
    const tmp = newTmp();
    const cli = await stuckBatch(tmp, [], ['timeout', '300']);
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(143); // webjobs' code for SIGTERM, which timeout passes on when its time did not run out
    expect(await survivors(tmp)).toEqual([]);
    expect(leftIn(tmp)).toEqual([]);
    expect(result.stderr).toMatch(/^webjobs: interrupted \(SIGTERM\): batch job .* stopped, 2 of 3 pages done/);
  });

  it('SIGKILL: Chromium exits by itself; the next start removes the profile', async () => {
    const tmp = newTmp();
    const cli = await stuckBatch(tmp);
    cli.child.kill('SIGKILL');
    await cli.done;
    expect(await survivors(tmp)).toEqual([]);
    const left = profileDirs(tmp);
    expect(left).toHaveLength(1);
    expect(left[0]).toContain(`${PROFILE_PREFIX}${cli.child.pid}-`);

    const next = await runCli(['scrape', site.at('/fast'), '--engine', 'browser'], { env: { WEBJOBS_HOME: home, TMPDIR: tmp } });
    expect(next.code).toBe(0);
    expect(leftIn(tmp)).toEqual([]);
    expect(await survivors(tmp)).toEqual([]);
  });
});

describe('Ctrl-C keeps what is done', () => {
  it('writes --output-dir files as pages finish, and the job is stopped with its pages', async () => {
    const tmp = newTmp();
    const out = path.join(tmp, 'pages');
    const cli = await stuckBatch(tmp, ['--output-dir', out]);
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code).toBe(130);
    const jobId = /webjobs result ([0-9a-f-]{36})/.exec(result.stderr)![1]!;
    expect(readdirSync(out).sort()).toEqual(['127.0.0.1_' + new URL(site.url).port + '_fast.md', '127.0.0.1_' + new URL(site.url).port + '_fast2.md', 'index.json'].sort());
    const index = JSON.parse(readFileSync(path.join(out, 'index.json'), 'utf8'));
    expect(index.pages.map((p: { status: string }) => p.status)).toEqual(['completed', 'completed', 'pending']);

    const status = await runCli(['status', jobId], { env: { WEBJOBS_HOME: home } });
    expect(status.stdout.trim()).toBe('stopped');
    const record = JSON.parse((await runCli(['result', jobId], { env: { WEBJOBS_HOME: home } })).stdout);
    expect(record.data.slice(0, 2).map((e: { status: string }) => e.status)).toEqual(['completed', 'completed']);
    expect(record.data[0].markdown).toContain('fast pages');

    // What was done can be written out later, as the job command would have.
    const later = path.join(tmp, 'later');
    expect((await runCli(['result', jobId, '--output-dir', later], { env: { WEBJOBS_HOME: home } })).code).toBe(0);
    expect(readdirSync(later).sort()).toEqual(readdirSync(out).sort());
    const text = await runCli(['result', jobId, '--content'], { env: { WEBJOBS_HOME: home } });
    expect(text.stdout).toMatch(/^==> \[1\/3\] .*\/fast <==\n\n[\s\S]*fast pages[\s\S]*\n==> \[2\/3\] .*\/fast2 <==\n/);
    expect(text.stdout).not.toContain('[3/3]');
    expect(leftIn(tmp, ['pages', 'later'])).toEqual([]);
  });
});

describe('Ctrl-C mid-crawl', () => {
  it('stops the crawl, keeps the start page, and a second signal is not needed', async () => {
    const tmp = newTmp();
    const asked = expectSlowRequest();
    const cli = startCli(['crawl', site.at('/start'), '--ignore-sitemap'], { env: { WEBJOBS_HOME: home, TMPDIR: tmp } });
    await asked;
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code).toBe(130);
    expect(result.stderr.trim()).toMatch(/^webjobs: interrupted \(SIGINT\): crawl job [0-9a-f-]{36} stopped, 1 page done; read it with: webjobs result [0-9a-f-]{36} or go on with: webjobs resume [0-9a-f-]{36}$/);
    expect(await survivors(tmp)).toEqual([]);
    expect(leftIn(tmp)).toEqual([]);
    const jobId = /webjobs result ([0-9a-f-]{36})/.exec(result.stderr)![1]!;
    const record = JSON.parse((await runCli(['result', jobId], { env: { WEBJOBS_HOME: home } })).stdout);
    expect(record.status).toBe('stopped');
    expect(record.data.map((e: { url: string }) => e.url)).toEqual([site.at('/start')]);
  });

  it('a second Ctrl-C quits at once, and still leaves nothing behind', async () => {
    const tmp = newTmp();
    const cli = await stuckBatch(tmp);
    cli.child.kill('SIGINT');
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code).toBe(130);
    expect(await survivors(tmp)).toEqual([]);
    expect(leftIn(tmp)).toEqual([]);
  });
});

describe('Ctrl-C with --remote', () => {
  it("cancels the service's job and says how to read it there", async () => {
    const serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: 'k_test:scale' } });
    try {
      const remote = ['--remote', serve.url, '--api-key', 'k_test'];
      const asked = expectSlowRequest();
      const cli = startCli(['batch', site.at('/fast'), site.at('/fast2'), site.at('/slow'), '--concurrency', '1', ...remote]);
      await asked;
      cli.child.kill('SIGINT');
      const result = await cli.done;
      expect(result.code).toBe(130);
      const line = result.stderr.trim();
      expect(line.split('\n')).toHaveLength(1);
      expect(line).toMatch(new RegExp(`stopped, 2 of 3 pages done; read it with: webjobs result [0-9a-f-]{36} --remote ${serve.url} or go on with: webjobs resume [0-9a-f-]{36} --remote ${serve.url}$`));
      const jobId = /webjobs result ([0-9a-f-]{36})/.exec(line)![1]!;
      const status = await runCli(['status', jobId, ...remote]);
      expect(status.stdout.trim()).toBe('stopped');
    } finally {
      await serve.stop();
    }
  });
});

describe('a closed stdout ends webjobs quietly', () => {
  it('`batch --jsonl | head -1`: exit 141 as cat, nothing on stderr, the job stopped, no browser left', async () => {
    const tmp = newTmp();
    const cli = startCli(['batch', site.at('/fast'), site.at('/gated'), site.at('/fast2'), '--jsonl', '--concurrency', '1'], {
      env: { WEBJOBS_HOME: home, TMPDIR: tmp },
    });
    // The first line is out; the reader goes away; only then can the next page finish and be written.
    await new Promise<void>((resolve) => cli.child.stdout!.on('data', () => resolve()));
    cli.child.stdout!.destroy();
    openGate();
    const result = await cli.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(141);
    expect(await survivors(tmp)).toEqual([]);
    expect(leftIn(tmp)).toEqual([]);
    const jobs = await runCli(['jobs', '--json'], { env: { WEBJOBS_HOME: home } });
    const last = JSON.parse(jobs.stdout)[0]; // newest first
    expect(last.status).toBe('stopped');
  });

  it('`batch … | head -2` on the default output: exit 141 as cat, nothing on stderr, no browser left', async () => {
    const tmp = newTmp();
    const big = site.at('/big');
    // Three pages of over 64 KiB each: more than the pipe holds once head has gone.
    const result = await runShell(`webjobs batch ${big} ${big} ${big} 2>"$TMPDIR/stderr" | head -2; echo "exit \${PIPESTATUS[0]}"`, {
      env: { WEBJOBS_HOME: home, TMPDIR: tmp },
    });
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^==> \[1\/3\]/);
    expect(lines[2]).toBe('exit 141');
    expect(readFileSync(path.join(tmp, 'stderr'), 'utf8')).toBe('');
    expect(await survivors(tmp)).toEqual([]);
    expect(leftIn(tmp, ['stderr'])).toEqual([]);
  });
});
