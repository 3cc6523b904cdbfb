/**
 * Many machines on one PostgreSQL (a real one, started for this file): two API
 * nodes (`serve --database --no-worker`) and three `webjobs worker` processes
 * on one fixture site. Batches spread over the workers and read back from either
 * node, crawl caps, per-key limits across nodes, cancel, a worker killed or
 * stopped mid-page, and the database restarted mid-run.
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import pgClient from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { MAX_ATTEMPTS } from '../src/pg/connect.js';
import { MIGRATIONS } from '../src/pg/migrations.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { ownerOfPort, startWorker, type WorkerProcess } from './helpers/worker.js';

const KEY = 'pg-test-key-0123456789';
const LIMITED = 'pg-limited-key-0123456789';
const MAX_PER_KEY = 3;
/** Short leases, so a killed worker's page comes back within the test (renewed every 2 s by live workers). */
const LEASE_SECONDS = 6;
const LEASE_ENV = { WEBJOBS_LEASE_SECONDS: String(LEASE_SECONDS) };
const SLOW = 240_000;

let pg: TestPostgres;
let site: FixtureServer;
let nodes: ServeProcess[] = [];
let workers: WorkerProcess[] = [];
let nodeArgs: string[];
let nodeEnv: NodeJS.ProcessEnv;
/** Workers log (not --quiet): a test reads what a worker did with a result it was no longer owed. */
const startTestWorker = () => startWorker(pg.url, ['--concurrency', '2'], LEASE_ENV);

/** Pages that wait for the test: path -> its release, plus the requests that saw their socket close. */
const held = new Map<string, { release: () => void; closed: Promise<void>; port: number }>();
/** Every request of a held path, not only its last: the client's port, and whether it is still open. */
const heldRequests = new Map<string, { port: number; open: boolean }[]>();
const gates = new Map<string, Promise<void>>();
const opened = new Map<string, () => void>();
function gate(name: string): Promise<void> {
  if (!gates.has(name)) gates.set(name, new Promise((resolve) => opened.set(name, resolve)));
  return gates.get(name)!;
}
const openGate = (name: string) => {
  void gate(name);
  opened.get(name)!();
};
/** Resolves when `count` requests of `prefix` have arrived. */
const arrivals = new Map<string, { count: number; waiters: { n: number; resolve: () => void }[] }>();
function arrived(prefix: string): void {
  const a = arrivals.get(prefix) ?? { count: 0, waiters: [] };
  a.count++;
  arrivals.set(prefix, a);
  for (const w of a.waiters.filter((w) => a.count >= w.n)) w.resolve();
}
function untilArrived(prefix: string, n: number): Promise<void> {
  const a = arrivals.get(prefix) ?? { count: 0, waiters: [] };
  arrivals.set(prefix, a);
  if (a.count >= n) return Promise.resolve();
  return new Promise((resolve) => a.waiters.push({ n, resolve }));
}

let barrierInFlight = 0;
const BARRIER = 5;

function page(res: http.ServerResponse, title: string, links = ''): void {
  sendHtml(res, html(`<article><h1>${title}</h1>${articleText(title, 3)}${links}</article>`, { title }));
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const [, kind, n] = path.split('/');
  if (kind === 'p') return page(res, `Page ${n}`);
  if (kind === 'c') {
    const i = Number(n);
    return page(res, `Crawl ${i}`, Array.from({ length: 5 }, (_, k) => `<a href="/c/${i * 5 + k + 1}">child ${k}</a>`).join(' '));
  }
  if (kind === 'barrier') {
    // Holds each request until BARRIER of them are in flight at once: more than one worker's tabs.
    barrierInFlight++;
    arrived('barrier');
    await untilArrived('barrier', BARRIER);
    return page(res, `Page ${n}`);
  }
  if (kind === 'held') {
    // Hangs until the test opens this path's gate; records when the worker gave up the request.
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    held.set(path, { release, closed, port: req.socket.remotePort! });
    const request = { port: req.socket.remotePort!, open: true };
    heldRequests.set(path, [...(heldRequests.get(path) ?? []), request]);
    void closed.then(() => (request.open = false));
    arrived(`held/${n}`);
    await Promise.race([released, gate(path)]);
    if (!res.destroyed) page(res, `Held ${n}`);
    return;
  }
  if (kind === 'zombie') {
    // Request k hangs until the test opens `${path}#k`, then says which it was.
    arrived(`zombie/${n}`);
    const attempt = arrivals.get(`zombie/${n}`)!.count;
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
    held.set(`${path}#${attempt}`, { release: () => undefined, closed, port: req.socket.remotePort! });
    await gate(`${path}#${attempt}`);
    if (!res.destroyed) page(res, `Attempt ${attempt}`);
    return;
  }
  sendHtml(res, html('<h1>Not found</h1>'), 404);
}

