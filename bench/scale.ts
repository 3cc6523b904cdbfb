/**
 * Scale bench (npm run bench:scale): the same 500-page batch on `webjobs serve`
 * with the file store, then on PostgreSQL (`serve --database --no-worker` and 1, 2
 * and 3 `webjobs worker` processes), all real CLI processes on this machine.
 *
 * Printed per setup: wall time and pages/s of the batch, the status endpoint's
 * p50/p99 latency polled (every 50 ms) while the batch runs, and pages lost (the
 * entries not completed or failed when the job says completed: must be 0). Then the
 * queue's own cost per page: an in-process PgWorker whose engine returns a fixed
 * page at once (no browser), so what remains is fetching the queue job, the
 * attempt-fenced page writes and the completion; set beside the file store's time
 * per page and tab. Timed with one slot (what a page waits on the queue) and with
 * as many slots as tabs (each slot's share of the wall time, contention included).
 *
 *   WEBJOBS_BENCH_PAGES=500       pages of the batch
 *   WEBJOBS_BENCH_TABS=4          tabs per worker (and the file store's batch concurrency)
 *   WEBJOBS_BENCH_WORKERS=1,2,3   worker counts on PostgreSQL
 *   WEBJOBS_TEST_DATABASE_URL     use this PostgreSQL instead of starting one
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PageData } from '../src/api/types.js';
import type { Engine } from '../src/engine/engine.js';
import { asPlain } from '../src/engine/crawl/fetchText.js';
import { PgBackend } from '../src/pg/backend.js';
import { connect, pgSettings } from '../src/pg/connect.js';
import { PgWorker } from '../src/pg/worker.js';
import { listenOnLoopback } from './loopback.js';
import { startPostgres } from './postgres.js';
import { descendants } from './procTree.js';
import { articlePage } from './site.js';

import { BIN } from './paths.js';
const PAGES = Number(process.env.WEBJOBS_BENCH_PAGES) || 500;
const TABS = Number(process.env.WEBJOBS_BENCH_TABS) || 4;
const WORKER_COUNTS = (process.env.WEBJOBS_BENCH_WORKERS ?? '1,2,3').split(',').map(Number);
const KEY = 'bench-scale-key-0123456789';
/** Enough pages that the start (connections, LISTEN) and the last poll's delay are a small share of each. */
const QUEUE_ONLY_PAGES = 1000;
/** How often the queue-only run looks whether its job completed: its delay is part of what is timed. */
const QUEUE_ONLY_POLL_MS = 5;

const cleanups: (() => Promise<void>)[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!().catch((err: Error) => console.error(`cleanup: ${err.message}`));
}
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(code)));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

interface Child {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the CLI; resolves with what matched `ready` on its stderr. */
function startCli(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Child & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const below = descendants(child.pid!);
    child.kill('SIGTERM');
    const late = await Promise.race([exited.then(() => false), sleep(30_000).then(() => true)]);
    if (late) for (const pid of [child.pid!, ...below]) process.kill(pid, 'SIGKILL');
    await exited;
  };
  cleanups.push(stop);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const match = ready.exec(stderr);
      if (match) resolve({ child, stop, match });
    });
    void exited.then(() => reject(new Error(`webjobs ${args[0]} exited before it was ready:\n${stderr}`)));
  });
}

