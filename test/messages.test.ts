/** Messages in the CLI's own terms, and -o at its edges (issue 11). */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runShell, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

let site: FixtureServer;
const home = tempHome();
const env = { WEBJOBS_HOME: home };
const scratch = mkdtempSync(path.join(os.tmpdir(), 'webjobs-messages-'));

beforeAll(async () => {
  site = await startFixtureServer({
    '/a': (_req, res) => sendHtml(res, html(`<article><h1>Alpha</h1>${articleText('alpha')}</article>`, { title: 'Alpha' })),
  });
});

afterAll(async () => {
  await site?.close();
});

/** A fresh store: proves a refused command started no job. */
async function noJobsIn(dir: string): Promise<boolean> {
  const listed = await runCli(['jobs', '--json'], { env: { WEBJOBS_HOME: dir } });
  return listed.stdout.trim() === '[]';
}

describe('messages speak the CLI language', () => {
  it('--max-pages over the limit names the flag, not request.maxPages', async () => {
    const result = await runCli(['crawl', site.at('/a'), '--max-pages', '500000'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--max-pages must be at most 100,000, got 500000/);
    expect(result.stderr).not.toMatch(/request\.|maxPages/);
  });

  it('a URL without a scheme suggests the https one', async () => {
    const result = await runCli(['scrape', 'example.com'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/did you mean https:\/\/example\.com\?/);
  });

  it('serve --port 99999 is a usage error (2)', async () => {
    const result = await runCli(['serve', '--port', '99999'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--port must be at most 65,535/);
  });

  it("--formats '' is refused", async () => {
    const fresh = tempHome();
    const result = await runCli(['scrape', site.at('/a'), '--formats', ''], { env: { WEBJOBS_HOME: fresh } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/at least one format/);
    expect(await noJobsIn(fresh)).toBe(true);
  });

  it('jobs on an empty store says so on stderr, stdout stays empty', async () => {
    const result = await runCli(['jobs'], { env: { WEBJOBS_HOME: tempHome() } });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/no jobs yet/);
  });

  it('--include-tags that matches nothing says so on stderr (exit 0: the page is empty there)', async () => {
    const result = await runCli(['scrape', site.at('/a'), '--include-tags', '.nothing-here'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^webjobs: warning: --include-tags \.nothing-here matched nothing on http:\/\/127\.0\.0\.1:\d+\/a\n$/);
    const matched = await runCli(['scrape', site.at('/a'), '--include-tags', 'h1'], { env });
    expect(matched).toMatchObject({ code: 0, stderr: '' });
    expect(matched.stdout).toContain('Alpha');
  });

  it('status --kind of another kind says which kind the job is', async () => {
    const scraped = await runCli(['scrape', site.at('/a'), '--json'], { env });
    const { jobId } = JSON.parse(scraped.stdout);
    const result = await runCli(['status', jobId, '--kind', 'crawl'], { env });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(new RegExp(`job ${jobId} is a scrape job, not a crawl job`));
  });
});

describe('jobs by a short id, filtered lists', () => {
  it('status, result and cancel take the start of an id; jobs takes --status and --limit', async () => {
    const fresh = tempHome();
    const freshEnv = { WEBJOBS_HOME: fresh };
    const first = JSON.parse((await runCli(['scrape', site.at('/a'), '--json'], { env: freshEnv })).stdout).jobId as string;
    const refused = await runCli(['scrape', 'http://127.0.0.1:1/refused', '--json'], { env: freshEnv });
    const second = JSON.parse(refused.stdout).jobId as string;
    const short = first.slice(0, 8);
    expect((await runCli(['status', short], { env: freshEnv })).stdout).toBe('completed\n');
    expect(JSON.parse((await runCli(['result', short], { env: freshEnv })).stdout).jobId).toBe(first);
    const cancelled = await runCli(['cancel', short], { env: freshEnv });
    // A job that ended is left as it is: exit 12 and one line (issue 56).
    expect([cancelled.code, cancelled.stdout]).toEqual([12, '']);
    expect(cancelled.stderr).toBe(`webjobs: scrape job ${first} had already ended (completed); nothing to cancel\n`);
    const failed = await runCli(['jobs', '--status', 'failed'], { env: freshEnv });
    expect(failed.stdout.trim().split('\n').map((line) => line.split(' ')[0])).toEqual([second]);
    const newest = await runCli(['jobs', '--limit', '1', '--json'], { env: freshEnv });
    expect(JSON.parse(newest.stdout).map((j: { jobId: string }) => j.jobId)).toEqual([second]);
    const none = await runCli(['jobs', '--status', 'stopped'], { env: freshEnv });
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toMatch(/no stopped jobs/);
  });
});

describe('-o at the edges', () => {
  it('-o - writes to stdout, not to a file named -', async () => {
    const dir = mkdtempSync(path.join(scratch, 'dash-'));
    const result = await runShell(`webjobs scrape ${site.at('/a')} -o -`, { env, cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('alpha');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('-o naming a directory fails at once, one line, nothing left behind', async () => {
    const fresh = tempHome();
    const dir = mkdtempSync(path.join(scratch, 'dir-'));
    const result = await runCli(['scrape', site.at('/a'), '-o', dir], { env: { WEBJOBS_HOME: fresh } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^webjobs: -o .* is a directory; name a file/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(path.dirname(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(await noJobsIn(fresh)).toBe(true);
  });

  it('-o /proc/nope/x.md fails at once, before any job', async () => {
    const fresh = tempHome();
    const result = await runCli(['scrape', site.at('/a'), '-o', '/proc/nope/x.md'], { env: { WEBJOBS_HOME: fresh } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^webjobs: cannot write \/proc\/nope\/x\.md/);
    expect(await noJobsIn(fresh)).toBe(true);
  });

  it('-o to a symlink writes through it; the link stays', async () => {
    const dir = mkdtempSync(path.join(scratch, 'link-'));
    mkdirSync(path.join(dir, 'real'));
    writeFileSync(path.join(dir, 'real', 'page.md'), 'old\n');
    symlinkSync(path.join('real', 'page.md'), path.join(dir, 'page.md'));
    const result = await runCli(['scrape', site.at('/a'), '-o', path.join(dir, 'page.md')], { env });
    expect(result.code).toBe(0);
    expect(lstatSync(path.join(dir, 'page.md')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(dir, 'real', 'page.md'), 'utf8')).toContain('alpha');
    expect(readdirSync(path.join(dir, 'real'))).toEqual(['page.md']);
  });

  it('-o to a FIFO writes into it; the FIFO stays', async () => {
    const dir = mkdtempSync(path.join(scratch, 'fifo-'));
    const result = await runShell(`mkfifo pipe && { cat pipe > got & } && webjobs scrape ${site.at('/a')} -o pipe && wait && test -p pipe && cat got`, {
      env,
      cwd: dir,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('alpha');
    expect(existsSync(path.join(dir, 'pipe'))).toBe(true);
  });
});
