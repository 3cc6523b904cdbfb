/**
 * The pipeline's speed (issue 59), each contender a process tree of its own, measured from /proc (wall time
 * from spawn to exit, CPU of the whole tree: user + sys of every process, workers and Chromium included),
 * in rounds that run the contenders in turn, so that a load spike of a shared machine hits them alike;
 * medians, and the ratios of each round's pair.
 *
 * The 181 article pages (.bench-data/aeb, npm run bench:fetch-aeb), served on 127.0.0.1 by this process:
 *   webjobs  the built CLI's `webjobs batch - --engine http --jsonl`, its JSON lines read from a pipe
 *   cheerio  what a Crawlee user builds: CheerioCrawler (got-scraping; its default autoscaled concurrency),
 *            each page's body parsed by linkedom, Readability, turndown with GFM, one JSON line a page
 *   bare     the bare extraction's whole process: the pages read from disk, linkedom + Readability +
 *            turndown on one thread, nothing else; its CPU ms a page sets the limit,
 *            (1000 / bare CPU ms a page) x cores, in pages/s
 * 200 plain article pages on loopback (bench/site.ts, no scripts):
 *   browser  the built CLI's `webjobs batch - --engine browser`
 *   floor    bare Puppeteer (puppeteer-core, the same Chromium and flags): one browser, 4 tabs reused,
 *            goto + content(), images, fonts, media and style sheets blocked
 *
 *   npm run bench:pipeline
 *   WEBJOBS_BENCH_ROUNDS=3            rounds (medians over them)
 *   WEBJOBS_BENCH_ONLY=http,browser   which comparisons
 *   WEBJOBS_BENCH_CPU_PROF=dir        the webjobs CLI runs with --cpu-prof into dir (main thread and workers)
 *   WEBJOBS_BENCH_BASE=dir            a build before (dir/bin/webjobs.js, its dist/ built) also runs, in the same rounds,
 *                                     before this one: the ratio of each pair prices a change
 *   WEBJOBS_BENCH_THREADS=1           the browser comparison also splits Chromium's CPU by thread name (chromiumCpu.ts)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { listenOnLoopback } from './loopback.js';
import { startServer } from './pageServer.js';
import { BIN } from './paths.js';
import { ChromiumCpu } from './chromiumCpu.js';
import { cpuMsOf, descendants, statCpuMs } from './procTree.js';
import { articlesDir, loadArticles, pageHtml } from './sets.js';
import { articlePage } from './site.js';

const SELF = fileURLToPath(import.meta.url);
const CHROMIUM = process.env.WEBJOBS_CHROME ?? '/usr/bin/chromium';
const FLOOR_TABS = 4;

interface Run {
  seconds: number;
  cpuMs: number;
  pages: number;
  /** CPU ms of the root process's threads (user + sys of each, by thread id), and of the processes below it. */
  threads: Map<string, number>;
  belowMs: number;
  /** Chromium's processes below it, by type. */
  chromium: ChromiumCpu;
}

/** CPU ms of each thread of `pid` (utime + stime of /proc/PID/task/TID/stat); empty once it is gone. */
function threadCpu(pid: number): Map<string, number> {
  const found = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        found.set(tid, statCpuMs(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'), false));
      } catch {
        /* ended */
      }
    }
  } catch {
    /* gone */
  }
  return found;
}

/**
 * Where a run's CPU went, ms a page: the root's main thread, its `workers` busiest other threads (the
 * extraction workers of an HTTP batch; for the peers, none), the rest of its threads (V8's compiler and
 * GC helpers, libuv's pool), and the processes below it (Chromium).
 */
function breakdown(run: Run, workers: number): string {
  const perPage = (ms: number) => fixed(ms / run.pages);
  const pid = [...run.threads.keys()].map(Number).sort((a, b) => a - b)[0];
  const main = run.threads.get(String(pid)) ?? 0;
  const others = [...run.threads.entries()].filter(([tid]) => tid !== String(pid)).map(([, ms]) => ms).sort((a, b) => b - a);
  const busiest = others.slice(0, workers).reduce((a, b) => a + b, 0);
  const rest = others.slice(workers).reduce((a, b) => a + b, 0);
  return [
    `main thread ${perPage(main)}`,
    ...(workers > 0 ? [`${workers} extraction workers ${perPage(busiest)}`] : []),
    `V8 and libuv helper threads ${perPage(rest)}`,
    ...(run.belowMs > 0 ? [`child processes ${perPage(run.belowMs)}`] : []),
  ].join(', ');
}

