/**
 * What the serve benches share (serveLoad.ts and serveHostile.ts): things to end on error too, latency samples,
 * a `webjobs serve` child with its request log and event-loop delay, timed HTTP calls, a job started and polled
 * to its end, a /healthz probe, and the rows of the report.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFinal, type JobKind, type JobStatus } from '../src/api/types.js';
import { DEFAULT_POLL_DELAYS_MS } from '../src/remote/remoteBackend.js';
import { BIN } from './paths.js';
import { descendants } from './procTree.js';

/** How long serve has to stop on SIGTERM before it and its browser are killed. */
const STOP_GRACE_MS = 30_000;
/** Pause between the probe's rounds: it samples the server, it is not part of the load. */
export const PROBE_PAUSE_MS = 50;
/** Probe rounds before the load starts: the figures of the same server with nothing to do. */
export const IDLE_ROUNDS = 100;
/** A /healthz probe with no answer in this time counts as failed. */
const HEALTH_TIMEOUT_MS = 10_000;

// ---------------------------------------------------------------- things to end, on error too

export const cleanups: (() => Promise<void>)[] = [];

export async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!().catch((err: Error) => console.error(`cleanup: ${err.message}`));
}

// Interrupted, the bench still stops serve (and its browser) and removes its homes; exit code 128 + signal number.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(code)));
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---------------------------------------------------------------- latencies

export class Samples {
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

export function samplesOf<K>(map: Map<K, Samples>, key: K): Samples {
  return map.get(key) ?? map.set(key, new Samples()).get(key)!;
}

// ---------------------------------------------------------------- webjobs serve

export interface Serve {
  base: string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Handler time of each request as serve's request log gives it (ms, rounded), by route; clear() to start afresh. */
  handled: Map<Route, Samples>;
  pid: number;
  /** The event loop's delay since the last call (or since start), ms, from the preloaded loopDelay.ts. */
  loopDelay(): Promise<LoopDelay>;
  stop(): Promise<void>;
}

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  samples: number;
}

