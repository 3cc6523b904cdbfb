/**
 * npm run bench:actions: what page actions (issue 53) cost a scrape without
 * actions, which must not grow. The same loopback article is scraped in Chromium
 * (--engine browser) by this build and by a previous one (WEBJOBS_BENCH_BASE, a
 * git ref; default: the merge base with main), built into a temporary folder from
 * `git archive`, in the same run: rounds alternate between the two, each build
 * with a browser of its own, and the median milliseconds per page of each and
 * their ratio are printed. Then, for scale, the same page with one scroll action.
 *
 * Knobs: WEBJOBS_BENCH_BASE (git ref), WEBJOBS_BENCH_ROUNDS (default 7),
 * WEBJOBS_BENCH_PAGES (pages per round and build, default 10).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { listenOnLoopback } from './loopback.js';
import { REPO_ROOT } from './paths.js';
import { articlePage } from './site.js';

interface EngineLike {
  scrape(url: string, options?: Record<string, unknown>): Promise<{ markdown?: string }>;
  close(): Promise<void>;
}
type EngineClass = new (settings: { env: NodeJS.ProcessEnv }) => EngineLike;

const ROUNDS = Number(process.env.WEBJOBS_BENCH_ROUNDS ?? 7);
const PAGES = Number(process.env.WEBJOBS_BENCH_PAGES ?? 10);

function git(...args: string[]): string {
  return execFileSync('git', ['-C', REPO_ROOT, ...args], { encoding: 'utf8' }).trim();
}

/** The previous build: `ref`'s files, built with this checkout's node_modules. */
function buildBase(ref: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-base-'));
  execFileSync('bash', ['-c', `git -C "${REPO_ROOT}" archive "${ref}" | tar -x -C "${dir}"`]);
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  execFileSync(process.execPath, ['scripts/build-page-script.mjs'], { cwd: dir, stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: dir, stdio: 'inherit' });
  return dir;
}

async function engineOf(root: string): Promise<EngineLike> {
  const module = (await import(pathToFileURL(path.join(root, 'dist', 'engine', 'engine.js')).href)) as { BrowserEngine: EngineClass };
  return new module.BrowserEngine({ env: process.env });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timePages(engine: EngineLike, base: string, options: Record<string, unknown>, offset: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < PAGES; i++) {
    const page = await engine.scrape(`${base}/article/${offset + i}`, { engine: 'browser', ...options });
    if (!page.markdown) throw new Error('bench: a page came back without Markdown');
  }
  return (performance.now() - started) / PAGES;
}

async function main(): Promise<void> {
  const ref = process.env.WEBJOBS_BENCH_BASE ?? git('merge-base', 'HEAD', 'main');
  const commit = git('rev-parse', '--short', ref);
  process.stderr.write(`bench:actions: building ${ref} (${commit}) for comparison...\n`);
  const baseDir = buildBase(ref);
  const server = http.createServer((req, res) => {
    const n = Number(/\/article\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(articlePage(n));
  });
  const site = await listenOnLoopback(server);
  const before = await engineOf(baseDir);
  const after = await engineOf(REPO_ROOT);
  try {
    // Warm-up: each browser started and its first tabs made.
    await timePages(before, site.base, {}, 0);
    await timePages(after, site.base, {}, 0);
    const times = { before: [] as number[], after: [] as number[], scroll: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const offset = (round + 1) * PAGES;
      // Alternating which goes first, so that neither always meets the machine as the other left it.
      const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const which of order) times[which].push(await timePages(which === 'before' ? before : after, site.base, {}, offset));
      times.scroll.push(await timePages(after, site.base, { actions: [{ type: 'scroll', direction: 'down' }] }, offset));
    }
    const b = median(times.before);
    const a = median(times.after);
    const load = os.loadavg()[0]!.toFixed(1);
    console.log(`A scrape without actions, ${ROUNDS} rounds of ${PAGES} pages in Chromium (load ${load}):`);
    console.log(`  before (${commit}): ${b.toFixed(1)} ms/page   rounds: ${times.before.map((t) => t.toFixed(0)).join(' ')}`);
    console.log(`  after  (this build): ${a.toFixed(1)} ms/page   rounds: ${times.after.map((t) => t.toFixed(0)).join(' ')}`);
    console.log(`  ratio after/before: ${(a / b).toFixed(3)}`);
    console.log(`With one scroll action (this build): ${median(times.scroll).toFixed(1)} ms/page`);
  } finally {
    await before.close();
    await after.close();
    await site.close();
    rmSync(baseDir, { recursive: true, force: true });
  }
}

await main();