/** Spawns `args` with `input` on stdin; its wall time and the CPU of its whole tree, sampled every 20 ms until it exits. */
async function measured(args: string[], input: string, env: NodeJS.ProcessEnv, pages: number, check: (stdout: string) => void): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  let done = false;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => ((done = true), resolve(code))));
  // A process's figure holds the children it waited for (Chromium's zygote reaps its renderers, the CLI its
  // browser): the tree's sum at one sample counts each process once, alive or reaped; its largest is the figure.
  let cpuMs = 0;
  let belowMs = 0;
  const threads = new Map<string, number>();
  const chromium = new ChromiumCpu(Boolean(process.env.WEBJOBS_BENCH_THREADS));
  while (!done) {
    const pids = descendants(child.pid!);
    chromium.sample(pids);
    const below = pids.reduce((total, pid) => total + cpuMsOf(pid), 0);
    cpuMs = Math.max(cpuMs, cpuMsOf(child.pid!) + below);
    belowMs = Math.max(belowMs, below);
    for (const [tid, ms] of threadCpu(child.pid!)) threads.set(tid, Math.max(threads.get(tid) ?? 0, ms));
    await sleep(20);
  }
  const code = await exited;
  const seconds = (performance.now() - started) / 1000;
  // webjobs exits 3 when a page failed: the check below says which.
  if (code !== 0 && code !== 3) throw new Error(`${args.slice(1, 3).join(' ')} exited with ${code}: ${stderr.slice(0, 500)}`);
  check(stdout);
  return { seconds, cpuMs, pages, threads, belowMs, chromium };
}

function lines(expected: number, name: string): (stdout: string) => void {
  return (stdout) => {
    const all = stdout.split('\n').filter(Boolean);
    for (const line of all) if (line.includes('"status":"failed"')) console.log(`  ${name}: ${line.slice(0, 300)}`);
    const count = all.filter((line) => line.includes('"markdown"')).length;
    if (count < expected - 1) throw new Error(`${name}: ${count} of ${expected} pages with Markdown`);
  };
}

// ---------------------------------------------------------------- the peers (in a child process)

async function extractor(): Promise<(html: string) => string> {
  const { Readability } = await import('@mozilla/readability');
  const { parseHTML } = await import('linkedom');
  const TurndownService = (await import('turndown')).default;
  const { gfm } = await import('turndown-plugin-gfm');
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  service.use(gfm);
  return (html) => {
    const { document } = parseHTML(html);
    let article: ReturnType<InstanceType<typeof Readability>['parse']> = null;
    try {
      article = new Readability(document as unknown as Document).parse();
    } catch {
      /* stock linkedom leaves a few pages' content outside <body>: what it spent is the cost */
    }
    try {
      return article?.content ? service.turndown(article.content as string) : '';
    } catch {
      return '';
    }
  };
}

async function cheerioPeer(urls: string[]): Promise<void> {
  const storage = mkdtempSync(path.join(os.tmpdir(), 'crawlee-bench-'));
  process.env.CRAWLEE_STORAGE_DIR = storage;
  const { CheerioCrawler, Configuration } = await import('@crawlee/cheerio');
  const markdownOf = await extractor();
  const crawler = new CheerioCrawler(
    {
      maxRequestRetries: 0,
      async requestHandler({ request, body }) {
        const markdown = markdownOf(body.toString());
        process.stdout.write(`${JSON.stringify({ url: request.url, markdown })}\n`);
      },
    },
    new Configuration({ persistStorage: false, storageClientOptions: { localDataDirectory: storage } }),
  );
  await crawler.run(urls.map((url, i) => ({ url, uniqueKey: `${i}:${url}` })));
  rmSync(storage, { recursive: true, force: true });
}

