/**
 * The hostile tenants of issue 43 against `webjobs serve`, for bench:serve's
 * `limits` phase; /healthz is probed throughout (goal: p99 < 50 ms). Cases:
 *   large results  a completed batch of LARGE_RESULT_PAGES entries of LARGE_RESULT_MB MB
 *                  (rawHtml), written with the store module; READERS clients at once read
 *                  it whole, over and over, through /api and /v1 (following `next`)
 *   connections    IDLE_CONNECTIONS idle TCP connections from 8 loopback addresses
 *                  (127.0.0.2-9), more than the per-address and the total caps
 *   pdf            issue 43 item 4's PDFs from a loopback site, scraped through serve
 *                  (read in a worker): PDF_ROUNDS rounds of one of PDF_LINES tiny lines and
 *                  one of PDF_LINKS link annotations at once (helpers/pdf.ts writes them)
 * Printed per case: /healthz p50/p99/max and failed probes, what the case did,
 * serve's peak RSS (VmHWM) and serve's own event-loop delay (the probe's latency also
 * holds the bench's: its readers share the probe's event loop). Serve, the samples and
 * the probe come from serveLoad.ts.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { FileJobStore } from '../src/store/fileStore.js';
import { JobOwners } from '../src/server/owners.js';
import { manyLinksPdf, tinyLinesPdf } from '../test/helpers/pdf.js';
import { listenOnLoopback } from './loopback.js';

const LARGE_RESULT_PAGES = Number(process.env.WEBJOBS_BENCH_RESULT_PAGES) || 40;
const LARGE_RESULT_MB = Number(process.env.WEBJOBS_BENCH_RESULT_MB) || 19;
const READERS = Number(process.env.WEBJOBS_BENCH_READERS) || 6;
const READ_ROUNDS = Number(process.env.WEBJOBS_BENCH_READ_ROUNDS) || 2;
const IDLE_CONNECTIONS = Number(process.env.WEBJOBS_BENCH_IDLE_CONNECTIONS) || 3000;
const PDF_LINES = Number(process.env.WEBJOBS_BENCH_PDF_LINES) || 20_000;
const PDF_LINKS = Number(process.env.WEBJOBS_BENCH_PDF_LINKS) || 30_000;
const PDF_ROUNDS = Number(process.env.WEBJOBS_BENCH_PDF_ROUNDS) || 2;
/** The scrapes' own timeout (issue 43: the lines PDF took 65-80 s with timeout 10000). */
const PDF_TIMEOUT_MS = 10_000;
const POLL_MS = 250;
const HOLD_MS = 5_000;
/** How much of an answer's start holds its fields (all but the entries). */
const HEAD_BYTES = 4096;
const PROBE_PAUSE_MS = 50;

export interface Samples {
  ms: number[];
  add(ms: number): void;
  percentile(p: number): number;
  readonly max: number;
}

/** A running serve: its address, pid, and its event loop's delay since the last call (serveLoad.ts's preload). */
export interface LimitsServe {
  base: string;
  pid: number;
  loopDelay(): Promise<{ p99: number; max: number }>;
  stop(): Promise<void>;
}

/** What serveLoad.ts lends this phase. */
export interface LimitsDeps {
  /** serve with `apiKeys`, allowed to reach `allowHosts` (host:port) on loopback (by default none the bench serves). */
  startServe(home: string, apiKeys: string[], allowHosts?: string[]): Promise<LimitsServe>;
  samples(): Samples;
  probeHealth(base: string, samples: Samples, failures: string[]): Promise<void>;
  tempDir(prefix: string): string;
  keyId(key: string): string;
}

interface CaseResult {
  label: string;
  health: Samples;
  failures: string[];
  did: string;
  peakRssMb: number;
  /** serve's own event-loop delay during the case (the probe's figure also holds the bench's delays). */
  loop: { p99: number; max: number };
}

/** serve's peak resident memory so far (Linux /proc; NaN elsewhere). */
function peakRssMb(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Number(kb) / 1024 : NaN;
}

/** Probes /healthz, one request at a time, until `work` settles; serve's loop delay over the same span. */
async function probed(deps: LimitsDeps, serve: LimitsServe, work: Promise<string>): Promise<{ health: Samples; failures: string[]; did: string; loop: { p99: number; max: number } }> {
  const base = serve.base;
  await serve.loopDelay();
  const health = deps.samples();
  const failures: string[] = [];
  let done = false;
  const settled = work.finally(() => (done = true));
  while (!done) {
    await deps.probeHealth(base, health, failures);
    await sleep(PROBE_PAUSE_MS);
  }
  const did = await settled;
  return { health, failures, did, loop: await serve.loopDelay() };
}

