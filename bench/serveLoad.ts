/**
 * Load bench of `webjobs serve` (npm run bench:serve): the real CLI's server, over HTTP.
 *
 * A fixture site of article pages on 127.0.0.1; then, in one run, phases on fresh
 * servers; the first two differ only in their WEBJOBS_HOME:
 *   peer   an empty store
 *   large  the same, plus nine completed 20 MB scrape records owned by one key (the
 *          "hoarder"), written with the store module before the server starts
 * Each phase runs the load bar: 10 keys start 50 jobs at once (4 scrapes and a batch
 * of 4 pages each), each slot running 3 jobs in turn, polling their status every 250 ms,
 * while a probe loop measures GET /healthz, the status of a
 * small job and GET /api/jobs of a key with that one job, and (large phase) the
 * status of a 20 MB job and its owner's listing. Printed per phase: latencies seen by
 * the client (request sent to body read) under the load, serve's own handler times
 * (its request log), the probe on the idle server before the load, one read of a
 * whole large record; then the large/peer ratios. Keys: 10 for the load, one owning
 * the probe's small job, one owning the large records, all on the scale plan. Then:
 *   nice   the large phase again (freshly seeded) on `serve --browser-nice N`: whether a
 *          nice Chromium brings status and /healthz p99 under the 50 ms goal
 *   hostile  a fresh server with --max-jobs 4 runs the hostile crawls of issue 10 at once,
 *          each against its own loopback site (hostileSites.ts): backtracking-prone
 *          patterns (the most and longest validation allows) over a page linking to long
 *          paths, an endless chunked robots.txt, a sitemap index of 49 gzip bombs, a
 *          sitemap with a bad character reference; rounds of these, one after another,
 *          while a probe GETs /healthz one request at a time. Printed: /healthz p50/p99/max
 *          during the rounds and idle before, failed probes, whether serve stayed up and
 *          how fast it stopped on SIGTERM, each crawl's outcome, what the sites sent.
 *
 *   limits   issue 43's hostile tenants (serveLimits.ts): a batch of 40 x 19 MB results read by six
 *          clients at once, and 3,000 idle connections, with /healthz probed throughout
 *
 *   WEBJOBS_BENCH_SERVE=all     phases: all, load (peer, large, nice), hostile or limits
 *   WEBJOBS_BENCH_ROUNDS=3      jobs each slot of the load bar runs one after another
 *   WEBJOBS_BENCH_POLL_MS=250   how often the load bar's jobs poll their status
 *   WEBJOBS_BENCH_SERVE_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"  node flags for serve
 *   WEBJOBS_BENCH_RESULT_PAGES=40, _RESULT_MB=19, _READERS=6, _READ_ROUNDS=2, _IDLE_CONNECTIONS=3000,
 *   _PDF_LINES=20000, _PDF_LINKS=30000, _PDF_ROUNDS=2, _LIMITS_CASES=pdf,results,connections  (limits)
 *   WEBJOBS_BENCH_NICE=10       --browser-nice of the nice phase (0: no nice phase)
 *   WEBJOBS_BENCH_ENGINE=browser  scrapeOptions.engine of the load bar's jobs (default: none
 *                               given, so auto, which reads these article pages over HTTP and
 *                               starts no Chromium; browser renders each in Chromium, the load
 *                               the nice phase is about)
 *   WEBJOBS_BENCH_HOSTILE_ROUNDS=6  rounds of the hostile crawls (about 6 s each)
 *   WEBJOBS_BENCH_KEYS=10       keys of the load bar
 *   WEBJOBS_BENCH_JOBS=5        jobs per key (the last of each key's jobs is a batch)
 *   WEBJOBS_BENCH_LARGE=9       large records of the large phase
 *   WEBJOBS_BENCH_LARGE_MB=20   size of each large record
 *   WEBJOBS_BENCH_MAX_JOBS=n    serve --max-jobs (default: serve's own)
 */
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, type EngineName, type JobKind, type JobStatus } from '../src/api/types.js';
import { parseKeyList } from '../src/server/keys.js';
import { JobOwners } from '../src/server/owners.js';
import { FileJobStore } from '../src/store/fileStore.js';
import { listenOnLoopback, type LoopbackServer } from './loopback.js';
import { articlePage, words } from './site.js';
import { limitsPhase } from './serveLimits.js';
import { IDLE_ROUNDS, PROBE_PAUSE_MS, call, cleanUp, cleanups, fmt, header, probeHealth, row, Samples, samplesOf, startAndPoll, startServe, tempDir, timed, type LoopDelay, type Route } from './serveHarness.js';
import { hostilePhase } from './serveHostile.js';

