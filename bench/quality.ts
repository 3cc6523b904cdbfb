/**
 * Main-content quality benchmark. Each page set runs as one batch job of webjobs
 * (WCXB as two: a job takes at most 1,000 URLs), served from 127.0.0.1, and the text a reader sees in the Markdown (readerText.ts)
 * is scored against hand-made ground truth; the jsdom peer (Readability + turndown)
 * is scored on the same pages the same way. webjobs' Markdown opens with the page's headline
 * (a level-1 heading); the truths leave titles out, so that first line is not scored
 * (readerText.ts, withoutHeadline), and the bench says how many pages open with one.
 *
 * Sets (one that is absent is skipped, with a line saying how to get it):
 * - articles: the 181 pages of the ScrapingHub article-extraction-benchmark,
 *   4-token shingle scoring (F1 of mean P and mean R). Fetch it with
 *   `npm run bench:fetch-aeb` into .bench-data/aeb, or WEBJOBS_BENCH_DATA=/path.
 * - wcxb: the development split of WCXB (1,497 pages, 7 page types), WCXB's word
 *   scoring (means over pages of per-page P, R, F1) and its with/without snippet
 *   rates. Fetch it with `npm run bench:fetch-wcxb` into .bench-data/wcxb, or
 *   WEBJOBS_BENCH_WCXB=/path. Its held-out test split is never read.
 *
 *   npm run bench:quality
 *
 * - fundus: 258 news pages in some twenty languages, fundus' parser test pages with the text their
 *   site's parser reads (`npm run bench:fetch-fundus`, or WEBJOBS_BENCH_FUNDUS=/path), in two fixed halves
 *   by publisher (langSets.ts): fundus-dev to tune on, fundus-held-out only reported.
 * - readability: Readability's test pages whose expected article is not in English
 *   (`npm run bench:fetch-readability`, or WEBJOBS_BENCH_READABILITY=/path).
 * After the sets, a table per language (told from the truth's text, language.ts) and per page type
 * scores every page of every set the same way (languageReport.ts).
 *
 * Knobs, for tuning extraction:
 *   WEBJOBS_BENCH_SETS=articles,wcxb   which sets (default all four: articles, wcxb, fundus, readability)
 *   WEBJOBS_BENCH_TYPES=forum,product  WCXB page types only; also prints the 10 worst pages per type
 *   WEBJOBS_BENCH_ONLY=id1,id2         pages whose id starts with one of these, in every set
 *   WEBJOBS_BENCH_SAMPLE=N             N WCXB pages, every k-th page of each type (a quick, representative run)
 *   WEBJOBS_BENCH_DUMP=dir             dir/<set>/<id>.md, .txt (the scored text) and .truth.txt
 *   WEBJOBS_BENCH_SCORES=file.json     per-page {set, id, type, f1, precision, recall}, to compare two runs
 *   WEBJOBS_BENCH_PEER=0               skip the jsdom peer (minutes on the WCXB pages)
 *   WEBJOBS_BENCH_CONCURRENCY=8        pages at a time in the batch job
 *   WEBJOBS_BENCH_ENGINE=http          the engine webjobs reads pages with (auto, http, browser; default browser,
 *                                      the figures below were measured with); prints how many pages each engine read
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PeerJob, PeerMessage } from './peerWorker.js';
import { startServer } from './pageServer.js';
import { languageRows, printLanguageTables, reportWords, type LanguageRow } from './languageReport.js';
import { loadFundus, loadReadability } from './langSets.js';
import { opensWithHeadline, readerText, withoutHeadline } from './readerText.js';
import { meanOf, pageF1, scorePage, snippetRate, summarise, wordScore } from './score.js';
import {
  articlesDir,
  byIdPrefix,
  loadArticles,
  loadWcxbDev,
  sampleByType,
  SET_NAMES,
  WCXB_TYPES,
  type BenchPage,
  type BenchSet,
  type SetName,
} from './sets.js';
import { LIMITS } from '../src/api/limits.js';
import { ENGINES, type EngineName, type ScrapeOptions } from '../src/api/types.js';
import { LocalBackend } from '../src/local/localBackend.js';
import { FileJobStore } from '../src/store/fileStore.js';

const CONCURRENCY = Number(process.env.WEBJOBS_BENCH_CONCURRENCY) || 8;
const ENGINE = benchEngine(process.env.WEBJOBS_BENCH_ENGINE);

function benchEngine(value: string | undefined): EngineName {
  if (value === undefined || value === '') return 'browser';
  if (!ENGINES.includes(value as EngineName)) throw new Error(`WEBJOBS_BENCH_ENGINE: unknown engine ${value} (known: ${ENGINES.join(', ')})`);
  return value as EngineName;
}
import { REPO_ROOT } from './paths.js';

export interface FetchedPage {
  id: string;
  markdown?: string;
  error?: string;
  /** metadata.engine: which engine read the page. */
  engine?: string;
}

