/**
 * Load bench of `webjobs serve` (npm run bench:serve): the real CLI's server, over HTTP.
 *
 * A fixture site of article pages on 127.0.0.1; then, in one run, two phases on fresh
 * servers that differ only in their WEBJOBS_HOME:
 *   peer   an empty store
 *   large  the same, plus nine completed 20 MB scrape records owned by one key (the
 *          "hoarder"), written with the store module before the server starts
 * Each phase runs the load bar: 10 keys start 50 jobs at once (4 scrapes and a batch
 * of 4 pages each) and poll their status as the remote client does (250 ms, then
 * backing off to 2 s), while a probe loop measures GET /healthz, the status of a
 * small job and GET /api/jobs of a key with that one job, and (large phase) the
 * status of a 20 MB job and its owner's listing. Figures are latencies seen by the
 * client: request sent to body read.
 *
 *   WEBJOBS_BENCH_KEYS=10       keys of the load bar
 *   WEBJOBS_BENCH_JOBS=5        jobs per key (the last of each key's jobs is a batch)
 *   WEBJOBS_BENCH_LARGE=9       large records of the large phase
 *   WEBJOBS_BENCH_LARGE_MB=20   size of each large record
 *   WEBJOBS_BENCH_MAX_JOBS=n    serve --max-jobs (default: serve's own)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { JobKind, JobStatus } from '../api/types.js';
import { DEFAULT_POLL_DELAYS_MS } from '../remote/remoteBackend.js';
import { parseKeyList } from '../server/keys.js';
import { JobOwners } from '../server/owners.js';
import { FileJobStore } from '../store/fileStore.js';
import { listenOnLoopback, type LoopbackServer } from './loopback.js';
import { descendants } from './procTree.js';
import { articlePage, words } from './site.js';

const BIN = fileURLToPath(new URL('../../bin/webjobs.js', import.meta.url));
const KEY_COUNT = Number(process.env.WEBJOBS_BENCH_KEYS) || 10;
const JOBS_PER_KEY = Number(process.env.WEBJOBS_BENCH_JOBS) || 5;
const LARGE_COUNT = Number(process.env.WEBJOBS_BENCH_LARGE) || 9;
const LARGE_MB = Number(process.env.WEBJOBS_BENCH_LARGE_MB) || 20;
const BATCH_PAGES = 4;
/** Pause between the probe's rounds: it samples the server, it is not part of the load. */
const PROBE_PAUSE_MS = 50;
const STOP_GRACE_MS = 30_000;

// ---------------------------------------------------------------- things to end, on error too

const cleanups: (() => Promise<void>)[] = [];

async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!().catch((err: Error) => console.error(`cleanup: ${err.message}`));
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---------------------------------------------------------------- the fixture site

async function startSite(): Promise<LoopbackServer> {
  const server = http.createServer((req, res) => {
    const match = /^\/article\/(\d+)$/.exec(req.url ?? '');
    if (!match) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const body = articlePage(Number(match[1]));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  const site = await listenOnLoopback(server);
  cleanups.push(() => site.close());
  return site;
}

// ---------------------------------------------------------------- large records

/** The id serve files a key's jobs under (owners.jsonl), as its key ring computes it. */
function keyId(key: string): string {
  return parseKeyList(`${key}:scale`).find(key)!.id;
}

/**
 * Completed scrape jobs whose job.json (markdown + html) is `mb` MB, owned by `key`.
 * Written with the store module: through the API, Chromium would have to render
 * 10 MB pages, minutes of the bench's time. The server reads them as its own.
 */
async function seedLargeRecords(home: string, key: string, count: number, mb: number, siteBase: string): Promise<string[]> {
  const store = new FileJobStore(home);
  const owners = await JobOwners.open(home);
  const chunk = `${words(7, 10_000)}\n\n`;
  const half = chunk.repeat(Math.ceil((mb * 1024 * 1024) / 2 / chunk.length));
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const url = `${siteBase}/article/${900 + i}`;
    const { meta } = await store.create('scrape', { url, scrapeOptions: { formats: ['markdown', 'html'] } }, { jobId: '', status: 'pending' });
    await store.update(meta.jobId, (record) => {
      record.status = 'completed';
      record.data = { metadata: { title: `Large ${i}`, sourceURL: url }, markdown: half, html: `<p>${half}</p>` };
    });
    await owners.add(meta.jobId, keyId(key));
    ids.push(meta.jobId);
  }
  return ids;
}

// ---------------------------------------------------------------- webjobs serve

interface Serve {
  base: string;
  stop(): Promise<void>;
}

/** Ends `child` with SIGTERM (serve's own shutdown); past the grace, kills it and whatever it started. */
async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([exited.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_GRACE_MS)))]);
  clearTimeout(timer);
  if (!late) return;
  console.error(`webjobs serve did not stop in ${STOP_GRACE_MS / 1000} s of SIGTERM; killing it and its browser`);
  for (const pid of [child.pid!, ...descendants(child.pid!)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await exited;
}

async function startServe(home: string, apiKeys: string[], allowHost: string): Promise<Serve> {
  const args = [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--quiet', '--allow-host', allowHost];
  if (process.env.WEBJOBS_BENCH_MAX_JOBS) args.push('--max-jobs', process.env.WEBJOBS_BENCH_MAX_JOBS);
  const child = spawn(process.execPath, args, {
    env: { ...process.env, NO_COLOR: '1', WEBJOBS_HOME: home, WEBJOBS_API_KEYS: apiKeys.map((k) => `${k}:scale`).join(',') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const stop = () => stopChild(child, exited);
  cleanups.push(stop);
  let stderr = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`webjobs serve exited with ${code} before listening:\n${stderr}`)));
  });
  return { base, stop };
}