async function api(node: ServeProcess, method: string, path: string, body?: unknown, key = KEY): Promise<{ status: number; json: any }> {
  const res = await fetch(`${node.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: await res.json().catch(() => undefined) };
}

/** Polls the status endpoint until the job is final; errors (a database restarting) are waited out. */
async function untilFinal(node: ServeProcess, kindPath: string, jobId: string): Promise<string> {
  for (;;) {
    const { status, json } = await api(node, 'GET', `/api${kindPath}/${jobId}/status`).catch(() => ({ status: 0, json: undefined }));
    if (status === 200 && ['completed', 'failed', 'stopped'].includes(json.status)) return json.status;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function untilScraped(node: ServeProcess, jobId: string, n: number): Promise<void> {
  for (;;) {
    const { status, json } = await api(node, 'GET', `/api/scrape/batch/${jobId}`).catch(() => ({ status: 0, json: undefined }));
    if (status === 200 && json.totalScrapedPages >= n) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function allPages(node: ServeProcess, path: string, batchSize: number): Promise<any[]> {
  const first = await api(node, 'GET', `${path}?page=1&batchSize=${batchSize}`);
  const data = [...first.json.data];
  for (let p = 2; p <= first.json.totalPageBatches; p++) data.push(...(await api(node, 'GET', `${path}?page=${p}&batchSize=${batchSize}`)).json.data);
  return data;
}

const workerPids = () => workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null).map((w) => w.child.pid!);
const workerOf = (pid: number) => workers.find((w) => w.child.pid === pid)!;

/** The doomed page and scrape job: their held paths on the site, in the order doomedState reads them. */
const DOOMED = ['/held/doomed', '/held/doomedScrape'];
const doomedLoads = () => DOOMED.map((path) => arrivals.get(path.slice(1))?.count ?? 0);

/** Deliveries begun so far of the doomed batch page and of the doomed scrape job, and whether both ended. */
async function doomedState(db: pgClient.Client, batchId: string, scrapeId: string): Promise<{ begun: number[]; ended: boolean }> {
  const { rows } = await db.query<{ page: number; job: number; ended: boolean }>(
    `SELECT p.attempt AS page, j.attempt AS job, p.entry IS NOT NULL AND j.status NOT IN ('pending', 'running') AS ended
     FROM webjobs_pages p, webjobs_jobs j WHERE p.job_id = $1 AND p.idx = 1 AND j.id = $2`,
    [batchId, scrapeId],
  );
  return { begun: [rows[0]!.page, rows[0]!.job], ended: rows[0]!.ended };
}

/**
 * The live workers holding an open request of a doomed page, when it is safe to kill them: only if every delivery
 * begun has loaded its page, the one past the last attempt excepted (it records the failure and loads nothing). A
 * worker killed between its begin and its request would end an attempt that loaded nothing, and the count of loads
 * would come short. That happens when a worker slowed past its lease (a loaded machine) lets the page go to another
 * worker, which may be the one about to die. Every request still open counts, not only the last ones: a holder
 * slowed past its lease leaves its request open while the next attempt runs elsewhere. A request whose worker died
 * and whose close is not yet seen has no live owner.
 */
async function doomedHolders(db: pgClient.Client, batchId: string, scrapeId: string, trace: string[]): Promise<number[]> {
  const { begun } = await doomedState(db, batchId, scrapeId);
  const loads = doomedLoads();
  const open = DOOMED.flatMap((path) => heldRequests.get(path) ?? []).filter((r) => r.open);
  const holders = [...new Set(open.flatMap((r) => ownerOfPort(r.port, workerPids()) ?? []))];
  const safe = begun.every((n, i) => Math.min(n, MAX_ATTEMPTS) === loads[i]);
  const line = `begun ${begun} loads ${loads} open ${open.length} holders ${holders} live ${workerPids()}${safe ? '' : ' (a delivery begun has not loaded)'}`;
  if (!trace.at(-1)?.endsWith(line)) trace.push(`${Math.round(performance.now())} ${line}`);
  return safe ? holders : [];
}

/**
 * Kills every live worker loading a doomed page, all at once, and returns how many. When some are, the workers are
 * paused first (their Chromium runs on) and the holders looked for again: paused, no worker can begin a delivery
 * between the look and the kill. A worker still starting is not among them; it is looked at once it is ready.
 */
async function killDoomedHolders(db: pgClient.Client, batchId: string, scrapeId: string, trace: string[]): Promise<number> {
  if ((await doomedHolders(db, batchId, scrapeId, trace)).length === 0) return 0;
  const live = workers.filter((w) => workerPids().includes(w.child.pid!));
  await Promise.all(live.map((w) => w.pause()));
  let killed: WorkerProcess[] = [];
  try {
    const holders = await doomedHolders(db, batchId, scrapeId, trace);
    killed = live.filter((w) => holders.includes(w.child.pid!));
    await Promise.all(killed.map((w) => w.kill()));
    if (killed.length > 0) trace.push(`${Math.round(performance.now())} killed ${killed.map((w) => w.child.pid)}`);
    return killed.length;
  } finally {
    for (const w of live) if (!killed.includes(w)) w.resume();
  }
}

/** The processes that started; if one did not, the others are stopped (nothing outlives the file) and its error thrown. */
function started<T>(results: PromiseSettledResult<T>[], stop: (t: T) => Promise<unknown>): T[] {
  const ok = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    for (const t of ok) void stop(t);
    throw failed.reason;
  }
  return ok;
}

beforeAll(async () => {
  pg = await startPostgres();
  site = await startFixtureServer({}, handle);
  nodeEnv = { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale,${LIMITED}:scale`, ...LEASE_ENV };
  nodeArgs = ['--database', pg.url, '--no-worker', '--allow-private', '--quiet', '--max-jobs-per-key', String(MAX_PER_KEY)];
  const node = () => startServe({ args: nodeArgs, env: nodeEnv });
  // Both API nodes start at once: their migrations meet on the advisory lock.
  nodes = started(await Promise.allSettled([node(), node()]), (n) => n.stop());
  workers = started(await Promise.allSettled([1, 2, 3].map(() => startTestWorker())), (w) => w.stop());
}, SLOW);