/** One page's score in either scoring, as written to WEBJOBS_BENCH_SCORES. */
interface PageRow {
  set: SetName;
  id: string;
  type: string;
  f1: number;
  precision: number;
  recall: number;
}

function listEnv(name: string): string[] {
  return (process.env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * Fetches the Markdown of every page as one batch job on the local back end: the
 * same path `webjobs batch` takes, store included. More pages than a batch job
 * takes (LIMITS.maxBatchUrls) run as consecutive jobs of even size on the same back end.
 */
export async function fetchPages(
  pages: { id: string; url: string }[],
  scrapeOptions: ScrapeOptions = {},
  concurrency = CONCURRENCY,
): Promise<FetchedPage[]> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-quality-'));
  const backend = new LocalBackend({ store: new FileJobStore(home) });
  const jobs = Math.ceil(pages.length / LIMITS.maxBatchUrls);
  const size = Math.ceil(pages.length / Math.max(1, jobs));
  const progress = { done: 0, total: pages.length };
  try {
    const fetched: FetchedPage[] = [];
    for (let start = 0; start < pages.length; start += size) {
      fetched.push(...(await fetchBatch(backend, pages.slice(start, start + size), { scrapeOptions, concurrency }, progress)));
    }
    if (process.stderr.isTTY) process.stderr.write('\r');
    return fetched;
  } finally {
    await backend.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** One batch job over `pages` (at most LIMITS.maxBatchUrls), its entries in the pages' order. */
async function fetchBatch(
  backend: LocalBackend,
  pages: { id: string; url: string }[],
  options: { scrapeOptions: ScrapeOptions; concurrency: number },
  progress: { done: number; total: number },
): Promise<FetchedPage[]> {
  const { jobId } = await backend.start('batch', { urls: pages.map((p) => p.url), ...options });
  await backend.wait('batch', jobId, {
    onPage: () => {
      progress.done++;
      if (process.stderr.isTTY) process.stderr.write(`\r${progress.done}/${progress.total}`);
    },
  });
  const record = await backend.result('batch', jobId, { page: 1, batchSize: pages.length });
  if (record.status !== 'completed') throw new Error(`the batch job ${record.status}: ${record.error ?? ''}`);
  return record.data.map((entry, i) => ({
    id: pages[i]!.id,
    ...(entry.status === 'completed' ? { markdown: entry.markdown ?? '', engine: entry.metadata?.engine } : { error: entry.error ?? entry.status }),
  }));
}

/** The set's pages after the id, type and sample knobs, or undefined (with a line saying why) when absent. */
function loadSet(name: SetName): BenchSet | undefined {
  if (name === 'fundus' || name === 'readability') return loadLanguageSet(name);
  if (name === 'articles') {
    const dir = articlesDir();
    const set = loadArticles(dir);
    if (!set) console.log(`articles: skipped, no ground-truth.json in ${dir} (npm run bench:fetch-aeb, or WEBJOBS_BENCH_DATA=/path)`);
    if (set) set.pages = byIdPrefix(set.pages, listEnv('WEBJOBS_BENCH_ONLY'));
    return set;
  }
  const dir = path.resolve(process.env.WEBJOBS_BENCH_WCXB ?? path.join(REPO_ROOT, '.bench-data', 'wcxb'));
  const set = loadWcxbDev(dir);
  if (!set) {
    console.log(`wcxb: skipped, no dev split in ${dir} (npm run bench:fetch-wcxb, or WEBJOBS_BENCH_WCXB=/path)`);
    return undefined;
  }
  const types = listEnv('WEBJOBS_BENCH_TYPES');
  let pages = byIdPrefix(set.pages, listEnv('WEBJOBS_BENCH_ONLY'));
  if (types.length) pages = pages.filter((p) => types.includes(p.type));
  const sample = Number(process.env.WEBJOBS_BENCH_SAMPLE);
  if (sample > 0) pages = sampleByType(pages, sample);
  set.pages = pages;
  return set;
}

/** fundus or Readability's pages, after the id knob, or undefined (with a line saying how to get them) when absent. */
function loadLanguageSet(name: 'fundus' | 'readability'): BenchSet | undefined {
  const knob = name === 'fundus' ? 'WEBJOBS_BENCH_FUNDUS' : 'WEBJOBS_BENCH_READABILITY';
  const dir = path.resolve(process.env[knob] ?? path.join(REPO_ROOT, '.bench-data', name));
  const set = name === 'fundus' ? loadFundus(dir) : loadReadability(dir);
  if (!set) console.log(`${name}: skipped, no pages in ${dir} (npm run bench:fetch-${name}, or ${knob}=/path)`);
  if (set) set.pages = byIdPrefix(set.pages, listEnv('WEBJOBS_BENCH_ONLY'));
  return set;
}

/** Runs the set's pages through webjobs; returns each page's reader text ('' for a failed page, as in both benchmarks). */
async function runWebjobs(set: BenchSet): Promise<Map<string, string>> {
  const server = await startServer(set.htmlDir);
  const started = performance.now();
  let fetched: FetchedPage[];
  try {
    fetched = await fetchPages(
      set.pages.map((p) => ({ id: p.id, url: `${server.base}/${p.id}.html` })),
      { engine: ENGINE },
    );
  } finally {
    await server.close();
  }
  const wallMs = performance.now() - started;
  const failures = fetched.filter((f) => f.error !== undefined);
  console.log(
    `${set.title}, webjobs: ${fetched.length} pages in ${Math.ceil(fetched.length / LIMITS.maxBatchUrls)} batch job(s), ` +
      `${CONCURRENCY} pages at a time: wall ` +
      `${(wallMs / 1000).toFixed(1)} s, ${(wallMs / Math.max(1, fetched.length)).toFixed(0)} ms per page; ` +
      `${failures.length} failures (scored as empty)`,
  );
  for (const failure of failures.slice(0, 20)) console.log(`  failed ${failure.id}: ${failure.error}`);
  const engines = new Map<string, number>();
  for (const page of fetched) if (page.engine) engines.set(page.engine, (engines.get(page.engine) ?? 0) + 1);
  console.log(`  engine ${ENGINE}: ${[...engines].map(([name, count]) => `${count} pages read by ${name}`).join(', ')}`);
  dumpPages(set, fetched);
  tellHeadlines(set, fetched);
  return new Map(fetched.map((f) => [f.id, f.error === undefined ? readerText(withoutHeadline(f.markdown ?? '')) : '']));
}

/** How many pages open with their headline (a level-1 heading); that line is left out of the scored text. */
function tellHeadlines(set: BenchSet, fetched: FetchedPage[]): void {
  const types = new Map(set.pages.map((page) => [page.id, page.type]));
  const rate = (pages: FetchedPage[]) => {
    const opening = pages.filter((page) => opensWithHeadline(page.markdown ?? '')).length;
    return `${opening} of ${pages.length} (${((100 * opening) / Math.max(1, pages.length)).toFixed(1)}%)`;
  };
  const articles = set.name === 'wcxb' ? `; articles ${rate(fetched.filter((page) => types.get(page.id) === 'article'))}` : '';
  console.log(`  headline: ${rate(fetched)} pages open with a level-1 heading${articles}; scored without that line (the truths leave titles out)`);
}

/** WEBJOBS_BENCH_DUMP: the Markdown, the scored text and the truth of every page, for reading side by side. */
function dumpPages(set: BenchSet, fetched: FetchedPage[]): void {
  const dump = process.env.WEBJOBS_BENCH_DUMP;
  if (!dump) return;
  const dir = path.join(dump, set.name);
  mkdirSync(dir, { recursive: true });
  const truth = new Map(set.pages.map((p) => [p.id, p.truth]));
  for (const page of fetched) {
    writeFileSync(path.join(dir, `${page.id}.md`), page.markdown ?? `(failed: ${page.error})`);
    writeFileSync(path.join(dir, `${page.id}.txt`), readerText(withoutHeadline(page.markdown ?? '')));
    writeFileSync(path.join(dir, `${page.id}.truth.txt`), truth.get(page.id) ?? '');
  }
}

/** Pages per peer worker: small enough that jsdom's growth over a slice stays far below the heap limit. */
const PEER_SLICE = 100;

/**
 * The peer's reader text for every page, and its Node CPU cost. Runs in worker
 * threads, a fresh one per slice of pages (see peerWorker.ts), one at a time as
 * the peer is single-threaded Node; a page that kills its worker (out of memory)
 * counts as an error and scores as empty, and the next worker resumes after it.
 */
async function runPeer(set: BenchSet): Promise<{ texts: Map<string, string>; cpuMsPerPage: number; errors: number }> {
  const texts = new Map<string, string>();
  let cpuMs = 0;
  let errors = 0;
  let next = 0;
  while (next < set.pages.length) {
    const slice = set.pages.slice(next, next + PEER_SLICE).map((p) => ({ id: p.id, url: p.url }));
    const done = await runPeerWorker({ htmlDir: set.htmlDir, pages: slice }, (message) => {
      cpuMs += message.cpuMs;
      if (message.error !== undefined) errors++;
      texts.set(message.id, readerText(message.markdown ?? ''));
    });
    next += done.finished;
    if (done.crashed !== undefined) {
      console.log(`  peer: the worker died on ${done.crashed} (${done.reason}); scored as empty`);
      errors++;
      texts.set(done.crashed, '');
      next++;
    }
  }
  return { texts, cpuMsPerPage: cpuMs / Math.max(1, set.pages.length), errors };
}

/** One worker over `job`: how many pages it finished, and the page it died on, if it did. */
function runPeerWorker(
  job: PeerJob,
  onPage: (message: PeerMessage) => void,
): Promise<{ finished: number; crashed?: string; reason?: string }> {
  const worker = new Worker(new URL('./peerWorker.js', import.meta.url), {
    workerData: job,
    resourceLimits: { maxOldGenerationSizeMb: 2048 },
  });
  let finished = 0;
  let current: string | undefined;
  let failure: string | undefined;
  return new Promise((resolve) => {
    worker.on('message', (message: PeerMessage | { started: string }) => {
      if ('started' in message) {
        current = message.started;
        return;
      }
      finished++;
      current = undefined;
      onPage(message);
    });
    worker.on('error', (err) => {
      failure = err.message.split('\n')[0];
    });
    worker.on('exit', () => resolve(current === undefined ? { finished } : { finished, crashed: current, reason: failure ?? 'exited' }));
  });
}

/** The 181 set's scoring: shingle P and R per page, F1 of their means. Prints the summary, returns per-page rows. */
function reportArticles(set: BenchSet, texts: Map<string, string>, who: string): PageRow[] {
  const scores = set.pages.map((page) => scorePage(page.truth, texts.get(page.id) ?? ''));
  const summary = summarise(scores);
  console.log(`  ${who.padEnd(8)} F1 ${summary.f1.toFixed(4)}  P ${summary.precision.toFixed(4)}  R ${summary.recall.toFixed(4)}`);
  return set.pages.map((page, i) => {
    const score = scores[i]!;
    return { set: set.name, id: page.id, type: page.type, f1: pageF1(score), precision: score.precision ?? 0, recall: score.recall ?? 0 };
  });
}

interface WcxbRow extends PageRow {
  with: number;
  without: number;
}

function scoreWcxb(set: BenchSet, texts: Map<string, string>): WcxbRow[] {
  return set.pages.map((page) => {
    const text = texts.get(page.id) ?? '';
    return {
      set: set.name,
      id: page.id,
      type: page.type,
      ...wordScore(page.truth, text),
      with: snippetRate(text, page.with),
      without: snippetRate(text, page.without),
    };
  });
}

/** evaluate.py's report for one producer: means over pages, overall and per page type, and the snippet rates. */
function reportWcxb(rows: WcxbRow[], who: string): void {
  const keys = ['f1', 'precision', 'recall', 'with', 'without'] as const;
  const line = (label: string, r: WcxbRow[]) => {
    const m = meanOf(r, keys);
    console.log(`    ${label.padEnd(14)} ${String(r.length).padStart(5)}  ${m.f1.toFixed(3)}  ${m.precision.toFixed(3)}  ${m.recall.toFixed(3)}`);
  };
  console.log(`  ${who}:`);
  console.log(`    ${'type'.padEnd(14)} ${'pages'.padStart(5)}  F1     P      R`);
  line('all', rows);
  for (const type of WCXB_TYPES) {
    const ofType = rows.filter((row) => row.type === type);
    if (ofType.length) line(type, ofType);
  }
  const m = meanOf(rows, keys);
  console.log(`    snippets: with ${(m.with * 100).toFixed(1)}%, without ${(m.without * 100).toFixed(1)}% (lower is better)`);
}

function printWorst(rows: PageRow[], label: string): void {
  console.log(`  worst ${label} pages by F1:`);
  for (const row of [...rows].sort((a, b) => a.f1 - b.f1).slice(0, 10)) {
    console.log(`    ${row.f1.toFixed(3)}  P ${row.precision.toFixed(3)}  R ${row.recall.toFixed(3)}  ${row.id}`);
  }
}

/**
 * Runs one set: webjobs, its report, then the peer and its report (unless skipped).
 * webjobs' figures print before the peer starts: on WCXB the peer takes minutes.
 * Returns webjobs' per-page rows.
 */
async function runSet(set: BenchSet, languages: LanguageRow[]): Promise<PageRow[]> {
  console.log(`\n${set.title}: ${set.pages.length} pages`);
  if (set.pages.length === 0) return [];
  const texts = await runWebjobs(set);
  languages.push(...languageRows(set, texts));
  const rows = reportSet(set, texts, 'webjobs');
  if (set.name === 'articles') printWorst(rows, 'article');
  if (set.name === 'wcxb' && listEnv('WEBJOBS_BENCH_TYPES').length) {
    for (const type of WCXB_TYPES) {
      const ofType = rows.filter((r) => r.type === type);
      if (ofType.length) printWorst(ofType, type);
    }
  }
  if (process.env.WEBJOBS_BENCH_PEER !== '0') {
    const started = performance.now();
    const peer = await runPeer(set);
    reportSet(set, peer.texts, 'peer');
    console.log(
      `  peer: Readability + turndown through jsdom in Node, ${peer.cpuMsPerPage.toFixed(0)} ms of Node CPU per page ` +
        `(one core, before any browser work), wall ${((performance.now() - started) / 1000).toFixed(0)} s; jsdom threw on ${peer.errors} pages`,
    );
  }
  return rows;
}

/** Scores and prints one producer's texts with the set's own scoring; returns the per-page rows. */
function reportSet(set: BenchSet, texts: Map<string, string>, who: string): PageRow[] {
  if (set.name === 'articles') return reportArticles(set, texts, who);
  if (set.name === 'fundus' || set.name === 'readability') {
    const rows = languageRows(set, texts);
    reportWords(rows, who);
    return rows.map(({ id, type, f1, precision, recall }) => ({ set: set.name, id, type, f1, precision, recall }));
  }
  const rows = scoreWcxb(set, texts);
  reportWcxb(rows, who);
  return rows.map(({ set: s, id, type, f1, precision, recall }) => ({ set: s, id, type, f1, precision, recall }));
}

async function main(): Promise<void> {
  const wanted = listEnv('WEBJOBS_BENCH_SETS');
  const unknown = wanted.filter((name) => !SET_NAMES.some((known) => known === name));
  if (unknown.length) throw new Error(`WEBJOBS_BENCH_SETS: unknown set ${unknown.join(', ')} (known: ${SET_NAMES.join(', ')})`);
  const names = wanted.length ? SET_NAMES.filter((name) => wanted.includes(name)) : SET_NAMES;
  const rows: PageRow[] = [];
  const languages: LanguageRow[] = [];
  const scoresFile = process.env.WEBJOBS_BENCH_SCORES;
  for (const name of names) {
    const set = loadSet(name);
    if (!set) continue;
    rows.push(...(await runSet(set, languages)));
    // Written after every set, so a run stopped later keeps what it measured.
    if (scoresFile) writeFileSync(scoresFile, JSON.stringify(rows, null, 1) + '\n');
  }
  printLanguageTables(languages);
  if (scoresFile) console.log(`\nper-page scores: ${scoresFile}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
