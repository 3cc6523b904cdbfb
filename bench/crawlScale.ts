/**
 * A crawl of 100,000 pages on this machine (npm run bench:crawl-scale, issue 59):
 * the built CLI crawls a generated site on 127.0.0.1 and prints, along the crawl,
 * the rate of each 10,000 pages (and of the first and last 2,000) and the RSS of
 * the CLI's whole process tree (the CLI, its extraction threads, and Chromium when
 * the engine starts one); then the time and peak RSS of reading it all back with
 * `webjobs result ID --content` and `webjobs result ID --output-dir DIR`, and the time of `status` and `jobs`.
 *
 * The site: page n links to its ten children 10n+1 ... 10n+10 (so a breadth-first
 * crawl from /p/0 meets every page), to ten navigation pages found on every page
 * (the links a crawler meets again and again), and to one page far away, n * 7919
 * mod the site's size (a link to a page seen long ago, or to one not reached yet).
 * Each page has a title, a heading and five paragraphs (about 2 KB of Markdown).
 *
 * The crawl runs with --jsonl to a pipe the bench reads (it counts lines as they
 * come: each page's time is when its line arrived), --engine http and
 * --ignore-sitemap. RSS is sampled every second from /proc: the tree's sum (peak
 * and at each 10,000 pages) and each process's own peak (VmHWM).
 *
 *   WEBJOBS_BENCH_PAGES=100000   pages of the site and --max-pages (20000 for a quick look at the trend)
 *   WEBJOBS_BENCH_ENGINE=http    --engine of the crawl
 *   WEBJOBS_BENCH_STEP=10000     pages per line of the rate table
 *   WEBJOBS_BENCH_KEEP=1         keep the store and output folders (their paths are printed)
 *   WEBJOBS_BENCH_OUTPUT=file    --jsonl into a file (-o) the bench reads as it grows, not a pipe
 *
 * Last, the time of `webjobs status ID` and `webjobs jobs --json`, which count the crawl's pages.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { listenOnLoopback } from './loopback.js';
import { BIN } from './paths.js';
import { descendants, peakRssOf, rssOf } from './procTree.js';
import { words } from './site.js';

const PAGES = Number(process.env.WEBJOBS_BENCH_PAGES) || 100_000;
const ENGINE = process.env.WEBJOBS_BENCH_ENGINE ?? 'http';
const STEP = Number(process.env.WEBJOBS_BENCH_STEP) || Math.min(10_000, Math.max(1, Math.floor(PAGES / 10)));
const KEEP = process.env.WEBJOBS_BENCH_KEEP === '1';
const TO_FILE = process.env.WEBJOBS_BENCH_OUTPUT === 'file';
/** The first and last pages whose rates the goal compares (the last at ≥ 0.9× the first). */
const ENDS = Math.min(2_000, Math.floor(PAGES / 5));
const NAV = 10;
const MiB = 2 ** 20;

