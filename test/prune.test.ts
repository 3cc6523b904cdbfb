/** `webjobs prune` (by age and status) and `webjobs retry ID` (the failed pages of a job, again), through the real CLI. */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

let site: FixtureServer;
/** While true, /flaky closes the connection without an answer (Chromium retries that itself, so it stays broken until the test mends it). */
let flakyBroken = true;

beforeAll(async () => {
  site = await startFixtureServer({
    '/ok': (_req, res) => sendHtml(res, html(`<article><h1>Fine</h1>${articleText('fine', 3)}</article>`, { title: 'Fine' })),
    '/flaky': (req, res) => {
      if (flakyBroken) return void req.socket.destroy();
      sendHtml(res, html(`<article><h1>Flaky</h1>${articleText('flaky', 3)}</article>`, { title: 'Flaky now works' }));
    },
  });
});

afterAll(async () => {
  await site?.close();
});

/** Makes a stored job look `days` old, as if created then. */
function age(home: string, jobId: string, days: number): void {
  const createdAt = new Date(Date.now() - days * 86_400_000).toISOString();
  for (const name of ['meta.json', 'status.json']) {
    const file = path.join(home, 'jobs', jobId, name);
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), createdAt }));
  }
}

async function jobIds(env: NodeJS.ProcessEnv): Promise<string[]> {
  return (JSON.parse((await runCli(['jobs', '--json'], { env })).stdout) as { jobId: string }[]).map((job) => job.jobId);
}

