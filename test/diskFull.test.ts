/**
 * A full disk under a real `webjobs serve` and the real CLI (issue 43, item 5):
 * the store lives on a tmpfs of 2 MiB (mounted here: the tests run as root, as CI
 * does), filled up with a file. The job that hits the full disk fails saying so,
 * the server stays up and answers reads, no temporary or lock file is left, a
 * restart on the still full disk lists every job, and the CLI says it in one line.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs, statfsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'key-disk-0123456789';
const home = tempHome();

function mountTmpfs(): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', home], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return (err as Error).message.split('\n')[0];
  }
}
const cannotMount = mountTmpfs();
if (cannotMount) console.warn(`diskFull.test.ts skipped: a tmpfs cannot be mounted here (${cannotMount}); these tests need root, as CI has`);

/** Fills the store's disk, leaving `leave` bytes free (0: nothing at all). */
async function fillDisk(leave: number): Promise<void> {
  const { bavail, bsize } = statfsSync(home);
  const size = Math.max(0, Number(bavail) * Number(bsize) - leave);
  await fs.appendFile(path.join(home, `filler-${Date.now()}`), Buffer.alloc(size)).catch(() => undefined);
  if (leave === 0) {
    // Whatever a block left over takes, a byte at a time.
    await fs.appendFile(path.join(home, 'filler-last'), Buffer.alloc(Number(bsize))).catch(() => undefined);
  }
}

/** Every file under the store whose name says it was left half done: temporary files and locks. */
async function leftovers(): Promise<string[]> {
  const names = (await fs.readdir(home, { recursive: true })) as string[];
  return names.filter((name) => /\.tmp$|\.lock$|\.break$|\.creating-/.test(name));
}

let site: FixtureServer;
let server: ServeProcess;
let release: (() => void) | undefined;
/** Called when /held is asked for. */
let heldAsked: () => void = () => undefined;

beforeAll(async () => {
  if (cannotMount) return;
  const bigText = `<p>${'a large page of words, '.repeat(30_000)}</p>`;
  site = await startFixtureServer({
    '/small': (_req, res) => sendHtml(res, html(`<article><h1>Small</h1>${articleText('small', 2)}</article>`, { title: 'Small' })),
    '/big': (_req, res) => sendHtml(res, html(`<article><h1>Big</h1>${bigText}</article>`, { title: 'Big' })),
    '/held': (_req, res: ServerResponse) => {
      heldAsked();
      release = () => sendHtml(res, html(`<article><h1>Held</h1>${articleText('held', 2)}</article>`, { title: 'Held' }));
    },
  });
  server = await serve();
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
  if (!cannotMount) execFileSync('umount', ['-l', home]);
});

function serve(): Promise<ServeProcess> {
  return startServe({ args: ['--allow-host', new URL(site.url).host, '--quiet'], env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale` } });
}

async function api(method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${pathname}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: await response.json() };
}

async function untilFinal(jobId: string): Promise<string> {
  for (;;) {
    const { body } = await api('GET', `/api/scrape/${jobId}/status`);
    if (['completed', 'failed', 'stopped'].includes(body.status)) return body.status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function scrape(url: string, formats = ['markdown']): Promise<string> {
  const started = await api('POST', '/api/scrape', { url, scrapeOptions: { formats } });
  expect(started.status).toBe(200);
  return started.body.jobId as string;
}

describe.skipIf(cannotMount)('a full disk', () => {
  const jobs: Record<string, string> = {};

  it('fails the job whose record does not fit, saying the disk is full; the server answers reads and keeps no temporary file', async () => {
    jobs.small = await scrape(site.at('/small'));
    expect(await untilFinal(jobs.small)).toBe('completed');
    await fillDisk(200 * 1024);
    jobs.big = await scrape(site.at('/big'), ['markdown', 'rawHtml']);
    expect(await untilFinal(jobs.big)).toBe('failed');
    const big = await api('GET', `/api/scrape/${jobs.big}`);
    expect(big.body.error).toMatch(/could not write .*job\.json: the disk is full/);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const small = await api('GET', `/api/scrape/${jobs.small}`);
    expect(small.body).toMatchObject({ status: 'completed', data: { metadata: { title: 'Small' } } });
    expect(await leftovers()).toEqual([]);
  });

  it('fails a job whose end cannot be written at all, and the server stays up', async () => {
    const asked = new Promise<void>((resolve) => (heldAsked = resolve));
    jobs.held = await scrape(site.at('/held'));
    await asked;
    await fillDisk(0);
    release!();
    expect(await untilFinal(jobs.held)).toBe('failed');
    const held = await api('GET', `/api/scrape/${jobs.held}`);
    expect(held.body.error).toMatch(/the disk is full/);
    // Still up: it answers, and a new job is refused with 507 saying why.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const refused = await api('POST', '/api/scrape', { url: site.at('/small') });
    expect(refused.status).toBe(507);
    expect(refused.body.message).toMatch(/the disk is full/);
    expect(server.child.exitCode).toBeNull();
    expect(await leftovers()).toEqual([]);
  });

  it('a restart on the full disk lists every job', async () => {
    await server.stop();
    server = await serve();
    const { status, body } = await api('GET', '/api/jobs');
    expect(status).toBe(200);
    const listed = Object.fromEntries((body as { jobId: string; status: string }[]).map((job) => [job.jobId, job.status]));
    expect(listed).toEqual({ [jobs.small!]: 'completed', [jobs.big!]: 'failed', [jobs.held!]: 'failed' });
  });

  it('the CLI says so in one line and exits 1', async () => {
    const result = await runCli(['scrape', site.at('/small')], { env: { WEBJOBS_HOME: home } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^webjobs: could not write .*: the disk is full; free some space \(webjobs prune deletes old jobs\)\n$/);
    // Through the server, too: its 507 says the same, and the CLI exits 1.
    const remote = await runCli(['scrape', site.at('/small'), '--remote', server.url, '--api-key', KEY]);
    expect(remote.code).toBe(1);
    expect(remote.stderr).toMatch(/^webjobs: could not write .*: the disk is full; free some space \(webjobs prune deletes old jobs\)\n$/);
    expect(await leftovers()).toEqual([]);
  });
});
