/**
 * The map and cache lines of `npm run bench`, through the real CLI as a user
 * (or a cron job) runs it:
 *   map      `webjobs map` of a 2,000-URL site: robots.txt names a sitemap index
 *            of two gzip sitemaps of 1,000 URLs each; the home page links 100 of
 *            them. Seconds, median of WEBJOBS_BENCH_MAP_ROUNDS (3) runs.
 *   max-age  `webjobs batch - --max-age 3600` of the same 200 article pages twice:
 *            the first run scrapes and stores them, the second finds them all in
 *            the cache. Pages/s of each run, process start included.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { listenOnLoopback, type LoopbackServer } from './loopback.js';
import { articlePage } from './site.js';

import { BIN } from './paths.js';
const MAP_URLS = 2_000;

/** A site whose 2,000 pages are listed by its sitemaps; pages are small article pages. */
async function startMapSite(): Promise<LoopbackServer> {
  let base = '';
  const urlset = (from: number) =>
    gzipSync(
      `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from(
        { length: MAP_URLS / 2 },
        (_, i) => `<url><loc>${base}/article/${from + i}</loc><lastmod>2026-01-01</lastmod></url>`,
      ).join('')}</urlset>`,
    );
  let parts: Buffer[] | undefined;
  const server = http.createServer((req, res) => {
    parts ??= [urlset(0), urlset(MAP_URLS / 2)];
    const url = req.url ?? '/';
    const send = (type: string, body: string | Buffer) => res.writeHead(200, { 'content-type': type }).end(body);
    if (url === '/robots.txt') return send('text/plain', `User-agent: *\nAllow: /\nSitemap: ${base}/sitemap-index.xml\n`);
    if (url === '/sitemap-index.xml') {
      return send('application/xml', `<?xml version="1.0"?><sitemapindex><sitemap><loc>${base}/s1.xml.gz</loc></sitemap><sitemap><loc>${base}/s2.xml.gz</loc></sitemap></sitemapindex>`);
    }
    if (url === '/s1.xml.gz' || url === '/s2.xml.gz') return send('application/gzip', parts[url === '/s1.xml.gz' ? 0 : 1]!);
    if (url === '/') {
      const links = Array.from({ length: 100 }, (_, i) => `<li><a href="/article/${i * 20}">Article ${i * 20}</a></li>`).join('');
      return send('text/html; charset=utf-8', `<!doctype html><title>Home</title><ul>${links}</ul>`);
    }
    const match = /^\/article\/(\d+)$/.exec(url);
    if (match) return send('text/html; charset=utf-8', articlePage(Number(match[1])));
    res.writeHead(404).end();
  });
  const site = await listenOnLoopback(server);
  base = site.base;
  return site;
}

interface Run {
  elapsedMs: number;
  stdout: string;
  code: number | null;
}

function runCli(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ elapsedMs: Date.now() - started, stdout, code }));
    child.stdin.end(input);
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function benchMap(home: string): Promise<void> {
  const site = await startMapSite();
  try {
    const rounds = Math.max(1, Number(process.env.WEBJOBS_BENCH_MAP_ROUNDS) || 3);
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const run = await runCli(['map', site.base, '--limit', '10000'], { WEBJOBS_HOME: home });
      const urls = run.stdout.trim().split('\n').length;
      // The home page and the 2,000 listed pages.
      if (run.code !== 0 || urls !== MAP_URLS + 1) throw new Error(`map: exit ${run.code}, ${urls} URLs, expected ${MAP_URLS + 1}`);
      times.push(run.elapsedMs);
    }
    console.log(`map of a ${MAP_URLS}-URL site (sitemap index, 2 gzip sitemaps, 100 home-page links): ${(median(times) / 1000).toFixed(2)} s  (median of ${rounds}: ${times.map((t) => (t / 1000).toFixed(2)).join(' ')} s)`);
  } finally {
    await site.close();
  }
}

async function benchMaxAge(base: string, home: string): Promise<void> {
  const pages = Number(process.env.WEBJOBS_BENCH_CACHE_PAGES) || 200;
  const urls = Array.from({ length: pages }, (_, i) => `${base}/article/${i}`).join('\n');
  const args = ['batch', '-', '--max-age', '3600', '--jsonl', '--quiet'];
  const states = (run: Run) => run.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { metadata: { cacheState?: string } }).metadata.cacheState);
  const first = await runCli(args, { WEBJOBS_HOME: home }, urls);
  const second = await runCli(args, { WEBJOBS_HOME: home }, urls);
  for (const [run, wanted] of [[first, 'miss'], [second, 'hit']] as const) {
    const got = states(run);
    if (run.code !== 0 || got.length !== pages || got.some((s) => s !== wanted)) throw new Error(`--max-age run: exit ${run.code}, expected ${pages} ${wanted}es`);
  }
  const rate = (run: Run) => pages / (run.elapsedMs / 1000);
  console.log(
    `re-run with --max-age: ${rate(second).toFixed(1)} pages/s on the second run (all ${pages} from the cache, ${(second.elapsedMs / 1000).toFixed(2)} s with process start); first run ${rate(first).toFixed(1)} pages/s (scraped and stored); ${(rate(second) / rate(first)).toFixed(1)}x`,
  );
}

/** The map and cache lines; `base` serves /article/N pages (the throughput site). */
export async function benchMapAndCache(base: string): Promise<void> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-map-'));
  try {
    await benchMap(home);
    await benchMaxAge(base, home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