async function barePeer(htmlDir: string, ids: string[]): Promise<void> {
  const markdownOf = await extractor();
  for (const id of ids) process.stdout.write(`${JSON.stringify({ id, markdown: markdownOf(pageHtml(htmlDir, id)) })}\n`);
}

async function floorPeer(urls: string[]): Promise<void> {
  const puppeteer = (await import('puppeteer-core')).default;
  const { launchArgs } = await import('../src/engine/browser/browser.js');
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: launchArgs() });
  const blocked = new Set(['image', 'font', 'media', 'stylesheet']);
  try {
    let next = 0;
    const tab = async () => {
      const page = await browser.newPage();
      await page.setRequestInterception(true);
      page.on('request', (request) => void (blocked.has(request.resourceType()) ? request.abort() : request.continue()));
      while (next < urls.length) {
        const url = urls[next++]!;
        await page.goto(url, { waitUntil: 'load' });
        process.stdout.write(`${JSON.stringify({ url, markdown: (await page.content()).length })}\n`);
      }
    };
    await Promise.all(Array.from({ length: FLOOR_TABS }, tab));
  } finally {
    await browser.close();
  }
}

// ---------------------------------------------------------------- the parent

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fixed = (value: number, digits = 1) => value.toFixed(digits);

function webjobsArgs(engine: 'http' | 'browser', name: string, bin = BIN): string[] {
  const dir = process.env.WEBJOBS_BENCH_CPU_PROF;
  const prof = dir ? ['--cpu-prof', '--cpu-prof-dir', path.join(path.resolve(dir), name)] : [];
  return [...prof, bin, 'batch', '-', '--engine', engine, '--jsonl'];
}

const BASE_BIN = process.env.WEBJOBS_BENCH_BASE ? path.join(path.resolve(process.env.WEBJOBS_BENCH_BASE), 'bin', 'webjobs.js') : undefined;

/** The build before, in its turn of the round: its figures, and this build's against them. */
function compareBase(label: string, base: Run[], ours: Run[]): void {
  if (base.length === 0) return;
  const rate = (r: Run) => r.pages / r.seconds;
  const each = ours.map((r, i) => `${fixed(base[i]!.cpuMs / base[i]!.pages)} -> ${fixed(r.cpuMs / r.pages)}`).join(', ');
  console.log(
    `${label}: base -> this build, CPU ms/page ${each}; median CPU ratio ${fixed(median(ours.map((r, i) => r.cpuMs / base[i]!.cpuMs)), 3)}, ` +
      `median pages/s ratio ${fixed(median(ours.map((r, i) => rate(r) / rate(base[i]!))), 3)}`,
  );
}

