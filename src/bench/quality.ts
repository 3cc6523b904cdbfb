/**
 * Main-content quality benchmark: scrapes the 181 pages of the ScrapingHub
 * article-extraction-benchmark through the engine, from a local HTTP server, and
 * scores the Markdown text against the hand-made ground truth.
 *
 *   npm run bench:quality            (data from ../shared/data/article-extraction-benchmark)
 *   WEBJOBS_BENCH_DATA=/path npm run bench:quality
 *   WEBJOBS_BENCH_ONLY=id1,id2 ...   (a subset; WEBJOBS_BENCH_DUMP=dir writes the markdown)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { ScrapeOptions } from '../api/types.js';
import { BrowserPool } from '../engine/browser.js';
import { scrapeUrl } from '../engine/scrape.js';
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
  ms: number;
}

function dataDir(): string {
  if (process.env.WEBJOBS_BENCH_DATA) return path.resolve(process.env.WEBJOBS_BENCH_DATA);
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  return path.resolve(repoRoot, '..', 'shared', 'data', 'article-extraction-benchmark');
}

/** Serves html/<id>.html.gz as /<id>.html, decompressed, with a CSP that keeps scripts and outside hosts off. */
async function startServer(dir: string): Promise<{ base: string; close: () => Promise<void> }> {
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Fetches the Markdown of every page. This is the only part that talks to the
 * engine, so that it can be swapped for a batch job later.
 */
export async function fetchPages(
  pages: { id: string; url: string }[],
  scrapeOptions: ScrapeOptions = {},
  concurrency = CONCURRENCY,
): Promise<FetchedPage[]> {
  const pool = new BrowserPool();
  const results: FetchedPage[] = new Array(pages.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < pages.length) {
      const index = next++;
      const { id, url } = pages[index]!;
      const started = performance.now();
      try {
        const data = await scrapeUrl(pool, url, scrapeOptions);
        results[index] = { id, markdown: data.markdown ?? '', ms: performance.now() - started };
      } catch (err) {
        results[index] = { id, error: (err as Error).message, ms: performance.now() - started };
      }
      done++;
      if (process.stderr.isTTY) process.stderr.write(`\r${done}/${pages.length}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, pages.length) }, worker));
  } finally {
    if (process.stderr.isTTY) process.stderr.write('\r');
    await pool.close();
  }
  return results;
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
  let retried: string[] = [];
  try {
    const pages = ids.map((id) => ({ id, url: `${server.base}/${id}.html` }));
    fetched = await fetchPages(pages);
    // A few of these captured pages sometimes never fire `load` when several tabs load at once
    // (Chromium, not the extraction); they load at once alone, so failures get one retry, one at a time.
    retried = fetched.filter((p) => p.error?.startsWith('timed out')).map((p) => p.id);
    if (retried.length > 0) {
      const again = await fetchPages(pages.filter((p) => retried.includes(p.id)), {}, 1);
      fetched = fetched.map((p) => again.find((a) => a.id === p.id) ?? p);
    }
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
  const meanMs = fetched.reduce((sum, p) => sum + p.ms, 0) / Math.max(1, fetched.length); // retried pages: their retry

  const onScored = summarise(scored.map((s) => s.score));
  console.log(`F1 ${summary.f1.toFixed(4)}  P ${summary.precision.toFixed(4)}  R ${summary.recall.toFixed(4)}  (all ${all.length} pages, failures as empty)`);
  if (failures.length > 0) {
    console.log(`F1 ${onScored.f1.toFixed(4)}  P ${onScored.precision.toFixed(4)}  R ${onScored.recall.toFixed(4)}  (the ${scored.length} pages scored)`);
  }
  console.log(`pages scored ${scored.length}, failures ${failures.length} (${retried.length} retried alone after failing in the batch)`);
  console.log(
    `mean ${meanMs.toFixed(0)} ms per page (latency, ${CONCURRENCY} at a time); wall ${(wallMs / 1000).toFixed(1)} s, ` +
      `${(wallMs / Math.max(1, fetched.length)).toFixed(0)} ms per page of wall time`,
  );
  for (const failure of failures) console.log(`  failed ${failure.id}: ${failure.error}`);
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