const KEY_COUNT = Number(process.env.WEBJOBS_BENCH_KEYS) || 10;
const JOBS_PER_KEY = Number(process.env.WEBJOBS_BENCH_JOBS) || 5;
const LARGE_COUNT = Number(process.env.WEBJOBS_BENCH_LARGE) || 9;
const LARGE_MB = Number(process.env.WEBJOBS_BENCH_LARGE_MB) || 20;
const BATCH_PAGES = 4;
/** Jobs each of the load bar's slots runs one after another. */
const LOAD_ROUNDS = Number(process.env.WEBJOBS_BENCH_ROUNDS) || 3;
/** How often the load bar's jobs poll their status (issue 37: every 250 ms). */
const LOAD_POLL_MS = Number(process.env.WEBJOBS_BENCH_POLL_MS) || 250;
const PHASES = process.env.WEBJOBS_BENCH_SERVE ?? 'all';
const NICE = process.env.WEBJOBS_BENCH_NICE === undefined ? 10 : Number(process.env.WEBJOBS_BENCH_NICE);
const ENGINE = process.env.WEBJOBS_BENCH_ENGINE as EngineName | undefined;



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






/** A scrape or batch of `urls` (markdown), to its end. */
async function runJob(base: string, key: string, kind: Extract<JobKind, 'scrape' | 'batch'>, urls: string[], statusSamples?: Samples): Promise<JobStatus> {
  const request = kind === 'scrape' ? { url: urls[0] } : { urls };
  const scrapeOptions = { formats: ['markdown'], ...(ENGINE && { engine: ENGINE }) };
  return (await startAndPoll(base, key, kind, { ...request, scrapeOptions }, statusSamples, statusSamples ? [LOAD_POLL_MS] : undefined)).status;
}

// ---------------------------------------------------------------- one phase

type Metric = 'status (load bar polls)' | 'healthz' | 'status, small job' | 'listing, 1 small job' | 'status, large job' | 'listing, owner of large jobs';

interface Keys {
  load: string[];
  /** Owns one small job: the tenant whose status and listing must not suffer from another's records. */
  probe: string;
  /** Owns the large records. */
  hoarder: string;
}

interface PhaseResult {
  /** The probe with no job running: the machine's own noise. */
  idle: Map<Metric, Samples>;
  load: Map<Metric, Samples>;
  /** serve's handler time of each request during the load, from its request log. */
  handled: Map<Route, Samples>;
  jobs: Map<string, number>;
  elapsedMs: number;
  loadAverage: { before: number; after: number };
  /** One GET of a whole large record after the load: what status and listings no longer read. */
  largeRead?: { ms: number; bytes: number };
  /** serve's event-loop delay during the idle probe and under the load bar. */
  loopDelay: { idle: LoopDelay; load: LoopDelay };
}

/** One round of the probe: each request in turn, as one client. */
async function probeRound(base: string, keys: Keys, small: string, large: string[], samples: Map<Metric, Samples>): Promise<void> {
  await call(base, undefined, 'GET', '/healthz', undefined, samplesOf(samples, 'healthz'));
  await call(base, keys.probe, 'GET', `/api/scrape/${small}/status`, undefined, samplesOf(samples, 'status, small job'));
  await call(base, keys.probe, 'GET', '/api/jobs', undefined, samplesOf(samples, 'listing, 1 small job'));
  if (large.length > 0) {
    await call(base, keys.hoarder, 'GET', `/api/scrape/${large[0]}/status`, undefined, samplesOf(samples, 'status, large job'));
    await call(base, keys.hoarder, 'GET', '/api/jobs', undefined, samplesOf(samples, 'listing, owner of large jobs'));
  }
  await sleep(PROBE_PAUSE_MS);
}

/**
 * The load bar: every key keeps JOBS_PER_KEY jobs going (the last of them a batch),
 * each polled every LOAD_POLL_MS to its end, LOAD_ROUNDS jobs one after another.
 */
