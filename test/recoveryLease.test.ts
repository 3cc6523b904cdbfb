/**
 * A serve killed with kill -9 leaves its jobs to the next serve on the same
 * WEBJOBS_HOME by its lease, not by its process id: though the old owner's pid
 * still answers (a zombie, a reused pid: here the test runner's own), a lease
 * run out frees its jobs: the pending one is resumed and completes, the running
 * one is failed as interrupted. A lease still running is waited out. Real serve,
 * a fixture site on 127.0.0.1 holding a page open until the test releases it.
 */
import { promises as fs } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const KEY = 'lease-key-0123456789';
const SLOW = 180_000;

let site: FixtureServer;
let serve: ServeProcess | undefined;
const api = serveClient(() => serve!.url, KEY);
const held: http.ServerResponse[] = [];
const heldWaiters: (() => void)[] = [];

function untilHeld(count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (held.length >= count ? resolve() : heldWaiters.push(check));
    check();
  });
}

beforeAll(async () => {
  site = await startFixtureServer({
    '/held': (_req, res) => {
      held.push(res);
      heldWaiters.splice(0).forEach((wake) => wake());
    },
    '/quick': (_req, res) => sendHtml(res, html(`<article><h1>Quick</h1>${articleText('quick')}</article>`, { title: 'Quick' })),
  });
});

afterAll(async () => {
  for (const res of held.splice(0)) res.destroy();
  await serve?.stop();
  await site?.close();
});

/** Rewrites a job's owner, and its lease, as a live process (this test runner) whose lease runs out at `expiresAt`. */
async function ownedByLiveProcess(home: string, jobId: string, expiresAt: number): Promise<void> {
  const dir = path.join(home, 'jobs', jobId);
  for (const name of ['meta.json', 'status.json']) {
    const file = path.join(dir, name);
    const value = JSON.parse(await fs.readFile(file, 'utf8'));
    value.owner.pid = process.pid;
    await fs.writeFile(file, JSON.stringify(value));
  }
  const { lease } = JSON.parse(await fs.readFile(path.join(dir, 'meta.json'), 'utf8')).owner as { lease?: string };
  if (lease === undefined) return; // a record of a server without leases: its process id alone
  const leaseFile = path.join(home, 'leases', `${lease}.json`);
  const record = JSON.parse(await fs.readFile(leaseFile, 'utf8'));
  await fs.writeFile(leaseFile, JSON.stringify({ ...record, pid: process.pid, expiresAt }));
}

async function crashWithJobs(home: string): Promise<{ running: string; pending: string }> {
  serve = await startServe({ args: ['--allow-private', '--quiet', '--max-jobs', '1'], env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale` } });
  const before = held.length;
  const running = await api.start('scrape', { url: site.at('/held'), scrapeOptions: { engine: 'http', timeout: 120_000 } });
  await untilHeld(before + 1);
  const pending = await api.start('scrape', { url: site.at('/quick'), scrapeOptions: { engine: 'http' } });
  expect((await api.call('GET', `${pending}/status`)).body.status).toBe('pending');
  await serve.crash();
  serve = undefined;
  return { running, pending };
}

const idOf = (jobPath: string) => jobPath.split('/').pop()!;

describe('recovery by lease', () => {
  it('takes over the jobs of a lease run out though its process id still answers', async () => {
    const home = tempHome();
    const { running, pending } = await crashWithJobs(home);
    for (const job of [running, pending]) await ownedByLiveProcess(home, idOf(job), Date.now() - 1_000);
    serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale` } });
    expect(await api.waitFinal(pending)).toBe('completed');
    const interrupted = await api.call('GET', running);
    expect(interrupted.body.status).toBe('failed');
    expect(interrupted.body.error).toMatch(/^interrupted/);
    await serve.stop();
    serve = undefined;
  }, SLOW);

  it('waits out a lease still running, then takes its jobs over', async () => {
    const home = tempHome();
    const { running, pending } = await crashWithJobs(home);
    const expiresAt = Date.now() + 3_000;
    for (const job of [running, pending]) await ownedByLiveProcess(home, idOf(job), expiresAt);
    serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale`, WEBJOBS_LEASE_SECONDS: '2' } });
    expect(await api.waitFinal(pending)).toBe('completed');
    // Not before the lease ran out.
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect((await api.call('GET', running)).body.error).toMatch(/^interrupted/);
    await serve.stop();
    serve = undefined;
  }, SLOW);
});
