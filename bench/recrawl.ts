/**
 * Re-crawl of an unchanged site with change tracking (npm run bench:recrawl,
 * issue 41): the built CLI crawls a generated site of 1,000 article pages on
 * 127.0.0.1 twice into the same store, with `--formats markdown,changeTracking`,
 * and the second crawl of the unchanged site is set against the first: pages per
 * second (the CLI's whole run, start-up included) and bytes the site sent (every
 * byte written on its sockets, headers included).
 *
 * Two sites, each crawled twice in a fresh store:
 *   etag     every page sends an ETag and Last-Modified and answers a matching
 *            If-None-Match with 304 (what a static file server or a CDN does);
 *   lastmod  no validators, a sitemap listing every page with its <lastmod>: the
 *            pages no newer than their stored copy are not asked for at all.
 * The crawl is local (the CLI without --remote may crawl up to 10,000 pages; the
 * service's limit is 100), so --max-pages 1000 covers the whole site in one crawl.
 *
 *   WEBJOBS_BENCH_PAGES=1000   pages of the site and --max-pages
 *   WEBJOBS_BENCH_SITES=etag,lastmod
 *   WEBJOBS_BENCH_PROFILE=DIR  a V8 CPU profile of each second crawl into DIR (node --cpu-prof)
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { listenOnLoopback } from './loopback.js';
import { BIN } from './paths.js';
import { articlePage } from './site.js';

const PAGES = Number(process.env.WEBJOBS_BENCH_PAGES) || 1000;
const SITES = (process.env.WEBJOBS_BENCH_SITES ?? 'etag,lastmod').split(',');
/** When the site was built: every page's Last-Modified and sitemap lastmod. */
const BUILT = new Date(Date.now() - 24 * 3600 * 1000);

/** A page links to the next twenty, so a breadth-first crawl from /article/0 reaches them all. */
function page(n: number): string {
  const next = Array.from({ length: 20 }, (_, i) => `<a href="/article/${(n + i + 1) % PAGES}">next ${i}</a>`).join(' ');
  return articlePage(n).replace('</main>', `<nav>${next}</nav></main>`);
}

interface Site {
  base: string;
  /** Bytes written on the site's sockets so far, and requests answered (200 and 304). */
  counts(): { bytes: number; full: number; notModified: number };
  close(): Promise<void>;
}

async function startSite(kind: string): Promise<Site> {
  const bodies = Array.from({ length: PAGES }, (_, n) => page(n));
  const etags = bodies.map((body) => `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"`);
  let bytes = 0;
  let full = 0;
  let notModified = 0;
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (kind === 'lastmod' && url === '/sitemap.xml') {
      const urls = bodies.map((_, n) => `<url><loc>${site.base}/article/${n}</loc><lastmod>${BUILT.toISOString()}</lastmod></url>`).join('\n');
      res.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`);
      return;
    }
    const match = /^\/article\/(\d+)$/.exec(url);
    const n = match ? Number(match[1]) : -1;
    if (n < 0 || n >= PAGES) return void res.writeHead(404).end();
    if (kind === 'etag') {
      const validators = { etag: etags[n]!, 'last-modified': BUILT.toUTCString() };
      if (req.headers['if-none-match'] === etags[n]) {
        notModified++;
        return void res.writeHead(304, validators).end();
      }
      full++;
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...validators }).end(bodies[n]);
    }
    full++;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(bodies[n]);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      bytes += socket.bytesWritten;
      sockets.delete(socket);
    });
  });
  const site = await listenOnLoopback(server);
  return {
    base: site.base,
    counts: () => ({ bytes: bytes + [...sockets].reduce((total, socket) => total + socket.bytesWritten, 0), full, notModified }),
    close: () => site.close(),
  };
}

interface Run {
  seconds: number;
  bytes: number;
  full: number;
  notModified: number;
  code: number | null;
  statuses: Record<string, number>;
}

async function crawl(site: Site, home: string, profile?: string): Promise<Run> {
  const before = site.counts();
  const out = path.join(home, 'out.jsonl');
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [...(profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : []), BIN, 'crawl', `${site.base}/article/0`, '--max-pages', String(PAGES), '--formats', 'markdown,changeTracking', '--exit-code', '--jsonl', '-o', out, '-q'],
    { env: { ...process.env, WEBJOBS_HOME: home, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Connections the CLI kept open are closed by its exit; give their close events a turn.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const after = site.counts();
  const statuses: Record<string, number> = {};
  for (const line of readFileSync(out, 'utf8').split('\n').filter(Boolean)) {
    const status = (JSON.parse(line) as { changeTracking?: { changeStatus: string } }).changeTracking?.changeStatus ?? 'none';
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return { seconds, bytes: after.bytes - before.bytes, full: after.full - before.full, notModified: after.notModified - before.notModified, code, statuses };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MB`;
const describe = (run: Run) =>
  `${run.seconds.toFixed(2).padStart(6)} s  ${(PAGES / run.seconds).toFixed(1).padStart(6)} pages/s  ${mb(run.bytes).padStart(9)}  ${String(run.full).padStart(4)} x 200, ${String(run.notModified).padStart(4)} x 304  exit ${run.code}  ${JSON.stringify(run.statuses)}`;

async function main(): Promise<void> {
  console.log(`re-crawl of an unchanged ${PAGES}-page site with changeTracking; ${os.availableParallelism()} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}`);
  for (const kind of SITES) {
    const site = await startSite(kind);
    const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-recrawl-'));
    try {
      const first = await crawl(site, home);
      const second = await crawl(site, home, process.env.WEBJOBS_BENCH_PROFILE);
      console.log(`${kind}:`);
      console.log(`  first   ${describe(first)}`);
      console.log(`  second  ${describe(second)}`);
      console.log(`  second/first: ${(first.seconds / second.seconds).toFixed(2)}x faster, ${((100 * second.bytes) / first.bytes).toFixed(1)}% of the bytes`);
    } finally {
      await site.close();
      rmSync(home, { recursive: true, force: true });
    }
  }
}

await main();