async function api(base: string, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(base + route, {
    method,
    headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${(await res.text()).slice(0, 200)}`);
  return res.json();
}

interface Measured {
  seconds: number;
  statusMs: number[];
  lost: number;
}

/**
 * Runs one batch, polling its status every 50 ms (timed) until it ends; then counts its entries. `tabs`: the
 * batch's concurrency, which is also the requests its one host may get at once, across all workers.
 */
async function runBatch(base: string, urls: string[], tabs: number): Promise<Measured> {
  const started = performance.now();
  const { jobId } = await api(base, 'POST', '/api/scrape/batch', { urls, concurrency: tabs });
  const statusMs: number[] = [];
  for (;;) {
    const t = performance.now();
    const { status } = await api(base, 'GET', `/api/scrape/batch/${jobId}/status`);
    statusMs.push(performance.now() - t);
    if (status === 'completed' || status === 'failed' || status === 'stopped') break;
    await sleep(50);
  }
  const seconds = (performance.now() - started) / 1000;
  let ended = 0;
  for (let page = 1; ; page++) {
    const record = await api(base, 'GET', `/api/scrape/batch/${jobId}?page=${page}&batchSize=100`);
    ended += record.data.filter((e: { status: string }) => e.status === 'completed' || e.status === 'failed').length;
    if (page >= record.totalPageBatches) break;
  }
  return { seconds, statusMs, lost: urls.length - ended };
}

function print(label: string, m: Measured): void {
  console.log(
    `${label.padEnd(26)} ${m.seconds.toFixed(1).padStart(7)} s  ${(PAGES / m.seconds).toFixed(2).padStart(6)} pages/s  ` +
      `status p50 ${percentile(m.statusMs, 50).toFixed(1)} ms  p99 ${percentile(m.statusMs, 99).toFixed(1)} ms  (${m.statusMs.length} polls)  lost ${m.lost}`,
  );
}

/** A warm-up batch first (browser launch, first tabs), then the measured one; `workers` of TABS tabs each may all load it. */
async function measureOn(base: string, site: string, workers = 1): Promise<Measured> {
  await runBatch(base, Array.from({ length: TABS * 2 * workers }, (_, i) => `${site}/article/${100_000 + i}`), TABS * workers);
  return runBatch(base, Array.from({ length: PAGES }, (_, i) => `${site}/article/${i}`), TABS * workers);
}

/** An engine that returns one fixed page at once: what is left to time is the queue and the store. */
const QUEUE_ONLY_PAGE: PageData = { markdown: '# Page', metadata: { title: 'Page', description: '', url: '', sourceURL: '' } };
const queueOnlyEngine: Engine = {
  preflight: () => undefined,
  scrape: async () => structuredClone(QUEUE_ONLY_PAGE),
  fetch: async () => asPlain(new Response('')),
  close: async () => undefined,
};

/**
 * Milliseconds of queue and store work per page and slot, no page work: with one
 * slot, what a page waits on the queue; with several, each slot's share of the
 * wall time, which on this machine also counts the slots' contention for its cores.
 */
async function queueCostPerPage(database: string, slots: number): Promise<number> {
  const connection = await connect(pgSettings(database));
  cleanups.push(() => connection.close());
  const backend = new PgBackend(connection);
  const worker = new PgWorker({ connection, env: process.env, concurrency: slots, createEngine: async () => queueOnlyEngine });
  const urls = Array.from({ length: QUEUE_ONLY_PAGES }, (_, i) => `http://127.0.0.1:9/q/${i}`);
  const { jobId } = await backend.start('batch', { urls });
  const started = performance.now();
  await worker.start();
  // Not backend.wait: it looks every 250 ms, which added up to 0.8 ms to each of 300 pages.
  while ((await backend.status(jobId)).status !== 'completed') await sleep(QUEUE_ONLY_POLL_MS);
  const ms = ((performance.now() - started) * slots) / QUEUE_ONLY_PAGES;
  await worker.close();
  return ms;
}

async function main(): Promise<void> {
  const site = await listenOnLoopback(
    http.createServer((req, res) => {
      const match = /^\/article\/(\d+)$/.exec(req.url ?? '');
      if (!match) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(articlePage(Number(match[1])));
    }),
  );
  cleanups.push(() => site.close());
  const allowHost = new URL(site.base).host;
  console.log(`bench:scale — ${PAGES}-page batch, ${TABS} tabs per worker, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at start`);

  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-scale-'));
  cleanups.push(async () => rmSync(home, { recursive: true, force: true }));
  const env = { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale` };
  const serveArgs = ['serve', '--host', '127.0.0.1', '--port', '0', '--allow-host', allowHost, '--quiet'];
  const listening = /listening on (http:\/\/\S+)/;

  const fileServe = await startCli([...serveArgs, '--max-jobs', '1'], env, listening);
  const file = await measureOn(fileServe.match[1]!, site.base);
  await fileServe.stop();
  print('file store, serve', file);

  const pg = await startPostgres();
  cleanups.push(() => pg.stop());
  for (const count of WORKER_COUNTS) {
    const node = await startCli([...serveArgs, '--database', pg.url, '--no-worker'], env, listening);
    const workers = await Promise.all(
      Array.from({ length: count }, () =>
        startCli(['worker', '--database', pg.url, '--concurrency', String(TABS), '--allow-host', allowHost, '--quiet'], {}, /webjobs worker ready/),
      ),
    );
    const measured = await measureOn(node.match[1]!, site.base, count);
    await Promise.all([node.stop(), ...workers.map((w) => w.stop())]);
    print(`PostgreSQL, ${count} worker${count > 1 ? 's' : ''}`, measured);
  }

  const pageMs = (file.seconds * 1000 * Math.min(TABS, PAGES)) / PAGES;
  for (const slots of [1, TABS]) {
    const queueMs = await queueCostPerPage(pg.url, slots);
    console.log(
      `queue cost per page (${slots} slot${slots > 1 ? 's' : ''}, no page work): ${queueMs.toFixed(2)} ms a slot; a page on the file store takes ${pageMs.toFixed(0)} ms of a tab: ` +
        `queue overhead ${((queueMs / pageMs) * 100).toFixed(1)}% of the page time`,
    );
  }
  console.log(`load average at end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; the machine is shared, so these figures are noisy`);
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => cleanUp());
