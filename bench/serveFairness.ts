/**
 * Fairness bench of `webjobs serve` (npm run bench:serve-fairness; issue 54, finding 1): one key's heavy batch
 * beside another key's small scrapes. The real CLI's server over HTTP, a site on 127.0.0.1.
 *
 *   alone   key B scrapes one heavy page with nothing else running, a few times: one extraction's time (its
 *           median), the unit the small scrapes' wait is reported in
 *   small   key B scrapes one small page alone: its latency with nothing in the way
 *   fair    key A starts a batch of heavy pages; once it runs, key B scrapes small pages one after another.
 *           Printed: each small scrape's latency (submit to completed, polling its status) less the small
 *           page's own, in ms and in extractions' time. Goal: under 2 (a page of B waits behind about one
 *           extraction of A's, never A's batch)
 *
 *   WEBJOBS_BENCH_ENGINE=http        scrapeOptions.engine (http: the extraction workers; browser: Chromium's tabs)
 *   WEBJOBS_BENCH_HEAVY_PAGES=12     pages of key A's batch
 *   WEBJOBS_BENCH_HEAVY_PARAGRAPHS=10000  paragraphs of a heavy page (10,000: about 0.45 MB)
 *   WEBJOBS_BENCH_SMALL=6            key B's small scrapes during the batch
 *   WEBJOBS_BENCH_MAX_JOBS=n         serve --max-jobs (default: serve's own)
 *   WEBJOBS_BENCH_BIN=path           the webjobs to serve with (default: this build's bin/webjobs.js), to set
 *                                    another build against this one
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFinal, type JobStatus } from '../src/api/types.js';
import { listenOnLoopback, type LoopbackServer } from './loopback.js';
import { BIN } from './paths.js';
import { articlePage, words } from './site.js';

const ENGINE = process.env.WEBJOBS_BENCH_ENGINE ?? 'http';
const HEAVY_PAGES = Number(process.env.WEBJOBS_BENCH_HEAVY_PAGES) || 12;
const HEAVY_PARAGRAPHS = Number(process.env.WEBJOBS_BENCH_HEAVY_PARAGRAPHS) || 10_000;
const SMALL = Number(process.env.WEBJOBS_BENCH_SMALL) || 6;
/** How often a job's status is asked: well under one extraction's time, so that it hardly adds to a latency. */
const POLL_MS = 20;
const KEYS = { a: 'fairness-key-a-0123456789', b: 'fairness-key-b-0123456789' };

