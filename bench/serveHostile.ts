/**
 * The hostile phase of bench:serve (serveLoad.ts, WEBJOBS_BENCH_SERVE=hostile): a fresh server with --max-jobs 4
 * runs the hostile crawls of issue 10 at once, each against its own loopback site (hostileSites.ts), rounds of
 * them, while a probe GETs /healthz one request at a time.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIMITS } from '../src/api/limits.js';
import type { JobStatus } from '../src/api/types.js';
import { backtrackingPatterns, BOMB_COUNT, startHostileSites, type HostileSites } from './hostileSites.js';
import { IDLE_ROUNDS, PROBE_PAUSE_MS, call, cleanups, header, probeHealth, row, Samples, startAndPoll, startServe, tempDir } from './serveHarness.js';

const HOSTILE_ROUNDS = Number(process.env.WEBJOBS_BENCH_HOSTILE_ROUNDS) || 6;


interface HostileCrawl {
  label: string;
  site: keyof Omit<HostileSites, 'seen' | 'close'>;
  request: object;
}

/** The crawls of issue 10's "one request must not stop the service", one per site. */
function hostileCrawls(): HostileCrawl[] {
  return [
    {
      label: 'backtracking patterns, long paths',
      site: 'longPaths',
      request: { ignoreSitemap: true, ...backtrackingPatterns(LIMITS.maxCrawlPatterns, LIMITS.maxCrawlPatternLength) },
    },
    { label: 'endless robots.txt', site: 'endlessRobots', request: {} },
    { label: `sitemap index of ${BOMB_COUNT} gzip bombs`, site: 'bombs', request: { maxPages: LIMITS.maxCrawlPages } },
    { label: 'sitemap with a bad character reference', site: 'badEntity', request: {} },
  ];
}

interface CrawlOutcome {
  status: JobStatus;
  pages: number;
  ms: number;
}

interface HostileResult {
  idle: Samples;
  /** /healthz while the hostile crawls run. */
  health: Samples;
  /** Probes that failed (no answer in HEALTH_TIMEOUT_MS, a connection error, not 2xx). */
  failures: string[];
  /** Each crawl's outcome, round by round. */
  outcomes: Map<string, CrawlOutcome[]>;
  elapsedMs: number;
  loadAverage: { before: number; after: number };
  /** Whether serve was still running when the rounds ended, and how long SIGTERM took to stop it. */
  upAfter: boolean;
  stopMs: number;
}


async function runHostilePhase(sites: HostileSites, home: string, key: string): Promise<HostileResult> {
  const crawls = hostileCrawls();
  const hosts = crawls.map((c) => new URL(sites[c.site].base).host);
  // Every hostile crawl at once (serve's default runs 2 and queues the rest).
  const serve = await startServe(home, [key], hosts, ['--max-jobs', String(crawls.length)]);
  let stopMs = NaN;
  try {
    const { base } = serve;
    const idle = new Samples();
    const failures: string[] = [];
    for (let round = 0; round < IDLE_ROUNDS; round++) {
      await probeHealth(base, idle, failures);
      await sleep(PROBE_PAUSE_MS);
    }
    const health = new Samples();
    const outcomes = new Map<string, CrawlOutcome[]>();
    const before = os.loadavg()[0]!;
    const started = performance.now();
    let done = false;
    const rounds = (async () => {
      for (let round = 0; round < HOSTILE_ROUNDS; round++) {
        await Promise.all(
          crawls.map(async (crawl) => {
            const began = performance.now();
            const { jobId, status } = await startAndPoll(base, key, 'crawl', { url: `${sites[crawl.site].base}/`, ...crawl.request });
            const ms = performance.now() - began;
            const { data } = await call<{ data?: unknown[] }>(base, key, 'GET', `/api/crawl/${jobId}`);
            outcomes.set(crawl.label, [...(outcomes.get(crawl.label) ?? []), { status, pages: data?.length ?? 0, ms }]);
          }),
        );
      }
    })().finally(() => (done = true));
    const probe = (async () => {
      while (!done) {
        await probeHealth(base, health, failures);
        await sleep(PROBE_PAUSE_MS);
      }
    })();
    await Promise.all([rounds, probe]);
    const elapsedMs = performance.now() - started;
    const upAfter = serve.alive();
    const stopping = performance.now();
    await serve.stop();
    stopMs = performance.now() - stopping;
    return { idle, health, failures, outcomes, elapsedMs, loadAverage: { before, after: os.loadavg()[0]! }, upAfter, stopMs };
  } finally {
    if (Number.isNaN(stopMs)) await serve.stop();
  }
}
function printHostile(result: HostileResult, sites: HostileSites): void {
  const { before, after } = result.loadAverage;
  console.log(
    `\nhostile inputs: ${HOSTILE_ROUNDS} round(s) of ${result.outcomes.size} crawls at once (serve --max-jobs ${result.outcomes.size}) in ${(result.elapsedMs / 1000).toFixed(1)} s; load average ${before.toFixed(1)} -> ${after.toFixed(1)}`,
  );
  for (const [label, rounds] of result.outcomes) {
    const each = rounds.map((o) => `${o.status} ${o.pages} pages ${(o.ms / 1000).toFixed(1)} s`).join('; ');
    console.log(`  ${label.padEnd(40)} ${each}`);
  }
  console.log(header('/healthz, ms'));
  console.log(row('during the hostile crawls', result.health));
  console.log(row('idle, before them', result.idle));
  const failed = result.failures.length === 0 ? 'no probe failed' : `${result.failures.length} probes failed (${[...new Set(result.failures)].slice(0, 3).join('; ')})`;
  const up = result.upAfter ? 'serve stayed up' : 'serve had EXITED';
  console.log(`  ${up}; ${failed}; it stopped ${(result.stopMs / 1000).toFixed(1)} s after SIGTERM`);
  const { robotsRequests, robotsMaxBytes, bombsSent } = sites.seen;
  console.log(`  the sites sent: endless robots.txt ${robotsRequests} times, at most ${(robotsMaxBytes / 1024 / 1024).toFixed(1)} MiB before the client hung up; ${bombsSent} gzip bombs`);
  console.log(`healthz p99 through the hostile inputs: ${result.health.percentile(99).toFixed(1)} ms (goal < 50 ms)`);
}

export async function hostilePhase(key: string): Promise<void> {
  const sites = await startHostileSites();
  cleanups.push(() => sites.close());
  const result = await runHostilePhase(sites, tempDir('webjobs-bench-hostile-'), key);
  printHostile(result, sites);
}
