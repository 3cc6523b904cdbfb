/**
 * Main-content quality benchmark: scrapes the 181 pages of the ScrapingHub
 * article-extraction-benchmark as one batch job, from a local HTTP server, and
 * scores the Markdown text against the hand-made ground truth.
 *
 *   npm run bench:quality            (data from ../shared/data/article-extraction-benchmark)
 *   WEBJOBS_BENCH_DATA=/path npm run bench:quality
 *   WEBJOBS_BENCH_ONLY=id1,id2 ...   (a subset; WEBJOBS_BENCH_DUMP=dir writes the markdown)
 *   WEBJOBS_BENCH_PEER=0             (skip the jsdom peer)
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { jsdomMarkdown } from './jsdomPeer.js';
import { listenOnLoopback, type LoopbackServer } from './loopback.js';
import type { ScrapeOptions } from '../api/types.js';
import { LocalBackend } from '../local/localBackend.js';
import { FileJobStore } from '../store/fileStore.js';
import { pageF1, scorePage, stripMarkdown, summarise, type PageScore } from './score.js';

const CSP = "default-src 'self' data: 'unsafe-inline'; script-src 'none'";
const CONCURRENCY = Number(process.env.WEBJOBS_BENCH_CONCURRENCY) || 8;

interface Truth {
  articleBody: string;
  url: string;
}

export interface FetchedPage {
  id: string;
  markdown?: string;
  error?: string;
}

function dataDir(): string {
  if (process.env.WEBJOBS_BENCH_DATA) return path.resolve(process.env.WEBJOBS_BENCH_DATA);
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  return path.resolve(repoRoot, '..', 'shared', 'data', 'article-extraction-benchmark');
}

/** Serves html/<id>.html.gz as /<id>.html, decompressed, with a CSP that keeps scripts and outside hosts off. */
async function startServer(dir: string): Promise<LoopbackServer> {
  const server = http.createServer((req, res) => {
    const match = /^\/([\w-]+)\.html$/.exec((req.url ?? '').split('?')[0]!);
    if (!match) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    let body: Buffer;
    try {
      body = gunzipSync(readFileSync(path.join(dir, 'html', `${match[1]}.html.gz`)));
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'content-length': body.length,
    });
    res.end(body);
  });
  return listenOnLoopback(server);
}

/**
 * Fetches the Markdown of every page as one batch job on the local back end: the
 * same path `webjobs batch` takes, store included.
 */