async function seedLargeBatch(home: string, key: string, deps: LimitsDeps): Promise<string> {
  const store = new FileJobStore(home);
  const urls = Array.from({ length: LARGE_RESULT_PAGES }, (_, i) => `http://127.0.0.1:9/large/${i}`);
  const { meta } = await store.create('batch', { urls, scrapeOptions: { formats: ['rawHtml'] } }, { jobId: '', status: 'pending', totalScrapedPages: 0 } as never);
  const rawHtml = `<p>${'lorem ipsum '.repeat(Math.ceil((LARGE_RESULT_MB * 1024 * 1024) / 12))}</p>`;
  for (let i = 0; i < urls.length; i++) {
    await store.putPage(meta.jobId, i, { url: urls[i]!, status: 'completed', error: null, metadata: { title: `Large ${i}` }, rawHtml } as never);
  }
  await store.update(meta.jobId, (record) => {
    record.status = 'completed';
    (record as { totalScrapedPages?: number }).totalScrapedPages = urls.length;
  });
  await (await JobOwners.open(home)).add(meta.jobId, deps.keyId(key));
  return meta.jobId;
}

/** Reads the whole batch through /api, following `next` and the pages; the bytes read. */
async function readWhole(base: string, key: string, jobId: string, firecrawl: boolean): Promise<number> {
  let bytes = 0;
  let url: string | undefined = firecrawl ? `${base}/v1/batch/scrape/${jobId}` : `${base}/api/scrape/batch/${jobId}`;
  const headers: Record<string, string> = firecrawl ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
  while (url) {
    const response = await fetch(url, { headers });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${(await response.text()).slice(0, 120)}`);
    // serve writes the record's fields (next among them) before the entries: the answer's
    // start tells where the rest is, and the bench's own event loop (the probe's) never
    // parses 19 MB of JSON.
    let head = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (head.length < HEAD_BYTES) head += Buffer.from(chunk).toString('utf8');
      bytes += chunk.byteLength;
    }
    const next = /"next":"([^"]+)"/.exec(head.slice(0, head.indexOf('"data":[') >>> 0))?.[1];
    url = next ? (firecrawl ? next : `${base}${next}`) : undefined;
  }
  return bytes;
}

async function largeResults(deps: LimitsDeps, key: string): Promise<CaseResult> {
  const home = deps.tempDir('webjobs-bench-results-');
  const jobId = await seedLargeBatch(home, key, deps);
  const serve = await deps.startServe(home, [key]);
  try {
    const started = performance.now();
    const reads = (async () => {
      let total = 0;
      const errors: string[] = [];
      await Promise.all(
        Array.from({ length: READERS }, async (_, r) => {
          for (let round = 0; round < READ_ROUNDS; round++) {
            total += await readWhole(serve.base, key, jobId, r % 2 === 1).catch((err: Error) => (errors.push(err.message), 0));
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      return `${READERS} readers (/api and /v1) x ${READ_ROUNDS} reads of ${LARGE_RESULT_PAGES} x ${LARGE_RESULT_MB} MB: ${(total / 1024 / 1024).toFixed(0)} MB in ${seconds.toFixed(1)} s${errors.length > 0 ? `; ${errors.length} reads FAILED (${errors[0]})` : ''}`;
    })();
    const result = await probed(deps, serve, reads);
    return { label: 'large results', ...result, peakRssMb: peakRssMb(serve.pid) };
  } finally {
    await serve.stop();
  }
}

/** Opens idle connections from 127.0.0.2-9 (nothing sent); resolves with those the server kept and those it refused. */
async function idleConnections(base: string, count: number): Promise<{ kept: net.Socket[]; refused: number }> {
  const { hostname, port } = new URL(base);
  const kept: net.Socket[] = [];
  let refused = 0;
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      new Promise<void>((resolve) => {
        const socket = net.connect({ host: hostname, port: Number(port), localAddress: `127.0.0.${2 + (i % 8)}` });
        socket.on('error', () => undefined);
        // Read what serve sends (its 503 to a connection over the cap), so that its close is seen here.
        socket.resume();
        socket.once('connect', () => {
          kept.push(socket);
          resolve();
        });
        socket.once('close', () => {
          refused++;
          resolve();
        });
      }),
    ),
  );
  await sleep(500);
  return { kept: kept.filter((s) => !s.destroyed && s.readyState === 'open'), refused };
}

async function connections(deps: LimitsDeps, key: string): Promise<CaseResult> {
  const serve = await deps.startServe(deps.tempDir('webjobs-bench-conns-'), [key]);
  let sockets: net.Socket[] = [];
  try {
    // Connected before the probe starts: the bench opening 3,000 sockets would delay its own probe.
    const { kept, refused } = await idleConnections(serve.base, IDLE_CONNECTIONS);
    sockets = kept;
    const work = (async () => {
      await sleep(HOLD_MS);
      const left = kept.filter((s) => s.readyState === 'open').length;
      return `${IDLE_CONNECTIONS} idle connections from 8 addresses: ${kept.length} open after connecting, ${left} still open ${HOLD_MS / 1000} s later, ${refused} closed by serve at once`;
    })();
    const result = await probed(deps, serve, work);
    return { label: 'idle connections', ...result, peakRssMb: peakRssMb(serve.pid) };
  } finally {
    for (const socket of sockets) socket.destroy();
    await serve.stop();
  }
}

/** Scrapes `url` through serve's /api and polls its status until it ends: its final status, the time taken. */
async function scrapeThrough(base: string, key: string, url: string, formats: string[]): Promise<string> {
  const started = performance.now();
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const response = await fetch(`${base}/api/scrape`, { method: 'POST', headers, body: JSON.stringify({ url, scrapeOptions: { formats, timeout: PDF_TIMEOUT_MS } }) });
  if (!response.ok) throw new Error(`POST /api/scrape: HTTP ${response.status} ${(await response.text()).slice(0, 120)}`);
  const { jobId } = (await response.json()) as { jobId: string };
  for (;;) {
    const { status } = (await (await fetch(`${base}/api/scrape/${jobId}/status`, { headers })).json()) as { status: string };
    if (['completed', 'failed', 'stopped'].includes(status)) return `${status} in ${((performance.now() - started) / 1000).toFixed(1)} s`;
    await sleep(POLL_MS);
  }
}

/** Issue 43 item 4: the PDFs that held serve's main thread for a minute, scraped while /healthz is probed. */
async function hostilePdfs(deps: LimitsDeps, key: string): Promise<CaseResult> {
  const lines = tinyLinesPdf(PDF_LINES, 'a tiny line of text');
  const links = manyLinksPdf(PDF_LINKS, 'http://127.0.0.1:9/l/');
  const pdfs: Record<string, Buffer> = { '/lines.pdf': lines, '/links.pdf': links };
  const site = await listenOnLoopback(
    http.createServer((req, res) => {
      const body = pdfs[req.url ?? ''];
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length }).end(body);
    }),
  );
  const serve = await deps.startServe(deps.tempDir('webjobs-bench-pdf-'), [key], [new URL(site.base).host]);
  try {
    const work = (async () => {
      const outcomes: string[] = [];
      for (let round = 0; round < PDF_ROUNDS; round++) {
        const [a, b] = await Promise.all([
          scrapeThrough(serve.base, key, `${site.base}/lines.pdf`, ['markdown']).catch((err: Error) => `FAILED (${err.message})`),
          scrapeThrough(serve.base, key, `${site.base}/links.pdf`, ['markdown', 'links']).catch((err: Error) => `FAILED (${err.message})`),
        ]);
        outcomes.push(`lines ${a}, links ${b}`);
      }
      const kb = (b: Buffer) => `${(b.length / 1024).toFixed(0)} KB`;
      return `${PDF_ROUNDS} rounds of a PDF of ${PDF_LINES} tiny lines (${kb(lines)}) and one of ${PDF_LINKS} links (${kb(links)}) at once, timeout ${PDF_TIMEOUT_MS / 1000} s: ${outcomes.join('; ')}`;
    })();
    const result = await probed(deps, serve, work);
    return { label: 'hostile PDFs', ...result, peakRssMb: peakRssMb(serve.pid) };
  } finally {
    await serve.stop();
    await site.close();
  }
}

const CASES: Record<string, (deps: LimitsDeps, key: string) => Promise<CaseResult>> = { pdf: hostilePdfs, results: largeResults, connections };
/** WEBJOBS_BENCH_LIMITS_CASES=pdf,results,connections (the default: all three) */
const CHOSEN = (process.env.WEBJOBS_BENCH_LIMITS_CASES ?? Object.keys(CASES).join(',')).split(',');

export async function limitsPhase(deps: LimitsDeps, key: string): Promise<void> {
  const fmt = (ms: number) => (Number.isNaN(ms) ? '—' : ms.toFixed(1)).padStart(7);
  console.log(`\nhostile tenants (issue 43): /healthz, ms${' '.repeat(12)}p50     p99     max  probes`);
  const verdicts: string[] = [];
  for (const name of CHOSEN) {
    const run = CASES[name];
    if (!run) throw new Error(`WEBJOBS_BENCH_LIMITS_CASES: no case ${name} (${Object.keys(CASES).join(', ')})`);
    const r = await run(deps, key);
    const h = r.health;
    console.log(`  ${r.label.padEnd(40)} ${fmt(h.percentile(50))} ${fmt(h.percentile(99))} ${fmt(h.max)} ${String(h.ms.length).padStart(7)}`);
    const failed = r.failures.length > 0 ? `${r.failures.length} probes FAILED (${[...new Set(r.failures)].slice(0, 2).join('; ')})` : 'no probe failed';
    console.log(`    ${r.did}; ${failed}; serve's peak RSS ${r.peakRssMb.toFixed(0)} MB; serve's event-loop delay p99 ${r.loop.p99.toFixed(1)} ms, max ${r.loop.max.toFixed(1)}`);
    const p99 = h.percentile(99);
    verdicts.push(`${r.label} ${p99.toFixed(1)} ms (${p99 < 50 && r.failures.length === 0 ? 'met' : 'MISSED'})`);
  }
  console.log(`healthz p99 through the hostile tenants (goal < 50 ms): ${verdicts.join('; ')}`);
}