function heavyPage(n: number): string {
  const paragraphs = Array.from({ length: HEAVY_PARAGRAPHS }, (_, i) => `<p>${words(n * 7919 + i, 6)}.</p>`).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Heavy ${n}</title></head><body><main><article><h1>Heavy ${n}</h1>${paragraphs}</article></main></body></html>`;
}

async function startSite(): Promise<LoopbackServer> {
  const heavy = new Map<number, string>();
  const server = http.createServer((req, res) => {
    const [, kind, n] = /^\/(heavy|small)\/(\d+)$/.exec(req.url ?? '') ?? [];
    if (!kind) {
      res.writeHead(404).end();
      return;
    }
    const page = kind === 'heavy' ? (heavy.get(Number(n)) ?? heavy.set(Number(n), heavyPage(Number(n))).get(Number(n))!) : articlePage(Number(n));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  return listenOnLoopback(server);
}

interface Serve {
  base: string;
  stop(): Promise<void>;
}

async function startServe(home: string, allowHost: string): Promise<Serve> {
  const args = [process.env.WEBJOBS_BENCH_BIN ?? BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--allow-host', allowHost, '--quiet'];
  if (process.env.WEBJOBS_BENCH_MAX_JOBS) args.push('--max-jobs', process.env.WEBJOBS_BENCH_MAX_JOBS);
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, NO_COLOR: '1', WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEYS.a}:scale,${KEYS.b}:scale` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let stderr = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const listening = /listening on (http:\/\/\S+)/.exec(stderr);
      if (listening) resolve(listening[1]!);
    });
    void exited.then(() => reject(new Error(`webjobs serve exited before listening:\n${stderr}`)));
  });
  return {
    base,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function call<T>(base: string, key: string, method: string, route: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'x-api-key': key };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

/** Starts a job and polls its status until `until` holds; the ms from the start request to then. */
async function run(base: string, key: string, route: string, body: unknown, until: (status: JobStatus) => boolean = isFinal): Promise<{ ms: number; path: string }> {
  const started = performance.now();
  const { jobId } = await call<{ jobId: string }>(base, key, 'POST', route, body);
  const path = `${route}/${jobId}`;
  for (;;) {
    const { status } = await call<{ status: JobStatus }>(base, key, 'GET', `${path}/status`);
    if (until(status)) return { ms: performance.now() - started, path };
    await sleep(POLL_MS);
  }
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
const fixed = (n: number) => n.toFixed(2);

async function main(): Promise<void> {
  const site = await startSite();
  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-fairness-'));
  const serve = await startServe(home, new URL(site.base).host);
  const options = { formats: ['markdown'], engine: ENGINE };
  try {
    console.log(`serve fairness (${process.env.WEBJOBS_BENCH_BIN ?? 'this build'}): engine ${ENGINE}, key A's batch of ${HEAVY_PAGES} heavy pages (${HEAVY_PARAGRAPHS} paragraphs each), key B's ${SMALL} small scrapes; ${os.availableParallelism()} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`);
    // Warm: the first job starts the engine (workers, Chromium).
    await run(serve.base, KEYS.b, '/api/scrape', { url: `${site.base}/small/0`, scrapeOptions: options });
    const alone: number[] = [];
    for (let i = 0; i < 3; i++) alone.push((await run(serve.base, KEYS.b, '/api/scrape', { url: `${site.base}/heavy/${1000 + i}`, scrapeOptions: options })).ms);
    const unit = median(alone);
    const smalls: number[] = [];
    for (let i = 1; i <= 3; i++) smalls.push((await run(serve.base, KEYS.b, '/api/scrape', { url: `${site.base}/small/${i}`, scrapeOptions: options })).ms);
    const small = median(smalls);
    console.log(`alone: one heavy page ${unit.toFixed(0)} ms (median of ${alone.map((ms) => ms.toFixed(0)).join(', ')}); a small page ${small.toFixed(0)} ms`);

    const batchStarted = performance.now();
    const urls = Array.from({ length: HEAVY_PAGES }, (_, i) => `${site.base}/heavy/${i}`);
    const batch = run(serve.base, KEYS.a, '/api/scrape/batch', { urls, scrapeOptions: options }, (status) => status !== 'pending');
    await batch;
    const waits: number[] = [];
    for (let i = 0; i < SMALL; i++) {
      const { ms } = await run(serve.base, KEYS.b, '/api/scrape', { url: `${site.base}/small/${100 + i}`, scrapeOptions: options });
      waits.push(Math.max(0, ms - small));
    }
    const { path: batchPath } = await batch;
    for (;;) {
      const { status } = await call<{ status: JobStatus }>(serve.base, KEYS.a, 'GET', `${batchPath}/status`);
      if (isFinal(status)) break;
      await sleep(200);
    }
    const batchMs = performance.now() - batchStarted;
    console.log(`fair: key B's small scrapes waited ${waits.map((ms) => ms.toFixed(0)).join(', ')} ms beside key A's batch`);
    console.log(`  in extractions' time: median ${fixed(median(waits) / unit)}, max ${fixed(Math.max(...waits) / unit)} (goal: under 2)`);
    console.log(`  key A's batch took ${(batchMs / 1000).toFixed(1)} s (${fixed(batchMs / unit)} extractions' time for ${HEAVY_PAGES} pages)`);
  } finally {
    await serve.stop();
    await site.close();
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