afterAll(async () => {
  await Promise.all([...nodes.map((n) => n.stop()), ...workers.map((w) => (w.child.exitCode === null ? w.stop() : undefined))]);
  await site?.close();
  await pg?.stop();
}, SLOW);

describe('webjobs serve --database and webjobs worker', () => {
  it('spreads a batch of 300 over the workers; either API node returns the results in submitted order, paged', async () => {
    const urls = Array.from({ length: 300 }, (_, i) => site.at(i < BARRIER ? `/barrier/${i}` : `/p/${i}`));
    // Its one host may get six requests at once (all the workers' tabs), not the default four, across all workers.
    const start = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls, concurrency: 6 });
    expect(start.status).toBe(200);
    // The barrier pages finish only when five are loading at once: more than one worker (two tabs each) holds them.
    expect(await untilFinal(nodes[1]!, '/scrape/batch', start.json.jobId)).toBe('completed');
    for (const node of nodes) {
      const data = await allPages(node, `/api/scrape/batch/${start.json.jobId}`, 100);
      expect(data.map((e) => e.url)).toEqual(urls);
      expect(data.every((e) => e.status === 'completed')).toBe(true);
      expect(data[7].markdown).toContain('Page 7');
    }
    // Each barrier page was loaded at least once; one held past its lease may have been delivered again (and fenced).
    expect(barrierInFlight).toBeGreaterThanOrEqual(BARRIER);
  }, SLOW);

  it('a crawl with more links than maxPages visits exactly maxPages pages, each once', async () => {
    const before = site.requests.filter((r) => r.startsWith('GET /c/')).length;
    const start = await api(nodes[1]!, 'POST', '/api/crawl', { url: site.at('/c/0'), maxPages: 7 });
    expect(await untilFinal(nodes[0]!, '/crawl', start.json.jobId)).toBe('completed');
    const result = await api(nodes[0]!, 'GET', `/api/crawl/${start.json.jobId}`);
    expect(result.json.totalCrawledPages).toBe(7);
    const visited = site.requests.filter((r) => r.startsWith('GET /c/')).slice(before);
    expect(visited).toHaveLength(7);
    expect(new Set(visited).size).toBe(7);
    expect(result.json.data.map((e: { url: string }) => e.url).sort()).toEqual(visited.map((r) => site.at(r.slice(4))).sort());
  }, SLOW);

  it('a crawl reads the sitemaps (robots.txt Sitemap: lines, indexes, /sitemap.xml) after the start page links, as the file store does', async () => {
    // A site of its own: its /robots.txt and /sitemap.xml are no other test's.
    const mapped: FixtureServer = await startFixtureServer({
      '/robots.txt': (_req, res) => res.end(`User-agent: *\nDisallow: /private\n\nSitemap: ${mapped.at('/maps/index.xml')}\n`),
      '/maps/index.xml': (_req, res) =>
        res.end(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${mapped.at('/maps/a.xml')}</loc></sitemap></sitemapindex>`),
      '/maps/a.xml': (_req, res) =>
        res.end(`<?xml version="1.0"?><urlset>${['/s/0', '/s/1', '/s/2', '/s/3', '/private/x'].map((p) => `<url><loc>${mapped.at(p)}</loc></url>`).join('')}</urlset>`),
      '/sitemap.xml': (_req, res) => res.end(`<?xml version="1.0"?><urlset><url><loc>${mapped.at('/s/4')}</loc></url></urlset>`),
    }, (req, res) => page(res, `Mapped ${req.url}`, req.url === '/s/0' ? '<a href="/s/1">one</a>' : ''));
    try {
      const crawl = async (extra: object) => {
        const start = await api(nodes[0]!, 'POST', '/api/crawl', { url: mapped.at('/s/0'), maxPages: 10, ...extra });
        expect(await untilFinal(nodes[1]!, '/crawl', start.json.jobId)).toBe('completed');
        return (await api(nodes[1]!, 'GET', `/api/crawl/${start.json.jobId}`)).json.data.map((e: { url: string }) => new URL(e.url).pathname);
      };
      // The start page, its link, then the sitemaps' pages breadth-first (robots.txt's index, /sitemap.xml, the
      // file the index lists); the start page and its link once each; /private is disallowed.
      expect(await crawl({})).toEqual(['/s/0', '/s/1', '/s/4', '/s/2', '/s/3']);
      expect(mapped.requests).not.toContain('GET /private/x');
      expect(await crawl({ ignoreSitemap: true })).toEqual(['/s/0', '/s/1']);
      // maxPages holds for sitemap pages too.
      expect(await crawl({ maxPages: 3 })).toHaveLength(3);
    } finally {
      await mapped.close();
    }
  }, SLOW);

  it('20 concurrent starts for one key across both API nodes accept exactly the limit', async () => {
    const starts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api(nodes[i % 2]!, 'POST', '/api/scrape', { url: site.at(`/held/limit${i}`) }, LIMITED)),
    );
    const accepted = starts.filter((s) => s.status === 200);
    expect(accepted).toHaveLength(MAX_PER_KEY);
    expect(starts.filter((s) => s.status === 429)).toHaveLength(20 - MAX_PER_KEY);
    for (const { json } of accepted) expect((await api(nodes[0]!, 'DELETE', `/api/scrape/${json.jobId}`, undefined, LIMITED)).json.status).toBe('stopped');
    // Stopped jobs count no more: the key may start again.
    expect((await api(nodes[1]!, 'POST', '/api/scrape', { url: site.at('/p/limit') }, LIMITED)).status).toBe(200);
  }, SLOW);

  it('cancel mid-batch reaches the workers: loading pages are aborted, the job ends stopped with the finished pages kept', async () => {
    const fast = [0, 1, 2].map((i) => site.at(`/p/fast${i}`));
    const slow = [0, 1, 2, 3].map((i) => site.at(`/held/cancel${i}`));
    // All seven may load at once: the held pages leave the host no slot for the fast ones under the default four.
    const start = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls: [...fast, ...slow], concurrency: 7 });
    await untilScraped(nodes[1]!, start.json.jobId, 3);
    await untilArrived('held/cancel0', 1);
    expect((await api(nodes[1]!, 'DELETE', `/api/scrape/batch/${start.json.jobId}`)).json.status).toBe('stopped');
    // Every held page that began loading is given up by its worker (its browser context closes): told by NOTIFY,
    // as workers poll for stopped jobs only while their LISTEN connection is down.
    await Promise.all(slow.map((u) => new URL(u).pathname).filter((p) => held.has(p)).map((p) => held.get(p)!.closed));
    const result = await api(nodes[0]!, 'GET', `/api/scrape/batch/${start.json.jobId}`);
    expect(result.json.status).toBe('stopped');
    expect(result.json.data.slice(0, 3).map((e: { status: string }) => e.status)).toEqual(['completed', 'completed', 'completed']);
    expect(result.json.data.slice(3).map((e: { status: string }) => e.status)).toEqual(['pending', 'pending', 'pending', 'pending']);
  }, SLOW);

  it('a cancel reaches a worker whose LISTEN connection is lost: it polls for stopped jobs meanwhile', async () => {
    if (process.env.WEBJOBS_TEST_DATABASE_URL) return; // the given server is not ours to close to new connections
    const start = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls: [site.at('/held/deaf')] });
    await untilArrived('held/deaf', 1);
    const holder = workerOf(ownerOfPort(held.get('/held/deaf')!.port, workerPids())!);
    // A database cannot close itself to new connections: this is done from another one.
    const server = new URL(pg.url);
    const database = server.pathname.slice(1);
    server.pathname = '/postgres';
    const db = new pgClient.Client({ connectionString: server.href });
    await db.connect();
    try {
      // The workers' LISTEN connections are cut, and no new connection is let in (those open stay): the stop
      // announced below reaches no worker; only a worker that asks the database can learn of it.
      await db.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
      await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN webjobs_job_ended'`, [database]);
      while (!holder.stderr().includes('lost the connection that hears stopped jobs')) await new Promise((r) => holder.child.stderr!.once('data', r));
      expect((await api(nodes[1]!, 'DELETE', `/api/scrape/batch/${start.json.jobId}`)).json.status).toBe('stopped');
      // The worker gives the page up (its browser context closes) while still unable to listen.
      await held.get('/held/deaf')!.closed;
    } finally {
      await db.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
      await db.end();
    }
    expect(await untilFinal(nodes[0]!, '/scrape/batch', start.json.jobId)).toBe('stopped');
    expect((await api(nodes[0]!, 'GET', `/api/scrape/batch/${start.json.jobId}`)).json.data[0].status).toBe('pending');
  }, SLOW);

  it('a worker killed (SIGKILL) mid-page: the page is run again by another worker, and its result kept', async () => {
    const start = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls: [site.at('/p/k0'), site.at('/held/victim')] });
    await untilArrived('held/victim', 1);
    const holder = ownerOfPort(held.get('/held/victim')!.port, workerPids());
    expect(holder).toBeDefined();
    await workerOf(holder!).kill();
    // The lease runs out; another worker takes the page, and this time it loads.
    openGate('/held/victim');
    expect(await untilFinal(nodes[1]!, '/scrape/batch', start.json.jobId)).toBe('completed');
    const result = await api(nodes[1]!, 'GET', `/api/scrape/batch/${start.json.jobId}`);
    expect(result.json.data.map((e: { status: string }) => e.status)).toEqual(['completed', 'completed']);
    expect(site.requests.filter((r) => r === 'GET /held/victim').length).toBeGreaterThanOrEqual(2);
    workers.push(await startTestWorker());
  }, SLOW);

  it('a worker stopped (SIGTERM) mid-page finishes that page, stores it and exits 0', async () => {
    const start = await api(nodes[1]!, 'POST', '/api/scrape/batch', { urls: [site.at('/held/term')] });
    await untilArrived('held/term', 1);
    const holder = workerOf(ownerOfPort(held.get('/held/term')!.port, workerPids())!);
    holder.child.kill('SIGTERM');
    while (!holder.stderr().includes('shutting down')) await new Promise((r) => holder.child.stderr!.once('data', r));
    openGate('/held/term');
    expect(await holder.exited).toBe(0);
    expect(await untilFinal(nodes[0]!, '/scrape/batch', start.json.jobId)).toBe('completed');
    expect(site.requests.filter((r) => r === 'GET /held/term')).toHaveLength(1);
    workers.push(await startTestWorker());
  }, SLOW);

  it('a page (and a scrape job) whose worker dies on every attempt ends failed after 3 attempts, saying why; the rest of the batch completes', async () => {
    const batch = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls: [site.at('/p/doomed-ok'), site.at('/held/doomed')] });
    const scrape = await api(nodes[1]!, 'POST', '/api/scrape', { url: site.at('/held/doomedScrape') });
    // The batch's other page first: a worker takes queue jobs several at a time, so the one loading the doomed page
    // may be loading this one too, and the kills below would take it with them.
    await untilScraped(nodes[0]!, batch.json.jobId, 1);
    // Each delivery: the worker loading the page dies (with its Chromium), as a page that crashes its machine would make it.
    // The holders die together, before any replacement starts: killed one by one, a second holder could take the
    // first one's page's next attempt, and its own kill then ended two attempts at once.
    // The look is made again every 100 ms until both ended, not once a load: a holder missed once (still starting, or
    // its request between begin and arrival) is found at the next look. Replacements start while the look goes on.
    const trace: string[] = [];
    const replacements: Promise<void>[] = [];
    const db = new pgClient.Client({ connectionString: pg.url });
    await db.connect();
    try {
      while (!(await doomedState(db, batch.json.jobId, scrape.json.jobId)).ended) {
        const killed = await killDoomedHolders(db, batch.json.jobId, scrape.json.jobId, trace);
        for (let i = 0; i < killed; i++) replacements.push(startTestWorker().then((w) => void workers.push(w)));
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await db.end();
      await Promise.all(replacements);
    }
    const lost = /given up after 3 attempts; the last ended because its worker stopped renewing its lease/;
    expect(await untilFinal(nodes[1]!, '/scrape/batch', batch.json.jobId)).toBe('completed');
    const result = await api(nodes[1]!, 'GET', `/api/scrape/batch/${batch.json.jobId}`);
    expect(result.json.data[0].status).toBe('completed');
    expect(result.json.data[1].status).toBe('failed');
    // What the test saw and did, printed when an expectation fails.
    const seen = trace.join('\n');
    expect(result.json.data[1].error, seen).toMatch(/held\/doomed: /);
    expect(result.json.data[1].error, seen).toMatch(lost);
    expect(await untilFinal(nodes[0]!, '/scrape', scrape.json.jobId)).toBe('failed');
    expect((await api(nodes[0]!, 'GET', `/api/scrape/${scrape.json.jobId}`)).json.error, seen).toMatch(lost);
    // The fourth delivery recorded the failure without loading the page again.
    expect(site.requests.filter((r) => r === 'GET /held/doomed'), seen).toHaveLength(3);
    expect(site.requests.filter((r) => r === 'GET /held/doomedScrape'), seen).toHaveLength(3);
  }, SLOW);

  it('politeness holds across workers: with a delay or a Crawl-delay one request at a time to a host, each beginning at least that long after the last one ended; without, at most 4 at once', async () => {
    // Sites of their own, which record when each request began and ended, by their own clock.
    const visits: { path: string; start: number; end: number }[] = [];
    let inFlight = 0;
    let most = 0;
    const record = (holdMs: number) => async (req: http.IncomingMessage, res: http.ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/favicon.ico') return sendHtml(res, '', 404);
      const start = performance.now();
      most = Math.max(most, ++inFlight);
      // Each page takes a while, so that tabs of several workers (six in all) would overlap here unless held apart.
      await new Promise((r) => setTimeout(r, holdMs));
      inFlight--;
      visits.push({ path, start, end: performance.now() });
      page(res, `Polite ${req.url}`, req.url === '/' ? [1, 2, 3, 4, 5].map((i) => `<a href="/c${i}">${i}</a>`).join(' ') : '');
    };
    const DELAY = 400;
    const spaced = () => {
      const pages = [...visits].sort((a, b) => a.start - b.start);
      return pages.slice(1).map((v, i) => ({ afterStart: v.start - pages[i]!.start, afterEnd: v.start - pages[i]!.end }));
    };
    const delayed = await startFixtureServer({}, record(100));
    const crawled = await startFixtureServer({ '/robots.txt': (_req, res) => res.end(`User-agent: *\nCrawl-delay: ${DELAY / 1000}\n`) }, record(100));
    const limited = await startFixtureServer({}, record(300));
    try {
      const batch = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls: [1, 2, 3, 4, 5, 6].map((i) => delayed.at(`/d${i}`)), delay: DELAY });
      expect(await untilFinal(nodes[1]!, '/scrape/batch', batch.json.jobId)).toBe('completed');
      expect(visits).toHaveLength(6);
      expect(most).toBe(1);
      for (const gap of spaced()) {
        expect(gap.afterEnd).toBeGreaterThanOrEqual(DELAY);
        expect(gap.afterStart).toBeGreaterThanOrEqual(DELAY);
      }

      visits.length = 0;
      most = 0;
      const crawl = await api(nodes[1]!, 'POST', '/api/crawl', { url: crawled.at('/'), maxPages: 6 });
      expect(await untilFinal(nodes[0]!, '/crawl', crawl.json.jobId)).toBe('completed');
      expect((await api(nodes[0]!, 'GET', `/api/crawl/${crawl.json.jobId}`)).json.totalCrawledPages).toBe(6);
      expect(most).toBe(1);
      // The six pages and /sitemap.xml, read politely too.
      expect(spaced().length).toBeGreaterThanOrEqual(6);
      for (const gap of spaced()) expect(gap.afterEnd).toBeGreaterThanOrEqual(DELAY);

      visits.length = 0;
      most = 0;
      const wide = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls: Array.from({ length: 18 }, (_, i) => limited.at(`/w${i}`)) });
      expect(await untilFinal(nodes[1]!, '/scrape/batch', wide.json.jobId)).toBe('completed');
      expect(visits).toHaveLength(18);
      expect(most).toBeLessThanOrEqual(4);
    } finally {
      await Promise.all([delayed.close(), crawled.close(), limited.close()]);
    }
  }, SLOW);

  it('a long page on a live worker keeps its lease (renewed) and is not run again elsewhere', async () => {
    const start = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls: [site.at('/held/long')] });
    await untilArrived('held/long', 1);
    const db = new pgClient.Client({ connectionString: pg.url });
    await db.connect();
    try {
      const lease = async () =>
        (await db.query<{ lease_until: Date; attempt: number }>('SELECT lease_until, attempt FROM webjobs_pages WHERE job_id = $1 AND idx = 0', [start.json.jobId]))
          .rows[0]!;
      const first = (await lease()).lease_until.getTime();
      // Wait until the heartbeat has carried the lease two whole leases past where it first ended.
      for (let now = await lease(); now.lease_until.getTime() < first + 2 * LEASE_SECONDS * 1000; now = await lease()) {
        expect(now.attempt).toBe(1);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await db.end();
    }
    openGate('/held/long');
    expect(await untilFinal(nodes[1]!, '/scrape/batch', start.json.jobId)).toBe('completed');
    expect(site.requests.filter((r) => r === 'GET /held/long')).toHaveLength(1);
  }, SLOW);

  it('a worker presumed dead (frozen past its lease) that comes back cannot overwrite the retry\'s result', async () => {
    const start = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls: [site.at('/zombie/z')] });
    await untilArrived('zombie/z', 1);
    const stale = workerOf(ownerOfPort(held.get('/zombie/z#1')!.port, workerPids())!);
    stale.child.kill('SIGSTOP');
    try {
      // Its lease runs out; another worker takes the page back and begins it again.
      await untilArrived('zombie/z', 2);
      // While the retry still loads, the first load ends and the frozen worker resumes with a result for a page it no longer holds.
      openGate('/zombie/z#1');
      await held.get('/zombie/z#1')!.closed;
    } finally {
      stale.child.kill('SIGCONT');
    }
    // The stale worker says it dropped its result, or (were writes not fenced) the job ends with it.
    const dropped = () => stale.stderr().includes(`job ${start.json.jobId}: its lease was taken back`);
    while (!dropped() && (await api(nodes[1]!, 'GET', `/api/scrape/batch/${start.json.jobId}/status`)).json.status !== 'completed') {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(stale.stderr()).toContain('this result (attempt 1) is dropped');
    expect((await api(nodes[1]!, 'GET', `/api/scrape/batch/${start.json.jobId}`)).json.data[0].status).toBe('pending');
    openGate('/zombie/z#2');
    expect(await untilFinal(nodes[0]!, '/scrape/batch', start.json.jobId)).toBe('completed');
    const data = (await api(nodes[0]!, 'GET', `/api/scrape/batch/${start.json.jobId}`)).json.data;
    expect(data[0].markdown).toContain('Attempt 2');
  }, SLOW);

  it('an API node killed mid-batch loses nothing: its replacement and the other node return every result', async () => {
    const urls = [...Array.from({ length: 8 }, (_, i) => site.at(`/p/node${i}`)), site.at('/held/node')];
    const start = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls });
    await untilArrived('held/node', 1);
    await nodes[0]!.crash();
    nodes[0] = await startServe({ args: nodeArgs, env: nodeEnv });
    openGate('/held/node');
    expect(await untilFinal(nodes[0]!, '/scrape/batch', start.json.jobId)).toBe('completed');
    for (const node of nodes) {
      const data = await allPages(node, `/api/scrape/batch/${start.json.jobId}`, 4);
      expect(data.map((e) => e.url)).toEqual(urls);
      expect(data.every((e) => e.status === 'completed')).toBe(true);
    }
  }, SLOW);

  it('PostgreSQL restarted mid-run: nodes and workers reconnect and the batch finishes with every page', async () => {
    if (process.env.WEBJOBS_TEST_DATABASE_URL) return; // the given server is not ours to restart
    const urls = Array.from({ length: 40 }, (_, i) => site.at(`/p/restart${i}`));
    const start = await api(nodes[0]!, 'POST', '/api/scrape/batch', { urls });
    await untilScraped(nodes[0]!, start.json.jobId, 5);
    await pg.restart();
    expect(await untilFinal(nodes[1]!, '/scrape/batch', start.json.jobId)).toBe('completed');
    const data = await allPages(nodes[1]!, `/api/scrape/batch/${start.json.jobId}`, 100);
    expect(data.map((e) => e.url)).toEqual(urls);
    expect(data.every((e) => e.status === 'completed')).toBe(true);
  }, SLOW);

  it('a connection cut in the middle of a schema migration: the node runs it again and starts on the whole schema', async () => {
    if (process.env.WEBJOBS_TEST_DATABASE_URL) return; // a database of its own is created and dropped on our server
    const admin = new pgClient.Client({ connectionString: pg.url });
    await admin.connect();
    const database = `webjobs_migrate_${process.pid}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(pg.url);
    url.pathname = `/${database}`;
    const db = new pgClient.Client({ connectionString: url.href });
    let node: Promise<ServeProcess> | undefined;
    try {
      await db.connect();
      // The schema at version 1, as an older webjobs left it; migration 2 alters webjobs_pages, so it waits
      // while this transaction reads that table.
      await db.query('CREATE TABLE webjobs_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      await db.query(MIGRATIONS[0]!);
      await db.query('INSERT INTO webjobs_migrations (version) VALUES (1)');
      await db.query('BEGIN');
      await db.query('LOCK TABLE webjobs_pages IN ACCESS SHARE MODE');
      node = startServe({ args: ['--database', url.href, '--no-worker', '--allow-private', '--quiet'], env: nodeEnv });
      const migrating = async () =>
        (
          await admin.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE 'ALTER TABLE webjobs_pages%'`,
            [database],
          )
        ).rows[0]?.pid;
      let pid: number | undefined;
      while ((pid = await migrating()) === undefined) await new Promise((r) => setTimeout(r, 50));
      // Its connection is cut mid-migration (as a database restart or a network cut would), then the table is free.
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await db.query('COMMIT');
      const started = await node;
      expect(started.child.exitCode).toBeNull();
      const versions = await db.query<{ version: number }>('SELECT version FROM webjobs_migrations ORDER BY version');
      expect(versions.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
      const leaseColumn = await db.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'webjobs_pages' AND column_name = 'lease_until'`);
      expect(leaseColumn.rowCount).toBe(1);
      // And the node works on it.
      expect((await api(started, 'POST', '/api/scrape/batch', { urls: [site.at('/p/migrated')] })).status).toBe(200);
    } finally {
      await (await node?.catch(() => undefined))?.stop();
      await db.end();
      await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
      await admin.end();
    }
  }, SLOW);
});
