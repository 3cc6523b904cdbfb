/**
 * Memory of a long crawl (npm run bench:crawl-memory): the built CLI crawls a
 * generated site on 127.0.0.1 of cheap pages (a title, a paragraph and links to
 * two deeper pages and back to the start, so the frontier keeps growing), and the
 * RSS of webjobs' own process and of the Chromium processes below it is sampled
 * every second against the pages stored so far (files in the job's pages/ folder).
 * Printed: RSS at each tenth of the crawl, and the growth per 1,000 pages of the
 * second half (the first pages include the browser's start-up).
 *
 *   WEBJOBS_BENCH_PAGES=2000   --max-pages of the crawl (up to 10,000)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { listenOnLoopback } from './loopback.js';
import { rssOf, treeRss } from './procTree.js';

import { BIN } from './paths.js';
const PAGES = Number(process.env.WEBJOBS_BENCH_PAGES) || 2000;

function page(n: number): string {
  const link = (k: number) => `<a href="/p/${k}">page ${k}</a>`;
  return `<!doctype html><html><head><title>Page ${n}</title></head><body><main><h1>Page ${n}</h1><p>Text of page ${n}, short and cheap to render.</p>${link(2 * n + 1)} ${link(2 * n + 2)} ${link(0)}</main></body></html>`;
}

/** Page entries stored so far by the one job in `home`; 0 before it exists. */
function storedPages(home: string): number {
  try {
    const [job] = readdirSync(path.join(home, 'jobs')).filter((name) => !name.startsWith('.'));
    return job ? readdirSync(path.join(home, 'jobs', job, 'pages')).filter((f) => f.endsWith('.json')).length : 0;
  } catch {
    return 0;
  }
}

interface Sample {
  pages: number;
  seconds: number;
  nodeMb: number;
  browserMb: number;
}

async function main(): Promise<void> {
  const server = http.createServer((req, res) => {
    const match = /^\/p\/(\d+)$/.exec(req.url ?? '');
    if (!match) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(Number(match[1])));
  });
  const site = await listenOnLoopback(server);
  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-crawlmem-'));
  try {
    const started = Date.now();
    const child = spawn(process.execPath, [BIN, 'crawl', `${site.base}/p/0`, '--max-pages', String(PAGES), '--ignore-sitemap', '-o', path.join(home, 'out.md'), '-q'], {
      env: { ...process.env, WEBJOBS_HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let done = false;
    void exited.then(() => (done = true));
    const samples: Sample[] = [];
    while (!done) {
      await sleep(1000);
      const pages = storedPages(home);
      const nodeRss = rssOf(child.pid!);
      const total = treeRss(child.pid!);
      if (total > 0) samples.push({ pages, seconds: (Date.now() - started) / 1000, nodeMb: nodeRss / 2 ** 20, browserMb: (total - nodeRss) / 2 ** 20 });
    }
    const code = await exited;
    console.log(`crawl of ${PAGES} pages: exit ${code} in ${((Date.now() - started) / 1000).toFixed(0)} s; ${os.availableParallelism()} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}`);
    console.log('  pages   seconds   webjobs RSS MB   Chromium RSS MB');
    for (let tenth = 1; tenth <= 10; tenth++) {
      const s = samples.find((x) => x.pages >= (PAGES * tenth) / 10) ?? samples.at(-1)!;
      console.log(`  ${String(s.pages).padStart(5)}   ${s.seconds.toFixed(0).padStart(7)}   ${s.nodeMb.toFixed(0).padStart(14)}   ${s.browserMb.toFixed(0).padStart(15)}`);
    }
    // Growth of webjobs' own RSS per 1,000 pages over the second half: least squares of the samples.
    const half = samples.filter((s) => s.pages >= PAGES / 2 && s.pages < PAGES);
    const slope = (key: 'nodeMb' | 'browserMb') => {
      const n = half.length;
      const mx = half.reduce((a, s) => a + s.pages, 0) / n;
      const my = half.reduce((a, s) => a + s[key], 0) / n;
      const num = half.reduce((a, s) => a + (s.pages - mx) * (s[key] - my), 0);
      const den = half.reduce((a, s) => a + (s.pages - mx) ** 2, 0);
      return den > 0 ? (num / den) * 1000 : NaN;
    };
    console.log(`growth per 1,000 pages over the second half (least squares, ${half.length} samples): webjobs ${slope('nodeMb').toFixed(1)} MB, Chromium ${slope('browserMb').toFixed(1)} MB`);
  } finally {
    await site.close();
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