// ---------------------------------------------------------------- HTTP, timed

class Samples {
  readonly ms: number[] = [];
  add(ms: number): void {
    this.ms.push(ms);
  }
  /** Nearest-rank percentile. */
  percentile(p: number): number {
    const sorted = [...this.ms].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
  }
  get max(): number {
    return Math.max(...this.ms);
  }
}

/** One request; its latency goes to `samples` when given. Anything but 2xx throws. */
async function call<T>(base: string, key: string | undefined, method: string, route: string, body?: unknown, samples?: Samples): Promise<T> {
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  const res = await fetch(base + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  samples?.add(performance.now() - started);
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

const ROUTE: Record<'scrape' | 'batch', string> = { scrape: '/api/scrape', batch: '/api/scrape/batch' };
const finished = (status: JobStatus | 'stopped') => status !== 'pending' && status !== 'running';

/** Starts a job and polls its status as the remote client does until it ends. */
async function runJob(base: string, key: string, kind: Extract<JobKind, 'scrape' | 'batch'>, urls: string[], statusSamples?: Samples): Promise<JobStatus> {
  const request = kind === 'scrape' ? { url: urls[0] } : { urls };
  const { jobId } = await call<{ jobId: string }>(base, key, 'POST', ROUTE[kind], { ...request, scrapeOptions: { formats: ['markdown'] } });
  for (let poll = 0; ; poll++) {
    await sleep(DEFAULT_POLL_DELAYS_MS[Math.min(poll, DEFAULT_POLL_DELAYS_MS.length - 1)]!);
    const { status } = await call<{ status: JobStatus }>(base, key, 'GET', `${ROUTE[kind]}/${jobId}/status`, undefined, statusSamples);
    if (finished(status)) return status;
  }
}

// ---------------------------------------------------------------- one phase

type Metric = 'status (load bar polls)' | 'healthz' | 'status, small job' | 'listing, 1 small job' | 'status, 20 MB job' | 'listing, owner of 20 MB jobs';

interface PhaseResult {
  samples: Map<Metric, Samples>;
  jobs: Map<string, number>;
  elapsedMs: number;
}

async function runPhase(site: string, home: string, large: string[], keys: { load: string[]; probe: string; hoarder: string }): Promise<PhaseResult> {
  const serve = await startServe(home, [...keys.load, keys.probe, keys.hoarder], new URL(site).host);
  const samples = new Map<Metric, Samples>();
  const sample = (metric: Metric) => samples.get(metric) ?? samples.set(metric, new Samples()).get(metric)!;
  try {
    const base = serve.base;
    const smallStatus = await runJob(base, keys.probe, 'scrape', [`${site}/article/999`]);
    const [small] = await call<{ jobId: string }[]>(base, keys.probe, 'GET', '/api/jobs');
    if (smallStatus !== 'completed' || !small) throw new Error(`the probe's small job: ${smallStatus}`);

    const started = performance.now();
    let loadDone = false;
    const load = Promise.all(
      keys.load.flatMap((key, k) =>
        Array.from({ length: JOBS_PER_KEY }, (_, j) => {
          const n = (k * JOBS_PER_KEY + j) * BATCH_PAGES;
          return j === JOBS_PER_KEY - 1
            ? runJob(base, key, 'batch', Array.from({ length: BATCH_PAGES }, (_, p) => `${site}/article/${n + p}`), sample('status (load bar polls)'))
            : runJob(base, key, 'scrape', [`${site}/article/${n}`], sample('status (load bar polls)'));
        }),
      ),
    ).finally(() => (loadDone = true));
    const probe = (async () => {
      while (!loadDone) {
        await call(base, undefined, 'GET', '/healthz', undefined, sample('healthz'));
        await call(base, keys.probe, 'GET', `/api/scrape/${small.jobId}/status`, undefined, sample('status, small job'));
        await call(base, keys.probe, 'GET', '/api/jobs', undefined, sample('listing, 1 small job'));
        if (large.length > 0) {
          await call(base, keys.hoarder, 'GET', `/api/scrape/${large[0]}/status`, undefined, sample('status, 20 MB job'));
          await call(base, keys.hoarder, 'GET', '/api/jobs', undefined, sample('listing, owner of 20 MB jobs'));
        }
        await sleep(PROBE_PAUSE_MS);
      }
    })();
    const [statuses] = await Promise.all([load, probe]);
    const jobs = new Map<string, number>();
    for (const status of statuses) jobs.set(status, (jobs.get(status) ?? 0) + 1);
    return { samples, jobs, elapsedMs: performance.now() - started };
  } finally {
    await serve.stop();
  }
}

// ---------------------------------------------------------------- report

const fmt = (ms: number) => (Number.isNaN(ms) ? '—' : ms.toFixed(1)).padStart(7);

function printPhase(label: string, result: PhaseResult): void {
  const jobs = [...result.jobs].map(([status, n]) => `${n} ${status}`).join(', ');
  console.log(`\n${label}: ${KEY_COUNT * JOBS_PER_KEY} jobs from ${KEY_COUNT} keys in ${(result.elapsedMs / 1000).toFixed(1)} s (${jobs})`);
  console.log(`  ${'ms'.padEnd(30)} ${'p50'.padStart(7)} ${'p99'.padStart(7)} ${'max'.padStart(7)}  requests`);
  for (const [metric, s] of result.samples) {
    console.log(`  ${metric.padEnd(30)} ${fmt(s.percentile(50))} ${fmt(s.percentile(99))} ${fmt(s.max)}  ${s.ms.length}`);
  }
}

function printRatios(peer: PhaseResult, large: PhaseResult): void {
  console.log('\nlarge / peer (same metric, same run):');
  for (const [metric, s] of peer.samples) {
    const other = large.samples.get(metric);
    if (!other) continue;
    const p50 = other.percentile(50) / s.percentile(50);
    const p99 = other.percentile(99) / s.percentile(99);
    console.log(`  ${metric.padEnd(30)} p50 ${p50.toFixed(2)}x  p99 ${p99.toFixed(2)}x`);
  }
  const statusP99 = large.samples.get('status (load bar polls)')!.percentile(99);
  const healthP99 = large.samples.get('healthz')!.percentile(99);
  console.log(`status p99 under the load bar with large records: ${statusP99.toFixed(1)} ms (goal < 50 ms); healthz p99 ${healthP99.toFixed(1)} ms (goal < 50 ms)`);
}

async function main(): Promise<void> {
  const site = await startSite();
  const keys = {
    load: Array.from({ length: KEY_COUNT }, (_, i) => `bench-load-${i}`),
    probe: 'bench-probe',
    hoarder: 'bench-hoarder',
  };
  console.log(`Site at ${site.base}; ${os.availableParallelism()} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}`);
  const peer = await runPhase(site.base, tempDir('webjobs-bench-peer-'), [], keys);
  printPhase('peer (no large records)', peer);

  const home = tempDir('webjobs-bench-large-');
  const seeding = performance.now();
  const large = await seedLargeRecords(home, keys.hoarder, LARGE_COUNT, LARGE_MB, site.base);
  console.log(`\nseeded ${LARGE_COUNT} completed scrape records of ${LARGE_MB} MB (job.json) for one key in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  const withLarge = await runPhase(site.base, home, large, keys);
  printPhase(`large (${LARGE_COUNT} x ${LARGE_MB} MB records present)`, withLarge);
  printRatios(peer, withLarge);
}

try {
  await main();
} finally {
  await cleanUp();
}