describe('webjobs prune', () => {
  it('deletes the ended jobs older than --older-than in the --status states, and nothing else', async () => {
    const home = tempHome();
    const env = { WEBJOBS_HOME: home };
    const start = async (url: string) => JSON.parse((await runCli(['scrape', url, '--json'], { env })).stdout).jobId as string;
    // Port 9 is one Chromium refuses: the scrape fails at once.
    const oldFailed = await start('http://127.0.0.1:9/');
    const newFailed = await start('http://127.0.0.1:9/');
    const oldCompleted = await start(site.at('/ok'));
    age(home, oldFailed, 8);
    age(home, oldCompleted, 8);

    const none = await runCli(['prune'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--older-than, --status or both');
    expect(await jobIds(env)).toHaveLength(3);

    const dry = await runCli(['prune', '--older-than', '7d', '--status', 'failed', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.stdout.trim()).toBe(oldFailed);
    expect(await jobIds(env)).toHaveLength(3);

    const pruned = await runCli(['prune', '--older-than', '7d', '--status', 'failed'], { env });
    expect(pruned.code).toBe(0);
    expect(pruned.stdout.trim()).toBe(oldFailed);
    expect(pruned.stderr).toContain('deleted 1 job');
    expect((await jobIds(env)).sort()).toEqual([newFailed, oldCompleted].sort());
    const gone = await runCli(['status', oldFailed], { env });
    expect(gone.code).not.toBe(0);

    const bad = await runCli(['prune', '--older-than', 'a week'], { env });
    expect(bad.code).toBe(2);
    const running = await runCli(['prune', '--status', 'running'], { env });
    expect(running.code).toBe(2);
  });
});

describe('prune and what resume keeps', () => {
  it("deletes the job's kept run options (runs/ID.json) with the job, and only its own", async () => {
    const home = tempHome();
    const env = { WEBJOBS_HOME: home };
    const dir = path.join(home, 'out');
    const batch = async () => {
      expect((await runCli(['batch', site.at('/ok'), '--json', '-o', path.join(dir, 'ok.json')], { env })).code).toBe(0);
      return (JSON.parse(readFileSync(path.join(dir, 'ok.json'), 'utf8')) as { jobId: string }).jobId;
    };
    const [old, recent] = [await batch(), await batch()];
    const kept = (jobId: string) => existsSync(path.join(home, 'runs', `${jobId}.json`));
    expect([kept(old), kept(recent)]).toEqual([true, true]);
    age(home, old, 8);
    const dry = await runCli(['prune', '--older-than', '7d', '--dry-run'], { env });
    expect([dry.stdout.trim(), kept(old)]).toEqual([old, true]);
    const pruned = await runCli(['prune', '--older-than', '7d'], { env });
    expect(pruned.stdout.trim()).toBe(old);
    expect([kept(old), kept(recent)]).toEqual([false, true]);
  }, 120_000);
});

describe('a damaged store', () => {
  it('prune skips damaged records, says so and goes on; a job folder without meta.json, or a file named like a job, is damaged everywhere', async () => {
    const home = tempHome();
    const env = { WEBJOBS_HOME: home };
    const start = async () => JSON.parse((await runCli(['scrape', 'http://127.0.0.1:9/', '--json'], { env })).stdout).jobId as string;
    const [cutShort, noMeta, fine, alsoFine] = [await start(), await start(), await start(), await start()];
    const jobDir = (jobId: string) => path.join(home, 'jobs', jobId);
    // The oldest job's record is cut short (its small status file is fine, so it is listed as failed).
    writeFileSync(path.join(jobDir(cutShort), 'job.json'), '{"status":');
    rmSync(path.join(jobDir(noMeta), 'meta.json'));
    const plainFile = 'aaaaaaaa-1111-4222-8333-444444444444';
    writeFileSync(jobDir(plainFile), 'not a job');

    // Listing and reading agree: the job without meta.json is damaged in both, not completed in one and unknown to the other.
    const listed = JSON.parse((await runCli(['jobs', '--json'], { env })).stdout) as { jobId: string; status: string; error?: string }[];
    const noMetaListed = listed.find((job) => job.jobId === noMeta);
    expect(noMetaListed).toMatchObject({ status: 'unknown', error: expect.stringContaining('meta.json is missing') });
    const noMetaResult = await runCli(['result', noMeta], { env });
    expect(noMetaResult.code).toBe(8);
    expect(noMetaResult.stderr.trim()).toBe(`webjobs: ${noMetaListed!.error}`);

    const status = await runCli(['status', plainFile], { env });
    expect(status.code).toBe(8);
    expect(status.stderr.trim()).toBe(`webjobs: the record of job ${plainFile} is damaged (jobs/${plainFile} is a file, not a job's folder); its state is unknown`);
    expect(listed.find((job) => job.jobId === plainFile)?.status).toBe('unknown');

    const pruned = await runCli(['prune', '--status', 'failed'], { env });
    expect(pruned.code).toBe(0);
    expect(pruned.stdout.trim().split('\n').sort()).toEqual([fine, alsoFine].sort());
    expect(pruned.stderr).toContain(`skipped: the record of job ${cutShort} is damaged (job.json is not valid JSON)`);
    expect(pruned.stderr).toContain(`skipped: the record of job ${noMeta} is damaged (meta.json is missing)`);
    expect(pruned.stderr).toContain('deleted 2 jobs; left 3 damaged jobs alone');
    expect((await jobIds(env)).sort()).toEqual([cutShort, noMeta, plainFile].sort());
  }, 120_000);
});

describe('webjobs retry', () => {
  it('starts a batch of the pages that failed, with the options the job ran with', async () => {
    const env = { WEBJOBS_HOME: tempHome() };
    const first = await runCli(['batch', site.at('/ok'), site.at('/flaky'), '--json', '--header', 'X-Team: blue'], { env });
    expect(first.code).toBe(3);
    const record = JSON.parse(first.stdout);
    expect(record.data.map((entry: { status: string }) => entry.status)).toEqual(['completed', 'failed']);
    flakyBroken = false;
    const before = site.received.length;

    const retried = await runCli(['retry', record.jobId.slice(0, 8), '--json'], { env });
    expect(retried.stderr).toBe('');
    expect(retried.code).toBe(0);
    const again = JSON.parse(retried.stdout);
    expect(again.jobId).not.toBe(record.jobId);
    expect(again.data).toHaveLength(1);
    expect(again.data[0].url).toBe(site.at('/flaky'));
    expect(again.data[0].metadata.title).toBe('Flaky now works');
    // Only the failed page was asked for again, with the job's header.
    const asked = site.received.slice(before);
    expect(asked.map((r) => r.path)).toEqual(['/flaky']);
    expect(asked[0]!.headers['x-team']).toBe('blue');

    const nothing = await runCli(['retry', again.jobId], { env });
    expect(nothing.code).toBe(0);
    expect(nothing.stderr).toContain('nothing to retry');

  });

  it('starts a scrape job that failed again with its own request, and prints it as scrape does', async () => {
    const env = { WEBJOBS_HOME: tempHome() };
    flakyBroken = true;
    const first = await runCli(['scrape', site.at('/flaky'), '--json', '--header', 'X-Team: green'], { env });
    expect(first.code).not.toBe(0);
    const failed = JSON.parse(first.stdout);
    expect(failed.status).toBe('failed');
    flakyBroken = false;
    const before = site.received.length;

    const retried = await runCli(['retry', failed.jobId.slice(0, 8)], { env });
    expect(retried.stderr).toBe('');
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain('# Flaky');
    const asked = site.received.slice(before);
    expect(asked.map((r) => r.path)).toEqual(['/flaky']);
    expect(asked[0]!.headers['x-team']).toBe('green');

    // A completed scrape has nothing to retry; batch-only flags are refused.
    const done = JSON.parse((await runCli(['scrape', site.at('/ok'), '--json'], { env })).stdout).jobId as string;
    const nothing = await runCli(['retry', done], { env });
    expect(nothing.code).toBe(0);
    expect(nothing.stderr).toContain(`scrape job ${done} completed; nothing to retry`);
    const batchFlag = await runCli(['retry', failed.jobId, '--output-dir', tempHome()], { env });
    expect(batchFlag.code).toBe(2);
    expect(batchFlag.stderr).toContain('--output-dir go with a batch or crawl job');
    // Four scrapes through the real CLI: more than the default minute on a busy machine.
  }, 180_000);
});
