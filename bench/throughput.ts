/**
 * Throughput and memory benchmark (npm run bench). Serves a generated site of
 * article pages on 127.0.0.1 and scrapes the same URLs with:
 *   webjobs   a batch job through LocalBackend (Markdown produced, stored on disk)
 *   crawlee   Crawlee's PuppeteerCrawler, same Chromium and flags, page.content()
 *   floor     bare Puppeteer: one browser, reused tabs, goto + content()
 *   webjobs-nosettle  webjobs without the settle wait (settle.ts), to price that wait
 *   webjobs-auto  the same batch with --engine auto (the default): these static pages go over HTTP
 * ("webjobs" itself runs with --engine browser, so that it stays comparable to the browser contenders).
 * Each contender runs in its own child process, so peak RSS (the child and its
 * Chromium processes, summed from /proc) is its own. Then a memory check: a
 * 1,000-URL batch against a 100-URL batch; then `webjobs map` of a 2,000-URL
 * site and a batch re-run with --max-age (mapCache.ts).
 *
 * Then the engines (issue 13), in the same run:
 * - a cold `webjobs scrape` of a static page, engine auto vs browser: wall time of
 *   the CLI process, median of WEBJOBS_BENCH_COLD_RUNS (5) runs each, in turn, with
 *   `node -e 0` in the same turns as the floor;
 * - a batch of 200 static article pages, auto vs browser: pages/s and peak RSS;
 * - a mixed batch (every fifth page written by its script into an empty #root):
 *   pages/s, which engine read how many pages, and a check that every
 *   script-rendered page has its content.
 *
 *   WEBJOBS_BENCH_PAGES=240          pages per throughput run
 *   WEBJOBS_BENCH_CONCURRENCY=n      tabs for webjobs and the floor (default: defaultConcurrency())
 *   WEBJOBS_BENCH_ONLY=webjobs,floor contenders to run (empty: only the memory check)
 *   WEBJOBS_BENCH_ROUNDS=3           run the contenders in turn 3 times; compare their medians
 *   WEBJOBS_BENCH_SCRIPTS=1          pages carry the small scripts most static sites have
 *   WEBJOBS_BENCH_MEMORY=0           skip the memory check
 *   WEBJOBS_BENCH_ENGINES=0          skip the engine lines (=cold: only the cold scrape)
 *   WEBJOBS_BENCH_MAP_CACHE=0        skip the map and --max-age lines (mapCache.ts)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenOnLoopback, type LoopbackServer } from './loopback.js';
import { benchMapAndCache } from './mapCache.js';
import { treeRss } from './procTree.js';
import { articlePage } from './site.js';
import type { EngineName } from '../src/api/types.js';

const SELF = fileURLToPath(import.meta.url);
import { BIN } from './paths.js';
const CHROMIUM = process.env.WEBJOBS_CHROME ?? '/usr/bin/chromium';

// ---------------------------------------------------------------- the site

/**
 * What a static site's pages commonly carry: an analytics snippet and a script that
 * touches the DOM once parsed (a cookie notice). A page without scripts skips the
 * settle wait altogether; these pages show what it costs when it cannot.
 */
const PAGE_SCRIPTS = `<script>window.dataLayer = window.dataLayer || []; dataLayer.push({ event: 'pageview', t: Date.now() });</script>
<script>document.addEventListener('DOMContentLoaded', () => {
  document.body.classList.add('js');
  const notice = document.createElement('div');
  notice.className = 'cookie-notice';
  notice.textContent = 'This site uses cookies.';
  document.body.append(notice);
});</script>`;

function scriptedPage(n: number): string {
  return articlePage(n).replace('</body>', `${PAGE_SCRIPTS}</body>`);
}

/** What a script-rendered page shows only once its script ran: a marker the mixed batch checks for. */
const RENDERED_MARK = 'written into the page by its script';