async function withHome<T>(run: (home: string) => Promise<T>): Promise<T> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-pipeline-'));
  try {
    return await run(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function httpComparison(rounds: number): Promise<void> {
  const set = loadArticles(articlesDir());
  if (!set) {
    console.log('181 pages: skipped (npm run bench:fetch-aeb, or WEBJOBS_BENCH_DATA)');
    return;
  }
  const server = await startServer(set.htmlDir);
  const ids = set.pages.map((page) => page.id);
  const urls = ids.map((id) => `${server.base}/${id}.html`);
  const input = urls.map((url) => `${url}\n`).join('');
  const cores = os.availableParallelism();
  const runs: Record<'base' | 'webjobs' | 'cheerio' | 'bare', Run[]> = { base: [], webjobs: [], cheerio: [], bare: [] };
  try {
    console.log(`181 article pages on ${server.base}; ${cores} cores; ${rounds} rounds, in turn (load ${os.loadavg().map((l) => fixed(l)).join(' ')})`);
    for (let round = 1; round <= rounds; round++) {
      if (BASE_BIN) runs.base.push(await withHome((home) => measured(webjobsArgs('http', `base-http-${round}`, BASE_BIN), input, { WEBJOBS_HOME: home }, ids.length, lines(ids.length, 'base'))));
      runs.webjobs.push(await withHome((home) => measured(webjobsArgs('http', `http-${round}`), input, { WEBJOBS_HOME: home }, ids.length, lines(ids.length, 'webjobs'))));
      runs.cheerio.push(await measured([SELF, '--peer', 'cheerio'], input, { CRAWLEE_LOG_LEVEL: 'ERROR' }, ids.length, lines(ids.length, 'cheerio')));
      runs.bare.push(await measured([SELF, '--peer', 'bare', set.htmlDir], ids.join('\n'), {}, ids.length, lines(ids.length, 'bare')));
      const [w, c, b] = [runs.webjobs.at(-1)!, runs.cheerio.at(-1)!, runs.bare.at(-1)!];
      const limit = (1000 / (b.cpuMs / b.pages)) * cores;
      console.log(
        `  #${round} webjobs ${fixed(w.pages / w.seconds)} pages/s, ${fixed(w.cpuMs / w.pages)} CPU ms/page | cheerio ${fixed(c.pages / c.seconds)} pages/s, ` +
          `${fixed(c.cpuMs / c.pages)} CPU ms/page | bare ${fixed(b.cpuMs / b.pages)} CPU ms/page (limit ${fixed(limit)} pages/s) | ` +
          `webjobs/limit ${fixed(w.pages / w.seconds / limit, 2)}, webjobs/cheerio ${fixed(c.seconds / w.seconds, 2)}x, tree CPU/bare ${fixed(w.cpuMs / b.cpuMs, 2)}x`,
      );
    }
    const rate = (r: Run) => r.pages / r.seconds;
    const perPage = (r: Run) => r.cpuMs / r.pages;
    const limits = runs.bare.map((b) => (1000 / perPage(b)) * cores);
    console.log(
      `median: webjobs ${fixed(median(runs.webjobs.map(rate)))} pages/s, ${fixed(median(runs.webjobs.map(perPage)))} CPU ms/page; ` +
        `cheerio ${fixed(median(runs.cheerio.map(rate)))} pages/s, ${fixed(median(runs.cheerio.map(perPage)))} CPU ms/page; ` +
        `bare ${fixed(median(runs.bare.map(perPage)))} CPU ms/page, limit ${fixed(median(limits))} pages/s`,
    );
    console.log(
      `ratios (median of the rounds' pairs): webjobs/limit ${fixed(median(runs.webjobs.map((w, i) => rate(w) / limits[i]!)), 2)} (goal >= 0.8), ` +
        `webjobs/cheerio ${fixed(median(runs.webjobs.map((w, i) => rate(w) / rate(runs.cheerio[i]!))), 2)}x (goal >= 1.5), ` +
        `tree CPU/bare ${fixed(median(runs.webjobs.map((w, i) => w.cpuMs / runs.bare[i]!.cpuMs)), 2)}x (goal <= 1.3)`,
    );
    compareBase('http', runs.base, runs.webjobs);
    const byCpu = (list: Run[]) => [...list].sort((a, b) => a.cpuMs - b.cpuMs)[Math.floor(list.length / 2)]!;
    const workers = Math.min(4, cores);
    console.log(`where the CPU went, ms a page (each one's median round by CPU):`);
    console.log(`  webjobs: ${breakdown(byCpu(runs.webjobs), workers)}`);
    console.log(`  cheerio: ${breakdown(byCpu(runs.cheerio), 0)}`);
    console.log(`  bare:    ${breakdown(byCpu(runs.bare), 0)}`);
  } finally {
    await server.close();
  }
}

async function browserComparison(rounds: number): Promise<void> {
  const server = http.createServer((req, res) => {
    const match = /^\/article\/(\d+)$/.exec(req.url ?? '');
    if (!match) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const body = articlePage(Number(match[1]));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  server.keepAliveTimeout = 30_000;
  const site = await listenOnLoopback(server);
  const count = Number(process.env.WEBJOBS_BENCH_PAGES) || 200;
  const input = Array.from({ length: count }, (_, i) => `${site.base}/article/${i}\n`).join('');
  const runs: Record<'base' | 'browser' | 'floor', Run[]> = { base: [], browser: [], floor: [] };
  try {
    console.log(`${count} plain article pages on ${site.base}; Chromium ${CHROMIUM}; ${rounds} rounds, in turn (load ${os.loadavg().map((l) => fixed(l)).join(' ')})`);
    for (let round = 1; round <= rounds; round++) {
      if (BASE_BIN) runs.base.push(await withHome((home) => measured(webjobsArgs('browser', `base-browser-${round}`, BASE_BIN), input, { WEBJOBS_HOME: home }, count, lines(count, 'base'))));
      runs.browser.push(await withHome((home) => measured(webjobsArgs('browser', `browser-${round}`), input, { WEBJOBS_HOME: home }, count, lines(count, 'webjobs'))));
      runs.floor.push(await measured([SELF, '--peer', 'floor'], input, {}, count, lines(count, 'floor')));
      const [w, f] = [runs.browser.at(-1)!, runs.floor.at(-1)!];
      console.log(
        `  #${round} webjobs ${fixed(w.pages / w.seconds)} pages/s, ${fixed(w.cpuMs / w.pages)} CPU ms/page | floor ${fixed(f.pages / f.seconds)} pages/s, ` +
          `${fixed(f.cpuMs / f.pages)} CPU ms/page | webjobs/floor ${fixed(f.seconds / w.seconds, 2)}x, CPU ${fixed(w.cpuMs / f.cpuMs, 2)}x`,
      );
    }
    const rate = (r: Run) => r.pages / r.seconds;
    console.log(
      `median: webjobs ${fixed(median(runs.browser.map(rate)))} pages/s, ${fixed(median(runs.browser.map((r) => r.cpuMs / r.pages)))} CPU ms/page; ` +
        `floor ${fixed(median(runs.floor.map(rate)))} pages/s, ${fixed(median(runs.floor.map((r) => r.cpuMs / r.pages)))} CPU ms/page; ` +
        `webjobs/floor ${fixed(median(runs.browser.map((w, i) => rate(w) / rate(runs.floor[i]!))), 2)}x (goal >= 1.0), ` +
        `CPU ${fixed(median(runs.browser.map((w, i) => w.cpuMs / runs.floor[i]!.cpuMs)), 2)}x`,
    );
    compareBase('browser', runs.base, runs.browser);
    const byCpu = (list: Run[]) => [...list].sort((a, b) => a.cpuMs - b.cpuMs)[Math.floor(list.length / 2)]!;
    console.log(`where the CPU went, ms a page (each one's median round by CPU; Chromium's processes are the child processes):`);
    console.log(`  webjobs: ${breakdown(byCpu(runs.browser), 0)}`);
    console.log(`  floor:   ${breakdown(byCpu(runs.floor), 0)}`);
    const split = (run: Run, entries: [string, number][]) => entries.map(([key, ms]) => `${key} ${fixed(ms / run.pages)}`).join(', ');
    const medians = ([['base', runs.base], ['webjobs', runs.browser], ['floor', runs.floor]] as const)
      .filter(([, list]) => list.length > 0)
      .map(([name, list]) => [name.padEnd(8), byCpu(list)] as const);
    console.log(`Chromium's processes by type, ms a page (median round by CPU):`);
    for (const [name, run] of medians) console.log(`  ${name} ${split(run, run.chromium.byKind())}`);
    if (process.env.WEBJOBS_BENCH_THREADS) {
      console.log(`Chromium's threads, ms a page (median round by CPU; 1 and more):`);
      for (const [name, run] of medians) console.log(`  ${name} ${split(run, run.chromium.byThread().filter(([, ms]) => ms / run.pages >= 1))}`);
    }
  } finally {
    await site.close();
  }
}

async function readStdin(): Promise<string[]> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.split('\n').filter(Boolean);
}

if (process.argv[2] === '--peer') {
  const peer = process.argv[3];
  const input = await readStdin();
  if (peer === 'cheerio') await cheerioPeer(input);
  else if (peer === 'bare') await barePeer(process.argv[4]!, input);
  else if (peer === 'floor') await floorPeer(input);
  // Crawlee leaves timers behind; the work is done.
  process.exit(0);
} else {
  const rounds = Math.max(1, Number(process.env.WEBJOBS_BENCH_ROUNDS) || 3);
  const only = (process.env.WEBJOBS_BENCH_ONLY ?? 'http,browser').split(',');
  if (only.includes('http')) await httpComparison(rounds);
  if (only.includes('browser')) await browserComparison(rounds);
}