export async function fetchPages(
  pages: { id: string; url: string }[],
  scrapeOptions: ScrapeOptions = {},
  concurrency = CONCURRENCY,
): Promise<FetchedPage[]> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-quality-'));
  const backend = new LocalBackend({ store: new FileJobStore(home) });
  try {
    const { jobId } = await backend.start('batch', { urls: pages.map((p) => p.url), scrapeOptions, concurrency });
    let done = 0;
    await backend.wait('batch', jobId, {
      onPage: () => {
        done++;
        if (process.stderr.isTTY) process.stderr.write(`\r${done}/${pages.length}`);
      },
    });
    if (process.stderr.isTTY) process.stderr.write('\r');
    const record = await backend.result('batch', jobId, { page: 1, batchSize: pages.length });
    if (record.status !== 'completed') throw new Error(`the batch job ${record.status}: ${record.error ?? ''}`);
    return record.data.map((entry, i) => ({
      id: pages[i]!.id,
      ...(entry.status === 'completed' ? { markdown: entry.markdown ?? '' } : { error: entry.error ?? entry.status }),
    }));
  } finally {
    await backend.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Scores the jsdom peer on the same pages with the same scoring, and its CPU cost per page. */
function printPeer(dir: string, ids: string[], truth: Record<string, Truth>): void {
  const scores: PageScore[] = [];
  let cpuMs = 0;
  let errors = 0;
  for (const id of ids) {
    const html = gunzipSync(readFileSync(path.join(dir, 'html', `${id}.html.gz`))).toString('utf8');
    const result = jsdomMarkdown(html, truth[id]!.url);
    cpuMs += result.cpuMs;
    if (result.error !== undefined) errors++;
    scores.push(scorePage(truth[id]!.articleBody, stripMarkdown(result.markdown ?? '')));
  }
  const peer = summarise(scores);
  console.log(
    `peer, same pages and scoring: Readability + turndown through jsdom in Node: F1 ${peer.f1.toFixed(4)}  ` +
      `P ${peer.precision.toFixed(4)}  R ${peer.recall.toFixed(4)}; ${(cpuMs / Math.max(1, ids.length)).toFixed(0)} ms of ` +
      `Node CPU per page (one core, before any browser work); ${errors} pages where jsdom threw`,
  );
}

async function main(): Promise<void> {
  const dir = dataDir();
  const truth = JSON.parse(readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<string, Truth>;
  let ids = Object.keys(truth).sort();
  const only = process.env.WEBJOBS_BENCH_ONLY?.split(',').filter(Boolean);
  if (only?.length) ids = ids.filter((id) => only.some((prefix) => id.startsWith(prefix)));
  const server = await startServer(dir);
  const started = performance.now();
  let fetched: FetchedPage[];
  try {
    fetched = await fetchPages(ids.map((id) => ({ id, url: `${server.base}/${id}.html` })));
  } finally {
    await server.close();
  }
  const wallMs = performance.now() - started;

  const dump = process.env.WEBJOBS_BENCH_DUMP;
  if (dump) mkdirSync(dump, { recursive: true });
  const scored: { id: string; score: PageScore; f1: number }[] = [];
  const failures: FetchedPage[] = [];
  for (const page of fetched) {
    if (page.error !== undefined) {
      failures.push(page);
      continue;
    }
    const text = stripMarkdown(page.markdown ?? '');
    if (dump) {
      writeFileSync(path.join(dump, `${page.id}.md`), page.markdown ?? '');
      writeFileSync(path.join(dump, `${page.id}.txt`), text);
      writeFileSync(path.join(dump, `${page.id}.truth.txt`), truth[page.id]!.articleBody);
    }
    const score = scorePage(truth[page.id]!.articleBody, text);
    scored.push({ id: page.id, score, f1: pageF1(score) });
  }
  // A failed page counts as an empty prediction: it lowers recall, as in the benchmark.
  const all = [...scored.map((s) => s.score), ...failures.map((f) => scorePage(truth[f.id]!.articleBody, ''))];
  const summary = summarise(all);

  const onScored = summarise(scored.map((s) => s.score));
  console.log(`F1 ${summary.f1.toFixed(4)}  P ${summary.precision.toFixed(4)}  R ${summary.recall.toFixed(4)}  (all ${all.length} pages, failures as empty)`);
  if (failures.length > 0) {
    console.log(`F1 ${onScored.f1.toFixed(4)}  P ${onScored.precision.toFixed(4)}  R ${onScored.recall.toFixed(4)}  (the ${scored.length} pages scored)`);
  }
  console.log(`pages scored ${scored.length}, failures ${failures.length}`);
  console.log(
    `one batch job, ${CONCURRENCY} pages at a time: wall ${(wallMs / 1000).toFixed(1)} s, ` +
      `${(wallMs / Math.max(1, fetched.length)).toFixed(0)} ms per page of wall time`,
  );
  for (const failure of failures) console.log(`  failed ${failure.id}: ${failure.error}`);
  if (process.env.WEBJOBS_BENCH_PEER !== '0') printPeer(dir, ids, truth);
  console.log('worst pages by F1:');
  for (const s of [...scored].sort((a, b) => a.f1 - b.f1).slice(0, 10)) {
    const p = s.score.precision ?? 0;
    const r = s.score.recall ?? 0;
    console.log(`  ${s.f1.toFixed(3)}  P ${p.toFixed(3)}  R ${r.toFixed(3)}  ${s.id}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