/** An application shell: an empty #root that its script fills with the article. */
function renderedPage(n: number): string {
  const article = /<article>[\s\S]*<\/article>/.exec(articlePage(n))![0].replace('<h1>', `<p>${RENDERED_MARK}.</p><h1>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>App ${n}</title></head><body><div id="root"></div>
<script>document.getElementById('root').innerHTML = ${JSON.stringify(article).replace(/</g, '\\u003c')};</script></body></html>`;
}

async function startSite(): Promise<LoopbackServer> {
  const server = http.createServer((req, res) => {
    const match = /^\/(article|scripted|rendered)\/(\d+)$/.exec(req.url ?? '');
    if (!match) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const n = Number(match[2]);
    const body = match[1] === 'scripted' ? scriptedPage(n) : match[1] === 'rendered' ? renderedPage(n) : articlePage(n);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 30_000;
  return listenOnLoopback(server);
}

// ---------------------------------------------------------------- contenders (run in a child)

type Contender = 'webjobs' | 'webjobs-auto' | 'webjobs-nosettle' | 'crawlee' | 'floor';

function concurrency(defaultValue: number): number {
  return Number(process.env.WEBJOBS_BENCH_CONCURRENCY) || defaultValue;
}

/** A webjobs batch with `engine`; every page must have its Markdown (a script-rendered page, its script's text). */
async function runWebjobs(urls: string[], engine: EngineName = 'browser'): Promise<ChildResult> {
  const { LocalBackend } = await import('../src/local/localBackend.js');
  const { FileJobStore } = await import('../src/store/fileStore.js');
  const { defaultConcurrency } = await import('../src/engine/browser/browser.js');
  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-'));
  const backend = new LocalBackend({ store: new FileJobStore(home) });
  try {
    const started = Date.now();
    const { jobId } = await backend.start('batch', {
      urls,
      scrapeOptions: { formats: ['markdown'], engine },
      concurrency: concurrency(defaultConcurrency()),
    });
    const status = await backend.wait('batch', jobId);
    const elapsed = Date.now() - started;
    // Checked one result batch at a time, as the CLI reads: holding all entries would inflate the peak RSS measured.
    let ok = 0;
    const engines: Record<string, number> = {};
    for (let page = 1; page <= Math.ceil(urls.length / 100); page++) {
      const record = await backend.result('batch', jobId, { page, batchSize: 100 });
      for (const entry of record.data) {
        const markdown = entry.markdown ?? '';
        const rendered = entry.url.includes('/rendered/');
        if (entry.status === 'completed' && markdown.length > 500 && (!rendered || markdown.includes(RENDERED_MARK))) ok++;
        const name = entry.metadata?.engine ?? 'none';
        engines[name] = (engines[name] ?? 0) + 1;
      }
    }
    if (status !== 'completed' || ok !== urls.length) throw new Error(`webjobs: ${status}, ${ok}/${urls.length} pages with their content`);
    return { elapsedMs: elapsed, engines };
  } finally {
    await backend.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function runFloor(urls: string[]): Promise<ChildResult> {
  const { launchBrowser, defaultConcurrency } = await import('../src/engine/browser/browser.js');
  const started = Date.now();
  const browser = await launchBrowser({ env: { ...process.env, WEBJOBS_CHROME: CHROMIUM } });
  try {
    let next = 0;
    let bytes = 0;
    const tab = async () => {
      const page = await browser.newPage();
      while (next < urls.length) {
        await page.goto(urls[next++]!, { waitUntil: 'load' });
        bytes += (await page.content()).length;
      }
    };
    await Promise.all(Array.from({ length: concurrency(defaultConcurrency()) }, tab));
    if (bytes === 0) throw new Error('floor: no content');
    return { elapsedMs: Date.now() - started };
  } finally {
    await browser.close();
  }
}

async function runCrawlee(urls: string[]): Promise<ChildResult> {
  const storage = mkdtempSync(path.join(os.tmpdir(), 'crawlee-bench-'));
  process.env.CRAWLEE_STORAGE_DIR = storage;
  const { PuppeteerCrawler, Configuration } = await import('@crawlee/puppeteer');
  const puppeteer = (await import('puppeteer')).default;
  const { launchArgs } = await import('../src/engine/browser/browser.js');
  let done = 0;
  const started = Date.now();
  const crawler = new PuppeteerCrawler(
    {
      launchContext: { launcher: puppeteer, launchOptions: { executablePath: CHROMIUM, headless: true, args: launchArgs() } },
      maxRequestRetries: 0,
      requestHandlerTimeoutSecs: 60,
      async requestHandler({ page }) {
        if ((await page.content()).length > 0) done++;
      },
    },
    new Configuration({ persistStorage: false, storageClientOptions: { localDataDirectory: storage } }),
  );
  // uniqueKey: the memory check repeats URLs; Crawlee would otherwise de-duplicate them.
  await crawler.run(urls.map((url, i) => ({ url, uniqueKey: `${i}:${url}` })));
  const elapsed = Date.now() - started;
  rmSync(storage, { recursive: true, force: true });
  if (done !== urls.length) throw new Error(`crawlee: ${done}/${urls.length} pages`);
  return { elapsedMs: elapsed };
}

interface ChildResult {
  elapsedMs: number;
  /** metadata.engine of the pages: how many each engine read. */
  engines?: Record<string, number>;
}

// webjobs-nosettle is the same runner; measure() turns the settle wait off in its process.
const RUNNERS: Record<Contender, (urls: string[]) => Promise<ChildResult>> = {
  webjobs: (urls) => runWebjobs(urls, 'browser'),
  'webjobs-auto': (urls) => runWebjobs(urls, 'auto'),
  'webjobs-nosettle': (urls) => runWebjobs(urls, 'browser'),
  crawlee: runCrawlee,
  floor: runFloor,
};

/** The child's environment: the URLs, quiet logs, and WEBJOBS_SETTLE=0 only for webjobs-nosettle. */
function childEnv(contender: Contender, urls: string[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, WEBJOBS_BENCH_URLS: JSON.stringify(urls), CRAWLEE_LOG_LEVEL: 'ERROR', APIFY_LOG_LEVEL: 'ERROR' };
  delete env.WEBJOBS_SETTLE;
  if (contender === 'webjobs-nosettle') env.WEBJOBS_SETTLE = '0';
  return env;
}

async function child(contender: Contender): Promise<void> {
  const urls = JSON.parse(process.env.WEBJOBS_BENCH_URLS!) as string[];
  const result = await RUNNERS[contender](urls);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // Crawlee leaves timers behind; the measurement is done.
  process.exit(0);
}

// ---------------------------------------------------------------- the parent

interface Measured {
  pages: number;
  elapsedMs: number;
  pagesPerSecond: number;
  peakRss: number;
  engines?: Record<string, number>;
}

function measure(contender: Contender, urls: string[]): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [SELF, '--child', contender], {
      env: childEnv(contender, urls),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    let peakRss = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, treeRss(proc.pid!));
    }, 100);
    proc.stdout.on('data', (d) => (out += d));
    proc.on('error', reject);
    proc.on('close', (code) => {
      clearInterval(sampler);
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) {
        reject(new Error(`${contender} exited with ${code}: ${out.slice(-500)}`));
        return;
      }
      const { elapsedMs, engines } = JSON.parse(line) as ChildResult;
      resolve({ pages: urls.length, elapsedMs, pagesPerSecond: urls.length / (elapsedMs / 1000), peakRss, engines });
    });
  });
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/**
 * The settle wait's price: webjobs against itself without the wait, round by round.
 * The two run next to each other in each round, so the ratio of a pair sees the
 * same load from the rest of the machine; the median pair is the figure.
 */
