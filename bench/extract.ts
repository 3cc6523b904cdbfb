/**
 * Extraction speed (issue 44): the CPU the HTTP engine's extraction takes per page (parse, main content,
 * Markdown, metadata and links: extractInNode, what each worker thread runs), against the floor measured
 * in the same run on the same pages: linkedom's parse, Readability and turndown with GFM, on one thread with
 * nothing else. Prints, per page set, the median and p95 CPU ms per page of each, their ratio, the peak RSS
 * of this process, and the slowest pages with the passes that took their time (--explain's timing); for the
 * 181 pages, the peak RSS and CPU of the built CLI's `webjobs batch - --engine http` over them (cliBatch.ts).
 *
 *   npm run bench:extract
 *
 * Sets as bench:quality finds them (the 181 pages: .bench-data/aeb or WEBJOBS_BENCH_DATA; WCXB dev: .bench-data/wcxb or
 * WEBJOBS_BENCH_WCXB); WEBJOBS_BENCH_SAMPLE=N takes N WCXB pages (every k-th of each type).
 * Two ratios. "Alone": each producer runs the set in a process of its own (as the engine's extraction runs in
 * worker threads of its own), twice each, in turn, and a page's figure is the lower of its two; this is the
 * goal's figure. "Interleaved": one thread, each producer on a page right after the other, which holds on a
 * busy machine but shares one heap, so that the collection of either's garbage is timed to whichever allocates
 * next (on the 181 pages it reads ours about 15% slower and the floor 7% faster than alone).
 * The floor reads linkedom's package entry, a module of its own: the engine's patches of 'linkedom/worker'
 * (nodeDom.ts: selector cache, listener registry) must not speed the floor up too.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import { cliBatch } from './cliBatch.js';
import { REPO_ROOT } from './paths.js';
import { articlesDir, loadArticles, loadWcxbDev, pageHtml, sampleByType, type BenchSet } from './sets.js';
import { extractInNode } from '../src/engine/content/inNode.js';
import type { InPageOptions } from '../src/engine/content/inPage.js';

const OPTIONS: InPageOptions = { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: true };

function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The floor: linkedom, Readability and turndown (gfm), nothing else. */
function floor(html: string): void {
  const { document } = parseHTML(html);
  let article: ReturnType<Readability['parse']> = null;
  try {
    article = new Readability(document as unknown as Document).parse();
  } catch {
    // A few WCXB pages stock linkedom leaves with content outside any <body>, where Readability throws
    // (the engine moves it into the body first, nodeDom.ts parseAsBrowser): the floor's cost is what it spent.
  }
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  service.use(gfm);
  try {
    if (article?.content) service.turndown(article.content);
  } catch {
    // The GFM plugin throws on a few WCXB pages' tables as stock linkedom parses them (a row without a
    // parent): the floor's cost is what it spent, and the run goes on.
  }
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

/** Which producer a child process of this bench runs alone, over the pages of the set file it is given. */
const SIDE = process.env.WEBJOBS_BENCH_SIDE as 'ours' | 'floor' | undefined;
const PRODUCERS = { ours: (html: string, url: string) => void extractInNode(html, url, OPTIONS), floor: (html: string) => floor(html) };

/** In a child process: CPU ms of each page of the set file, on stdout as JSON. */
function runSide(side: 'ours' | 'floor', setFile: string): void {
  const { htmlDir, ids } = JSON.parse(readFileSync(setFile, 'utf8')) as { htmlDir: string; ids: string[] };
  const produce = PRODUCERS[side];
  const ms = ids.map((id) => {
    const html = pageHtml(htmlDir, id);
    return cpuMs(() => produce(html, `http://127.0.0.1/${id}.html`));
  });
  process.stdout.write(JSON.stringify(ms));
}

/** Each page's CPU ms with each producer alone in a process, twice each in turn: the lower of a page's two. */
function alone(set: BenchSet): { ours: number[]; floor: number[] } {
  const dir = mkdtempSync(path.join(tmpdir(), 'webjobs-bench-extract-'));
  try {
    const setFile = path.join(dir, 'set.json');
    writeFileSync(setFile, JSON.stringify({ htmlDir: set.htmlDir, ids: set.pages.map((page) => page.id) }));
    const run = (side: 'ours' | 'floor') =>
      JSON.parse(
        execFileSync(process.execPath, [fileURLToPath(import.meta.url), setFile], { env: { ...process.env, WEBJOBS_BENCH_SIDE: side }, maxBuffer: 64 * 2 ** 20, encoding: 'utf8' }),
      ) as number[];
    const [ours1, floor1, ours2, floor2] = [run('ours'), run('floor'), run('ours'), run('floor')];
    return { ours: ours1.map((ms, i) => Math.min(ms, ours2[i]!)), floor: floor1.map((ms, i) => Math.min(ms, floor2[i]!)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const perPage = (values: number[]) =>
  `median ${quantile(values, 0.5).toFixed(1)}, p95 ${quantile(values, 0.95).toFixed(1)}, mean ${(sum(values) / Math.max(1, values.length)).toFixed(1)}`;

function runSet(set: BenchSet): void {
  const rows: { id: string; ours: number; floor: number }[] = [];
  for (const page of set.pages) {
    const html = pageHtml(set.htmlDir, page.id);
    const url = `http://127.0.0.1/${page.id}.html`;
    const ours = cpuMs(() => extractInNode(html, url, OPTIONS));
    const base = cpuMs(() => floor(html));
    rows.push({ id: page.id, ours, floor: base });
  }
  const interleaved = { ours: rows.map((row) => row.ours), floor: rows.map((row) => row.floor) };
  const apart = alone(set);
  console.log(`\n${set.title}: ${rows.length} pages`);
  console.log(`  alone (each producer in a process of its own, the lower of two runs a page):`);
  console.log(`    webjobs extraction  CPU ms/page: ${perPage(apart.ours)}`);
  console.log(`    floor               CPU ms/page: ${perPage(apart.floor)}`);
  console.log(`    ratio (total CPU): ${(sum(apart.ours) / Math.max(1, sum(apart.floor))).toFixed(2)}x the floor`);
  console.log(`  interleaved (one thread and heap, page by page):`);
  console.log(`    webjobs extraction  CPU ms/page: ${perPage(interleaved.ours)}`);
  console.log(`    floor               CPU ms/page: ${perPage(interleaved.floor)}`);
  console.log(`    ratio (total CPU): ${(sum(interleaved.ours) / Math.max(1, sum(interleaved.floor))).toFixed(2)}x the floor; peak RSS of this process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
  console.log('  slowest pages (alone), and their slowest passes:');
  const slowest = rows.map((row, i) => ({ id: row.id, ours: apart.ours[i]!, floor: apart.floor[i]! })).sort((a, b) => b.ours - a.ours);
  for (const row of slowest.slice(0, 5)) {
    const trace = extractInNode(pageHtml(set.htmlDir, row.id), `http://127.0.0.1/${row.id}.html`, { ...OPTIONS, explain: true }).result.explain ?? '';
    const passes = [...trace.matchAll(/^([a-z-]+): .*\((\d+) ms\)$/gm)].map((m) => ({ pass: m[1]!, ms: Number(m[2]) })).sort((a, b) => b.ms - a.ms).slice(0, 3);
    console.log(`    ${row.ours.toFixed(0).padStart(5)} ms (floor ${row.floor.toFixed(0)})  ${row.id.slice(0, 24)}  ${passes.map((p) => `${p.pass} ${p.ms} ms`).join(', ')}`);
  }
}

async function main(): Promise<void> {
  const articles = loadArticles(articlesDir());
  if (articles) {
    runSet(articles);
    const batch = await cliBatch(articles);
    console.log(
      `  CLI batch (webjobs batch - --engine http, ${batch.pages} pages on loopback): peak RSS of its process tree ${(batch.peakRss / 2 ** 20).toFixed(0)} MiB (goal <= 220), ` +
        `${batch.cpuMsPerPage.toFixed(1)} CPU ms/page, ${batch.seconds.toFixed(1)} s`,
    );
  } else console.log('articles: skipped (npm run bench:fetch-aeb, or WEBJOBS_BENCH_DATA)');
  const wcxb = loadWcxbDev(path.resolve(process.env.WEBJOBS_BENCH_WCXB ?? path.join(REPO_ROOT, '.bench-data', 'wcxb')));
  if (!wcxb) {
    console.log('wcxb: skipped (npm run bench:fetch-wcxb, or WEBJOBS_BENCH_WCXB)');
    return;
  }
  const sample = Number(process.env.WEBJOBS_BENCH_SAMPLE);
  if (sample > 0) wcxb.pages = sampleByType(wcxb.pages, sample);
  runSet(wcxb);
}

if (SIDE) runSide(SIDE, process.argv[2]!);
else await main();