async function loadBar(base: string, site: string, keys: Keys, statusSamples: Samples): Promise<JobStatus[]> {
  const slots = keys.load.flatMap((key, k) =>
    Array.from({ length: JOBS_PER_KEY }, async (_, j) => {
      const statuses: JobStatus[] = [];
      for (let round = 0; round < LOAD_ROUNDS; round++) {
        const first = ((round * KEY_COUNT + k) * JOBS_PER_KEY + j) * BATCH_PAGES;
        statuses.push(
          j === JOBS_PER_KEY - 1
            ? await runJob(base, key, 'batch', Array.from({ length: BATCH_PAGES }, (_, p) => `${site}/article/${first + p}`), statusSamples)
            : await runJob(base, key, 'scrape', [`${site}/article/${first}`], statusSamples),
        );
      }
      return statuses;
    }),
  );
  return (await Promise.all(slots)).flat();
}

async function runPhase(site: string, home: string, large: string[], keys: Keys, serveArgs: string[] = []): Promise<PhaseResult> {
  const serve = await startServe(home, [...keys.load, keys.probe, keys.hoarder], [new URL(site).host], serveArgs);
  try {
    const base = serve.base;
    const smallStatus = await runJob(base, keys.probe, 'scrape', [`${site}/article/999`]);
    const [small] = await call<{ jobId: string }[]>(base, keys.probe, 'GET', '/api/jobs');
    if (smallStatus !== 'completed' || !small) throw new Error(`the probe's small job: ${smallStatus}`);

    const idle = new Map<Metric, Samples>();
    await serve.loopDelay();
    for (let round = 0; round < IDLE_ROUNDS; round++) await probeRound(base, keys, small.jobId, large, idle);
    const idleDelay = await serve.loopDelay();

    const load = new Map<Metric, Samples>();
    const before = os.loadavg()[0]!;
    serve.handled.clear();
    const started = performance.now();
    let loadDone = false;
    const jobs = loadBar(base, site, keys, samplesOf(load, 'status (load bar polls)')).finally(() => (loadDone = true));
    const probe = (async () => {
      while (!loadDone) await probeRound(base, keys, small.jobId, large, load);
    })();
    const [statuses] = await Promise.all([jobs, probe]);
    const elapsedMs = performance.now() - started;
    const loadDelay = await serve.loopDelay();
    const handled = new Map(serve.handled);

    const counts = new Map<string, number>();
    for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
    let largeRead: PhaseResult['largeRead'];
    if (large.length > 0) {
      const { ms, text } = await timed(base, keys.hoarder, 'GET', `/api/scrape/${large[0]}`);
      largeRead = { ms, bytes: Buffer.byteLength(text) };
    }
    return { idle, load, handled, jobs: counts, elapsedMs, loadAverage: { before, after: os.loadavg()[0]! }, largeRead, loopDelay: { idle: idleDelay, load: loadDelay } };
  } finally {
    await serve.stop();
  }
}



// ---------------------------------------------------------------- report



const delayRow = (label: string, d: LoopDelay) =>
  `  ${`serve's event-loop delay, ${label}`.padEnd(30)} ${fmt(d.p50)} ${fmt(d.p99)} ${fmt(d.max)} ${String(d.samples).padStart(9)} samples`;

function printPhase(label: string, result: PhaseResult): void {
  const jobs = [...result.jobs].map(([status, n]) => `${n} ${status}`).join(', ');
  const { before, after } = result.loadAverage;
  console.log(`\n${label}: ${KEY_COUNT * JOBS_PER_KEY} jobs from ${KEY_COUNT} keys in ${(result.elapsedMs / 1000).toFixed(1)} s (${jobs}); load average ${before.toFixed(1)} -> ${after.toFixed(1)}`);
  console.log(header('under the load bar, ms'));
  for (const [metric, s] of result.load) console.log(row(metric, s));
  console.log(header("serve's handler time (its log)"));
  for (const [route, s] of result.handled) console.log(row(route, s));
  console.log(delayRow('under the load bar', result.loopDelay.load));
  console.log(header('idle, before the load, ms'));
  for (const [metric, s] of result.idle) console.log(row(metric, s));
  console.log(delayRow('idle', result.loopDelay.idle));
  if (result.largeRead) {
    console.log(`  one GET of a whole large record after the load: ${(result.largeRead.bytes / 1024 / 1024).toFixed(1)} MB in ${result.largeRead.ms.toFixed(0)} ms`);
  }
}

/** `other`'s p50 and p99 over `peer`'s, metric by metric, under the load bar. */
function printRatios(label: string, peer: PhaseResult, other: PhaseResult): void {
  console.log(`\n${label}, under the load bar (same run):`);
  for (const [metric, s] of peer.load) {
    const them = other.load.get(metric);
    if (!them) continue;
    const p50 = them.percentile(50) / s.percentile(50);
    const p99 = them.percentile(99) / s.percentile(99);
    console.log(`  ${metric.padEnd(30)} p50 ${p50.toFixed(2)}x  p99 ${p99.toFixed(2)}x`);
  }
}