function printSettleCost(withSettle: Measured[], without: Measured[]): void {
  const ratios = withSettle.map((m, i) => m.pagesPerSecond / without[i]!.pagesPerSecond).sort((a, b) => a - b);
  const ratio = ratios[Math.floor(ratios.length / 2)]!;
  const each = ratios.length > 1 ? `; pairs ${ratios.map((r) => r.toFixed(2)).join(' ')}` : '';
  console.log(`webjobs / webjobs-nosettle = ${ratio.toFixed(2)}x   (settle wait costs ${((1 - ratio) * 100).toFixed(1)}% of throughput${each}; target < 10%)`);
}

/** The round with the median throughput. */
function median(measured: Measured[]): Measured {
  const sorted = [...measured].sort((a, b) => a.pagesPerSecond - b.pagesPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Wall time of one `webjobs scrape` process, from spawn to exit, with a fresh home. */
function coldScrape(url: string, engine: EngineName): Promise<number> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-cold-'));
  const started = performance.now();
  return new Promise<number>((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, 'scrape', url, '--engine', engine], { env: { ...process.env, WEBJOBS_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.on('error', reject);
    proc.on('close', (code) => {
      const ms = performance.now() - started;
      rmSync(home, { recursive: true, force: true });
      if (code !== 0 || out.length < 500) reject(new Error(`cold scrape with --engine ${engine} exited with ${code}`));
      else resolve(ms);
    });
  });
}

/** Wall time of `node -e 0`: Node's own start, the floor under any cold run of the CLI. */
function nodeStart(): Promise<number> {
  const started = performance.now();
  return new Promise<number>((resolve, reject) => {
    const proc = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    proc.on('error', reject);
    proc.on('close', () => resolve(performance.now() - started));
  });
}

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The engine lines of issue 13: cold scrape, a batch of 200 static pages, a mixed batch. */
async function engineLines(base: string): Promise<void> {
  const runs = Math.max(1, Number(process.env.WEBJOBS_BENCH_COLD_RUNS) || 5);
  const cold: Record<'auto' | 'browser' | 'node', number[]> = { auto: [], browser: [], node: [] };
  for (let i = 0; i < runs; i++) {
    for (const engine of ['auto', 'browser'] as const) cold[engine].push(await coldScrape(`${base}/article/${i}`, engine));
    cold.node.push(await nodeStart());
  }
  const [auto, browser, node] = [medianOf(cold.auto), medianOf(cold.browser), medianOf(cold.node)];
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `cold scrape: auto ${seconds(auto)}, browser ${seconds(browser)}, \`node -e 0\` ${seconds(node)} (medians of ${runs}, in turn), ` +
      `auto / browser = ${(auto / browser).toFixed(2)}x   (goal <= 0.5 s and <= 0.3x)`,
  );
  if (process.env.WEBJOBS_BENCH_ENGINES === 'cold') return;
  const statics = Array.from({ length: 200 }, (_, i) => `${base}/article/${i}`);
  const byEngine: Partial<Record<'auto' | 'browser', Measured>> = {};
  for (const [engine, contender] of [['browser', 'webjobs'], ['auto', 'webjobs-auto']] as const) {
    const m = await measure(contender, statics);
    byEngine[engine] = m;
    console.log(`batch of 200 static pages, ${engine.padEnd(7)} ${m.pagesPerSecond.toFixed(1).padStart(6)} pages/s, peak RSS ${mb(m.peakRss)}`);
  }
  const a = byEngine.auto!;
  const b = byEngine.browser!;
  console.log(
    `auto / browser: ${(a.pagesPerSecond / b.pagesPerSecond).toFixed(2)}x pages/s (goal >= 2x), ${(a.peakRss / b.peakRss).toFixed(2)}x peak RSS (goal <= 0.5x)`,
  );
  const mixed = Array.from({ length: 200 }, (_, i) => (i % 5 === 4 ? `${base}/rendered/${i}` : `${base}/article/${i}`));
  const m = await measure('webjobs-auto', mixed);
  const engines = Object.entries(m.engines ?? {}).map(([name, count]) => `${count} by ${name}`).join(', ');
  console.log(
    `mixed batch of 200 (40 script-rendered), auto: ${m.pagesPerSecond.toFixed(1)} pages/s, peak RSS ${mb(m.peakRss)}; ${engines}; ` +
      'every script-rendered page has its content',
  );
}

function urlsFor(base: string, count: number, distinct = count): string[] {
  const kind = process.env.WEBJOBS_BENCH_SCRIPTS === '1' ? 'scripted' : 'article';
  return Array.from({ length: count }, (_, i) => `${base}/${kind}/${i % distinct}`);
}

async function parent(): Promise<void> {
  const pages = Number(process.env.WEBJOBS_BENCH_PAGES) || 240;
  const roundCount = Math.max(1, Number(process.env.WEBJOBS_BENCH_ROUNDS) || 1);
  const only = (process.env.WEBJOBS_BENCH_ONLY ?? 'floor,webjobs,webjobs-auto,crawlee').split(',').filter((name): name is Contender => name in RUNNERS);
  const site = await startSite();
  const results: Partial<Record<Contender, Measured>> = {};
  try {
    const kind = process.env.WEBJOBS_BENCH_SCRIPTS === '1' ? 'article pages with scripts' : 'article pages (no scripts)';
    console.log(`Site: ${pages} ${kind} at ${site.base}; ${os.availableParallelism()} CPUs; Chromium ${CHROMIUM}`);
    // Rounds run the contenders in turn, so a load spike on a shared machine hits all of them alike;
    // each contender's median round is the one compared.
    const rounds: Partial<Record<Contender, Measured[]>> = {};
    for (let round = 1; round <= roundCount; round++) {
      for (const contender of only) {
        const m = await measure(contender, urlsFor(site.base, pages));
        (rounds[contender] ??= []).push(m);
        const label = roundCount > 1 ? `${contender} #${round}` : contender;
        console.log(`${label.padEnd(19)} ${m.pagesPerSecond.toFixed(1).padStart(6)} pages/s  (${m.pages} pages in ${(m.elapsedMs / 1000).toFixed(1)} s, peak RSS ${mb(m.peakRss)})`);
      }
    }
    for (const contender of only) results[contender] = median(rounds[contender]!);
    if (roundCount > 1) {
      for (const contender of only) console.log(`median ${contender.padEnd(16)} ${results[contender]!.pagesPerSecond.toFixed(1).padStart(6)} pages/s`);
    }
    const { webjobs, crawlee, floor, 'webjobs-nosettle': noSettle } = results;
    if (webjobs && crawlee) console.log(`webjobs / crawlee = ${(webjobs.pagesPerSecond / crawlee.pagesPerSecond).toFixed(2)}x   (target >= 3x)`);
    if (webjobs && floor) console.log(`webjobs / floor   = ${(webjobs.pagesPerSecond / floor.pagesPerSecond).toFixed(2)}x   (target >= 0.8x)`);
    if (results['webjobs-auto'] && webjobs) {
      console.log(`webjobs-auto / webjobs = ${(results['webjobs-auto'].pagesPerSecond / webjobs.pagesPerSecond).toFixed(2)}x   (auto reads these static pages over HTTP)`);
    }
    if (noSettle && floor) console.log(`webjobs-nosettle / floor = ${(noSettle.pagesPerSecond / floor.pagesPerSecond).toFixed(2)}x`);
    if (rounds.webjobs && rounds['webjobs-nosettle']) printSettleCost(rounds.webjobs, rounds['webjobs-nosettle']);
    if (process.env.WEBJOBS_BENCH_MEMORY !== '0') {
      const small = await measure('webjobs', urlsFor(site.base, 100));
      const large = await measure('webjobs', urlsFor(site.base, 1000));
      console.log(
        `memory: batch of 100 peak RSS ${mb(small.peakRss)}, batch of 1000 peak RSS ${mb(large.peakRss)}, ratio ${(large.peakRss / small.peakRss).toFixed(2)}   (target <= 1.2)`,
      );
    }
    if (process.env.WEBJOBS_BENCH_ENGINES !== '0') await engineLines(site.base);
    if (process.env.WEBJOBS_BENCH_MAP_CACHE !== '0') await benchMapAndCache(site.base);
  } finally {
    await site.close();
  }
}

if (process.argv[2] === '--child') {
  await child(process.argv[3] as Contender);
} else {
  await parent();
}