function page(n: number): string {
  const link = (k: number, text: string) => `<a href="/p/${k}">${text}</a>`;
  const children = Array.from({ length: 10 }, (_, i) => 10 * n + 1 + i)
    .filter((k) => k < PAGES)
    .map((k) => `<li>${link(k, `Page ${k}`)}</li>`)
    .join('');
  const nav = Array.from({ length: NAV }, (_, i) => `<li>${link(i, `Section ${i}`)}</li>`).join('');
  const paragraphs = Array.from({ length: 5 }, (_, i) => `<p>${words(n * 10 + i, 60)}.</p>`).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page ${n}</title>
<meta name="description" content="${words(n, 15)}"></head>
<body><header><nav><ul>${nav}</ul></nav></header>
<main><article><h1>Page ${n}: ${words(n, 5)}</h1>${paragraphs}
<p>See also ${link((n * 7919) % PAGES, 'a page far away')}.</p></article>
<aside><h2>Below this page</h2><ul>${children}</ul></aside></main>
<footer><p>Bench site</p></footer></body></html>`;
}

/** Sums over the CLI's process tree, sampled every second. */
class TreeSampler {
  peakTree = 0;
  /** Each process's own peak RSS (VmHWM), by pid, read while it lived. */
  private readonly peaks = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly root: number) {
    this.timer = setInterval(() => this.sample(), 1000);
    this.sample();
  }

  /** RSS of the tree now, in bytes; updates the peaks. */
  sample(): number {
    const pids = [this.root, ...descendants(this.root)];
    let tree = 0;
    for (const pid of pids) {
      tree += rssOf(pid);
      const hwm = peakRssOf(pid);
      if (hwm > 0) this.peaks.set(pid, Math.max(this.peaks.get(pid) ?? 0, hwm));
    }
    this.peakTree = Math.max(this.peakTree, tree);
    return tree;
  }

  /** The CLI's own peak (VmHWM), and the sum of every process's own peak (at least the tree's true peak). */
  peaksMiB(): { cli: number; sumOfPeaks: number } {
    const sum = [...this.peaks.values()].reduce((a, b) => a + b, 0);
    return { cli: (this.peaks.get(this.root) ?? 0) / MiB, sumOfPeaks: sum / MiB };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

interface CliRun {
  code: number | null;
  seconds: number;
  sampler: TreeSampler;
  stderr: string;
}

/** Runs the CLI with `args`; `onLine` gets each stdout line, or each line of `tail` as it grows (stdout is not kept otherwise). */
function runCli(args: string[], home: string, onLine?: (sample: () => number) => void, tail?: string): Promise<CliRun> {
  const started = process.hrtime.bigint();
  // The command itself, as a user runs it (its first line gives Node its flags), with this Node first on PATH.
  const child = spawn(BIN, args, {
    env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, WEBJOBS_HOME: home, NO_COLOR: '1' },
    stdio: ['ignore', onLine ? 'pipe' : 'ignore', 'pipe'],
  });
  const sampler = new TreeSampler(child.pid!);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  let tailTimer: NodeJS.Timeout | undefined;
  if (onLine && tail) {
    let offset = 0;
    const buffer = Buffer.alloc(1 << 20);
    const read = () => {
      let fd: number;
      try {
        fd = openSync(tail, 'r');
      } catch {
        return;
      }
      try {
        for (let n = readSync(fd, buffer, 0, buffer.length, offset); n > 0; n = readSync(fd, buffer, 0, buffer.length, offset)) {
          offset += n;
          for (let at = buffer.indexOf(10); at !== -1 && at < n; at = buffer.indexOf(10, at + 1)) onLine(() => sampler.sample());
        }
      } finally {
        closeSync(fd);
      }
    };
    tailTimer = setInterval(read, 250);
    child.on('close', read);
  } else if (onLine) {
    child.stdout!.on('data', (chunk: Buffer) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) onLine(() => sampler.sample());
    });
  }
  return new Promise((resolve) =>
    child.on('close', (code) => {
      sampler.stop();
      if (tailTimer) clearInterval(tailTimer);
      resolve({ code, seconds: Number(process.hrtime.bigint() - started) / 1e9, sampler, stderr });
    }),
  );
}

function jobIdIn(home: string): string {
  const ids = readdirSync(path.join(home, 'jobs')).filter((name) => !name.startsWith('.'));
  if (ids.length !== 1) throw new Error(`expected one job in ${home}, found ${ids.length}`);
  return ids[0]!;
}

const rate = (pages: number, seconds: number) => (seconds > 0 ? pages / seconds : NaN);

async function main(): Promise<void> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    const match = /^\/p\/(\d+)$/.exec(req.url ?? '');
    const n = match ? Number(match[1]) : -1;
    if (n < 0 || n >= PAGES) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(n));
  });
  const site = await listenOnLoopback(server);
  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-crawlscale-'));
  console.log(
    `bench:crawl-scale — ${PAGES} pages, --engine ${ENGINE}, ${os.availableParallelism()} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at start`,
  );
  try {
    // Each page's arrival (seconds since the start) and the tree's RSS when each STEP of pages was reached.
    const arrivals = new Float64Array(PAGES + 1);
    const rssAtStep: number[] = [];
    let lines = 0;
    const started = process.hrtime.bigint();
    const crawl = await runCli(
      ['crawl', `${site.base}/p/0`, '--max-pages', String(PAGES), '--engine', ENGINE, '--ignore-sitemap', '--jsonl', '-q', ...(TO_FILE ? ['-o', path.join(home, 'out.jsonl')] : [])],
      home,
      (sample) => {
        if (lines < arrivals.length) arrivals[lines] = Number(process.hrtime.bigint() - started) / 1e9;
        lines++;
        if (lines % STEP === 0) rssAtStep.push(sample());
      },
      TO_FILE ? path.join(home, 'out.jsonl') : undefined,
    );
    if (crawl.code !== 0 || lines !== PAGES) {
      // Figures follow for what it did: a crawl that lost pages still says at what rate and memory.
      console.log(`CRAWL SHORT: exit ${crawl.code}, ${lines} pages of ${PAGES} (${requests} requests)\n${crawl.stderr.slice(-2000)}`);
      process.exitCode = 1;
      if (lines < 2 * ENDS) return;
    }
    console.log(`crawl: ${lines} pages in ${crawl.seconds.toFixed(1)} s (${rate(lines, crawl.seconds).toFixed(0)} pages/s over the whole run, start-up included), ${requests} requests`);
    console.log('   pages      pages/s   tree RSS MiB');
    for (let end = STEP; end <= lines; end += STEP) {
      const from = end - STEP;
      const seconds = arrivals[end - 1]! - (from === 0 ? 0 : arrivals[from - 1]!);
      console.log(`  ${`${from + 1}-${end}`.padStart(13)}  ${rate(STEP, seconds).toFixed(0).padStart(7)}   ${((rssAtStep[end / STEP - 1] ?? 0) / MiB).toFixed(0).padStart(12)}`);
    }
    const first = rate(ENDS - 1, arrivals[ENDS - 1]! - arrivals[0]!);
    const last = rate(ENDS, arrivals[lines - 1]! - arrivals[lines - ENDS - 1]!);
    const peaks = crawl.sampler.peaksMiB();
    console.log(`first ${ENDS} pages ${first.toFixed(0)} pages/s, last ${ENDS} ${last.toFixed(0)} pages/s: ${(last / first).toFixed(2)}× (goal ≥ 0.9×)`);
    console.log(
      `peak RSS of the CLI's tree ${(crawl.sampler.peakTree / MiB).toFixed(0)} MiB sampled (goal ≤ 300); the CLI's own peak ${peaks.cli.toFixed(0)} MiB, every process's own peak summed ${peaks.sumOfPeaks.toFixed(0)} MiB`,
    );
    const jobId = jobIdIn(home);
    const jobDir = path.join(home, 'jobs', jobId);
    const sizes = readdirSync(jobDir).map((name) => `${name} ${(statSize(path.join(jobDir, name)) / MiB).toFixed(1)} MiB`);
    console.log(`store: ${sizes.join(', ')}`);

    const content = await runCli(['result', jobId, '--content', '-q'], home, () => undefined);
    report('result --content', content, PAGES);
    const out = path.join(home, 'out');
    const dir = await runCli(['result', jobId, '--output-dir', out, '-q'], home);
    const files = readdirSync(out).length;
    report(`result --output-dir (${files} files)`, dir, PAGES);
    // What `status` and `jobs` take to count the crawl's pages (issue 59: they read every entry; now pages.idx).
    for (const args of [['status', jobId], ['jobs', '--json']]) {
      const counted = await runCli(args, home);
      const ok = counted.code === 0 ? '' : ` EXIT ${counted.code}: ${counted.stderr.slice(-500)}`;
      console.log(`${args[0]}: ${counted.seconds.toFixed(1)} s, peak tree RSS ${(counted.sampler.peakTree / MiB).toFixed(0)} MiB, stderr ${JSON.stringify(counted.stderr.trim().slice(0, 120))}${ok}`);
    }
    if (KEEP) console.log(`kept: ${home}`);
  } finally {
    await site.close();
    if (!KEEP) rmSync(home, { recursive: true, force: true });
  }
  console.log(`load average at end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; the machine is shared, so these figures are noisy`);
}

function statSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function report(label: string, run: CliRun, pages: number): void {
  const ok = run.code === 0 ? '' : ` EXIT ${run.code}: ${run.stderr.slice(-500)}`;
  console.log(
    `${label}: ${run.seconds.toFixed(1)} s (goal ≤ 50 s at 100,000 pages; ${rate(pages, run.seconds).toFixed(0)} pages/s), peak tree RSS ${(run.sampler.peakTree / MiB).toFixed(0)} MiB, the CLI's own ${run.sampler.peaksMiB().cli.toFixed(0)} MiB${ok}`,
  );
}

await main();