/** The preload that measures serve's event-loop delay (bench/loopDelay.ts, built beside this file). */
const LOOP_DELAY_PRELOAD = new URL('./loopDelay.js', import.meta.url).href;
/** More node flags for serve, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (split on spaces). */
const SERVE_NODE_ARGS = (process.env.WEBJOBS_BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** `loop-delay p50=1.2 p99=8.4 max=20.1 samples=512` */
export function loopDelayLine(line: string): LoopDelay | undefined {
  const match = /^loop-delay p50=([\d.]+) p99=([\d.]+) max=([\d.]+) samples=(\d+)$/.exec(line);
  return match ? { p50: Number(match[1]), p99: Number(match[2]), max: Number(match[3]), samples: Number(match[4]) } : undefined;
}

export type Route = 'status' | 'healthz' | 'listing';

/** `<time> GET /api/scrape/<id>/status 200 3ms key=…` from serve's request log: the route measured (if any) and the handler's time. */
export function loggedRequest(line: string): { route?: Route; ms: number } | undefined {
  const match = /^(?:\S+Z )?([A-Z]+) (\S+) \d{3} (\d+)ms/.exec(line);
  if (!match) return undefined;
  const [, method, url] = match;
  const route: Route | undefined =
    method !== 'GET' ? undefined : url!.endsWith('/status') ? 'status' : url === '/healthz' ? 'healthz' : url === '/api/jobs' ? 'listing' : undefined;
  return { route, ms: Number(match[3]) };
}

/** Ends `child` with SIGTERM (serve's own shutdown); past the grace, kills it and whatever it started. */
export async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
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

/** `extraArgs` after the bench's own (a later --max-jobs wins). */
export async function startServe(home: string, apiKeys: string[], allowHosts: string[], extraArgs: string[] = []): Promise<Serve> {
  // Not --quiet: the request log (serve's default) gives each request's handler time.
  const args = ['--import', LOOP_DELAY_PRELOAD, ...SERVE_NODE_ARGS, BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--allow-host', allowHosts.join(',')];
  if (process.env.WEBJOBS_BENCH_MAX_JOBS) args.push('--max-jobs', process.env.WEBJOBS_BENCH_MAX_JOBS);
  args.push(...extraArgs);
  const child = spawn(process.execPath, args, {
    env: { ...process.env, NO_COLOR: '1', WEBJOBS_HOME: home, WEBJOBS_API_KEYS: apiKeys.map((k) => `${k}:scale`).join(',') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const stop = () => stopChild(child, exited);
  cleanups.push(stop);
  let stderr = '';
  const handled = new Map<Route, Samples>();
  const delays: ((delay: LoopDelay) => void)[] = [];
  const base = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const lines = stderr.split('\n');
      stderr = lines.pop()!;
      for (const line of lines) {
        const listening = /listening on (http:\/\/\S+)/.exec(line);
        if (listening) resolve(listening[1]!);
        const delay = loopDelayLine(line);
        if (delay) {
          delays.shift()?.(delay);
          continue;
        }
        const logged = loggedRequest(line);
        if (logged?.route) samplesOf(handled, logged.route).add(logged.ms);
        else if (!logged && !listening && !/serve: (shutting down|stopped)$/.test(line)) process.stderr.write(`serve: ${line}\n`);
      }
    });
    void exited.then((code) => reject(new Error(`webjobs serve exited with ${code} before listening:\n${stderr}`)));
  });
  const loopDelay = () =>
    new Promise<LoopDelay>((resolve) => {
      delays.push(resolve);
      child.kill('SIGUSR2');
    });
  return { base, pid: child.pid!, alive: () => child.exitCode === null && child.signalCode === null, handled, loopDelay, stop };
}

// ---------------------------------------------------------------- HTTP, timed

/** One request: its latency (sent to body read) and body. Anything but 2xx throws. */
export async function timed(base: string, key: string | undefined, method: string, route: string, body?: unknown): Promise<{ ms: number; text: string }> {
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  const res = await fetch(base + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 200)}`);
  return { ms, text };
}

/** One request, parsed; its latency goes to `samples` when given. */
export async function call<T>(base: string, key: string | undefined, method: string, route: string, body?: unknown, samples?: Samples): Promise<T> {
  const { ms, text } = await timed(base, key, method, route, body);
  samples?.add(ms);
  return JSON.parse(text) as T;
}

const ROUTE: Record<Extract<JobKind, 'scrape' | 'batch' | 'crawl'>, string> = { scrape: '/api/scrape', batch: '/api/scrape/batch', crawl: '/api/crawl' };

/** Starts a job with `request` and polls its status as the remote client does until it ends. */
export async function startAndPoll(
  base: string,
  key: string,
  kind: keyof typeof ROUTE,
  request: object,
  statusSamples?: Samples,
  pollDelays: readonly number[] = DEFAULT_POLL_DELAYS_MS,
): Promise<{ jobId: string; status: JobStatus }> {
  const { jobId } = await call<{ jobId: string }>(base, key, 'POST', ROUTE[kind], request);
  for (let poll = 0; ; poll++) {
    await sleep(pollDelays[Math.min(poll, pollDelays.length - 1)]!);
    const { status } = await call<{ status: JobStatus }>(base, key, 'GET', `${ROUTE[kind]}/${jobId}/status`, undefined, statusSamples);
    if (isFinal(status)) return { jobId, status };
  }
}


/** One GET /healthz with a deadline: a frozen server shows as a failure, not a bench that hangs. */
export async function probeHealth(base: string, samples: Samples, failures: string[]): Promise<void> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    await res.text();
    if (!res.ok) failures.push(`HTTP ${res.status}`);
  } catch (err) {
    failures.push((err as Error).message);
  }
  samples.add(performance.now() - started);
}

// ---------------------------------------------------------------- report rows

export const fmt = (ms: number) => (Number.isNaN(ms) ? '—' : ms.toFixed(1)).padStart(7);
export const row = (label: string, s: Samples) => `  ${label.padEnd(30)} ${fmt(s.percentile(50))} ${fmt(s.percentile(99))} ${fmt(s.max)} ${String(s.ms.length).padStart(9)}`;
export const header = (label: string) => `  ${label.padEnd(30)} ${'p50'.padStart(7)} ${'p99'.padStart(7)} ${'max'.padStart(7)}  requests`;