function printGoal(label: string, result: PhaseResult): void {
  const statusP99 = result.load.get('status (load bar polls)')!.percentile(99);
  const healthP99 = result.load.get('healthz')!.percentile(99);
  const verdict = (ms: number) => `${ms.toFixed(1)} ms (goal < 50 ms: ${ms < 50 ? 'met' : 'MISSED'})`;
  console.log(
    `under the load bar ${label}: status p99 ${verdict(statusP99)}; healthz p99 ${verdict(healthP99)}; serve's event-loop delay p99 ${verdict(result.loopDelay.load.p99)}`,
  );
}


async function seededHome(prefix: string, key: string, siteBase: string): Promise<{ home: string; large: string[] }> {
  const home = tempDir(prefix);
  const seeding = performance.now();
  const large = await seedLargeRecords(home, key, LARGE_COUNT, LARGE_MB, siteBase);
  console.log(`\nseeded ${LARGE_COUNT} completed scrape records of ${LARGE_MB} MB (job.json) for one key in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  return { home, large };
}

/** peer, large and (NICE > 0) large on `serve --browser-nice NICE`, on one site. */
async function loadPhases(keys: Keys): Promise<void> {
  const site = await startSite();
  console.log(`Site at ${site.base}`);
  const peer = await runPhase(site.base, tempDir('webjobs-bench-peer-'), [], keys);
  printPhase('peer (no large records)', peer);

  const seeded = await seededHome('webjobs-bench-large-', keys.hoarder, site.base);
  const withLarge = await runPhase(site.base, seeded.home, seeded.large, keys);
  printPhase(`large (${LARGE_COUNT} x ${LARGE_MB} MB records present)`, withLarge);

  let nice: PhaseResult | undefined;
  if (NICE > 0) {
    const again = await seededHome('webjobs-bench-nice-', keys.hoarder, site.base);
    nice = await runPhase(site.base, again.home, again.large, keys, ['--browser-nice', String(NICE)]);
    printPhase(`nice (large records, serve --browser-nice ${NICE})`, nice);
  }
  printRatios('large / peer', peer, withLarge);
  if (nice) printRatios(`nice / large (--browser-nice ${NICE})`, withLarge, nice);
  printGoal('(issue 37: no large records)', peer);
  printGoal('with large records', withLarge);
  if (nice) printGoal(`with large records, --browser-nice ${NICE}`, nice);
}


/** The knobs' values, checked before anything starts: a message naming the bad one. */
function knobError(): string | undefined {
  if (!['all', 'load', 'hostile', 'limits'].includes(PHASES)) return `WEBJOBS_BENCH_SERVE=${PHASES}: expected all, load, hostile or limits`;
  if (ENGINE !== undefined && !ENGINES.includes(ENGINE)) return `WEBJOBS_BENCH_ENGINE=${ENGINE}: expected ${ENGINES.join(', ')}`;
  if (!Number.isInteger(NICE) || NICE < 0 || NICE > 19) return `WEBJOBS_BENCH_NICE=${process.env.WEBJOBS_BENCH_NICE}: expected 0 to 19`;
  return undefined;
}

async function main(): Promise<void> {
  const keys = {
    load: Array.from({ length: KEY_COUNT }, (_, i) => `bench-load-${i}`),
    probe: 'bench-probe',
    hoarder: 'bench-hoarder',
  };
  console.log(`${os.availableParallelism()} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}; load bar's engine: ${ENGINE ?? 'auto (none given)'}`);
  if (PHASES === 'all' || PHASES === 'load') await loadPhases(keys);
  if (PHASES === 'all' || PHASES === 'hostile') await hostilePhase(keys.probe);
  if (PHASES === 'all' || PHASES === 'limits') {
    await limitsPhase(
      {
        startServe: (home, apiKeys, allowHosts = ['127.0.0.1:9']) => startServe(home, apiKeys, allowHosts),
        samples: () => new Samples(),
        probeHealth,
        tempDir,
        keyId,
      },
      keys.probe,
    );
  }
}

const badKnob = knobError();
if (badKnob) {
  console.error(`bench:serve: ${badKnob}`);
  process.exit(2);
}
try {
  await main();
} finally {
  await cleanUp();
}
