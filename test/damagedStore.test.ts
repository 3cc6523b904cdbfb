/**
 * A damaged store is said and mended (issue 54, finding 3): a batch's or crawl's pages.jsonl and pages.idx
 * damaged each way the probe did (pages.jsonl cut short or removed; pages.idx emptied, cut short, garbled, every
 * line pointed at offset 0) make `webjobs result` exit 8 naming the file, never a completed job with entries
 * lost or one entry served as another; serve answers the error; `webjobs resume` mends the store and redoes the
 * entries that cannot be read, and `webjobs retry` runs them again. The jobs are real: the CLI's batch and
 * crawl, and serve's batch, over a site on 127.0.0.1 with the HTTP engine.
 */
import { cpSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DamagedPagesError } from '../src/api/errors.js';
import type { PageEntry } from '../src/api/types.js';
import { FileJobStore } from '../src/store/fileStore.js';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

let site: FixtureServer;
const PAGES = ['/one', '/two', '/three'];
/** Requests each page had, by path. */
const served = new Map<string, number>();

beforeAll(async () => {
  const page = (name: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
    served.set(`/${name}`, (served.get(`/${name}`) ?? 0) + 1);
    const links = PAGES.map((p) => `<a href="${p}">${p}</a>`).join(' ');
    sendHtml(res, html(`<article><h1>Page ${name}</h1>${articleText(name, 3)}<p>${links}</p></article>`, { title: `Page ${name}` }));
  };
  site = await startFixtureServer({ '/one': page('one'), '/two': page('two'), '/three': page('three') });
});

afterAll(async () => {
  await site?.close();
});

const env = (home: string) => ({ WEBJOBS_HOME: home });
const jobDir = (home: string, jobId: string) => path.join(home, 'jobs', jobId);

function onlyJob(home: string): string {
  const ids = readdirSync(path.join(home, 'jobs')).filter((name) => !name.startsWith('.'));
  return ids.sort()[0]!;
}

/** A completed job of `kind` over the site, as the CLI stores it: its home and id. */
async function completedJob(kind: 'batch' | 'crawl'): Promise<{ home: string; jobId: string }> {
  const home = tempHome();
  const args = kind === 'batch' ? ['batch', ...PAGES.map((p) => site.at(p)), '--concurrency', '1'] : ['crawl', site.at('/one'), '--max-pages', '3'];
  const run = await runCli([...args, '--engine', 'http', '--json', '--quiet'], { env: env(home) });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return { home, jobId: onlyJob(home) };
}

const made = new Map<string, Promise<{ home: string; jobId: string }>>();
/** completedJob, made once for the test file. */
function completedJobOnce(kind: 'batch' | 'crawl'): Promise<{ home: string; jobId: string }> {
  if (!made.has(kind)) made.set(kind, completedJob(kind));
  return made.get(kind)!;
}

/** A copy of `job`'s home, to damage without touching the original. */
function copyOf(job: { home: string; jobId: string }): { home: string; jobId: string; dir: string } {
  const home = tempHome();
  cpSync(path.join(job.home, 'jobs'), path.join(home, 'jobs'), { recursive: true });
  return { home, jobId: job.jobId, dir: jobDir(home, job.jobId) };
}

type Damage = { name: string; file: 'pages.jsonl' | 'pages.idx'; damage(dir: string): void };

const idxLines = (dir: string) => readFileSync(path.join(dir, 'pages.idx'), 'utf8').split('\n').filter(Boolean);

/** Each way the probe damaged the files. */
const DAMAGES: Damage[] = [
  {
    name: 'pages.jsonl cut short',
    file: 'pages.jsonl',
    damage: (dir) => truncateSync(path.join(dir, 'pages.jsonl'), Math.floor(readFileSync(path.join(dir, 'pages.jsonl')).length / 2)),
  },
  { name: 'pages.jsonl removed', file: 'pages.jsonl', damage: (dir) => rmSync(path.join(dir, 'pages.jsonl')) },
  { name: 'pages.idx emptied', file: 'pages.idx', damage: (dir) => truncateSync(path.join(dir, 'pages.idx'), 0) },
  { name: 'pages.idx cut short (its last line lost)', file: 'pages.idx', damage: (dir) => writeFileSync(path.join(dir, 'pages.idx'), idxLines(dir).slice(0, -1).join('\n') + '\n') },
  {
    name: 'pages.idx garbled',
    file: 'pages.idx',
    damage: (dir) => writeFileSync(path.join(dir, 'pages.idx'), idxLines(dir).map((line, i) => (i === 1 ? line.replace(/\d/g, 'x') : line)).join('\n') + '\n'),
  },
  {
    name: 'every pages.idx line pointed at offset 0',
    file: 'pages.idx',
    damage: (dir) => {
      const lines = idxLines(dir).map((line) => JSON.parse(line) as number[]);
      const first = lines.find((line) => line[1] === 0)!;
      writeFileSync(path.join(dir, 'pages.idx'), lines.map(([i]) => JSON.stringify([i, 0, first[2]])).join('\n') + '\n');
    },
  },
  {
    name: 'a pages.idx line pointing one byte off',
    file: 'pages.idx',
    damage: (dir) =>
      writeFileSync(
        path.join(dir, 'pages.idx'),
        idxLines(dir).map((line, n) => (n === 1 ? line.replace(/^\[(\d+),(\d+),(\d+)(,\d+)?\]$/, (_m, i, o, l, marks = '') => `[${i},${Number(o) + 1},${l}${marks}]`) : line)).join('\n') + '\n',
      ),
  },
];

/** The job's result, or what the CLI said and its exit code. */
async function result(home: string, jobId: string) {
  const run = await runCli(['result', jobId, '--json'], { env: env(home) });
  return { code: run.code, stderr: run.stderr, record: run.code === 0 ? (JSON.parse(run.stdout) as { status: string; data: PageEntry[] }) : undefined };
}

describe('a damaged batch', () => {
  let batch: { home: string; jobId: string };
  beforeAll(async () => {
    batch = await completedJobOnce('batch');
  }, 60_000);

  it.each(DAMAGES)('$name: result exits 8 naming the file', async ({ file, damage }) => {
    const job = copyOf(batch);
    damage(job.dir);
    const said = await result(job.home, job.jobId);
    expect(said.stderr).toContain(`the record of job ${job.jobId} is damaged (${file} `);
    expect(said.stderr).toContain(`webjobs resume ${job.jobId}`);
    expect(said.stderr.trim().split('\n')).toHaveLength(1);
    expect(said.code).toBe(8);
  });

  /** Resume's cases: the bytes lost, the index lost, the index pointing at one entry's bytes for all. */
  const RESUMED = DAMAGES.filter((_, n) => [0, 2, 5].includes(n));

  it.each(RESUMED)('$name: resume redoes the entries that cannot be read, and the job reads whole again', async ({ damage }) => {
    const job = copyOf(batch);
    damage(job.dir);
    const before = new Map(served);
    const resumed = await runCli(['resume', job.jobId, '--json', '--quiet'], { env: env(job.home) });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const said = await result(job.home, job.jobId);
    expect(said.code).toBe(0);
    expect(said.record!.status).toBe('completed');
    expect(said.record!.data.map((entry) => [entry.url, entry.status, entry.metadata.title])).toEqual(
      PAGES.map((p) => [site.at(p), 'completed', `Page ${p.slice(1)}`]),
    );
    // Some page was fetched again (what was lost), and none that could still be read... at most each once.
    const again = PAGES.map((p) => (served.get(p) ?? 0) - (before.get(p) ?? 0));
    expect(again.some((n) => n > 0)).toBe(true);
    expect(again.every((n) => n <= 1)).toBe(true);
    // A second resume has nothing left to do.
    const twice = await runCli(['resume', job.jobId, '--quiet'], { env: env(job.home) });
    expect(twice.code).toBe(11);
  });

  it('retry runs the entries that cannot be read again, in a new job, and the old one says they were lost', async () => {
    const job = copyOf(batch);
    DAMAGES[0]!.damage(job.dir);
    const retried = await runCli(['retry', job.jobId, '--json'], { env: env(job.home) });
    expect(retried.stderr).toContain(`the record of job ${job.jobId} is damaged (pages.jsonl is cut short): mended`);
    expect(retried.code).toBe(0);
    const rerun = JSON.parse(retried.stdout) as { data: PageEntry[] };
    expect(rerun.data.length).toBeGreaterThan(0);
    expect(rerun.data.every((entry) => entry.status === 'completed')).toBe(true);
    const old = await result(job.home, job.jobId);
    expect(old.code).toBe(0);
    const lost = old.record!.data.filter((entry) => entry.status === 'failed');
    expect(lost.map((entry) => entry.url)).toEqual(rerun.data.map((entry) => entry.url));
    expect(lost.every((entry) => entry.error?.startsWith('lost: '))).toBe(true);
  });
});

describe('the store', () => {
  it.each(['batch', 'crawl'] as const)('refuses to read a damaged %s, each way, naming the file', async (kind) => {
    const job = kind === 'batch' ? await completedJobOnce('batch') : await completedJobOnce('crawl');
    for (const { name, file, damage } of DAMAGES) {
      const copy = copyOf(job);
      damage(copy.dir);
      const store = new FileJobStore(copy.home);
      const read = store.read(copy.jobId).then(
        async () => store.readPages(copy.jobId, 0, 3),
        (err: unknown) => Promise.reject(err),
      );
      await expect(read, name).rejects.toThrow(new RegExp(`is damaged \\(${file.replace('.', '\\.')} `));
      await expect(read, name).rejects.toBeInstanceOf(DamagedPagesError);
    }
  });
  it('mends a crawl of 3,000 entries: every readable entry kept in order, the cut one left out, no listener left per entry', async () => {
    const home = tempHome();
    const store = new FileJobStore(home);
    const { meta } = await store.create('crawl', { url: 'https://a.example/' }, { jobId: '', status: 'running', totalCrawledPages: 3000 } as never);
    const entryOf = (n: number) => ({ url: `https://a.example/${n}`, status: 'completed', error: null, metadata: {}, markdown: `page ${n}` }) as unknown as PageEntry;
    for (let n = 0; n < 3000; n++) await store.putPage(meta.jobId, n, entryOf(n));
    const log = path.join(home, 'jobs', meta.jobId, 'pages.jsonl');
    truncateSync(log, readFileSync(log).length - 5);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const { lost } = await store.mendPages(meta.jobId, 'missing');
      expect(lost).toEqual([2999]);
    } finally {
      process.off('warning', onWarning);
    }
    // Node says a leak of listeners only from the 11th on, once per emitter and event: any is a listener per entry.
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    const kept = await store.readPages(meta.jobId, 0, 2999);
    expect(kept.map((e) => e.url)).toEqual(Array.from({ length: 2999 }, (_, n) => `https://a.example/${n}`));
  });
});

describe('a damaged crawl', () => {
  let crawl: { home: string; jobId: string };
  beforeAll(async () => {
    crawl = await completedJobOnce('crawl');
  }, 60_000);

  it.each(DAMAGES.filter((_, n) => [1, 4].includes(n)))('$name: result exits 8 naming the file; resume crawls what was lost again', async ({ file, damage }) => {
    const job = copyOf(crawl);
    damage(job.dir);
    const said = await result(job.home, job.jobId);
    expect(said.stderr).toContain(`(${file} `);
    expect(said.code).toBe(8);
    const resumed = await runCli(['resume', job.jobId, '--json', '--quiet'], { env: env(job.home) });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const whole = await result(job.home, job.jobId);
    expect(whole.code).toBe(0);
    expect(whole.record!.data.map((entry) => entry.url).sort()).toEqual(PAGES.map((p) => site.at(p)).sort());
    expect(whole.record!.data.every((entry) => entry.status === 'completed')).toBe(true);
  });
});

describe('serve', () => {
  let server: ServeProcess;
  const KEY = 'damaged-store-key-0123456789';
  const home = tempHome();
  beforeAll(async () => {
    server = await startServe({ args: ['--allow-host', new URL(site.url).host, '--quiet'], env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale` } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("answers a damaged batch's result with the error, naming the file, on /api and Firecrawl's routes", async () => {
    const call = async (method: string, pathname: string, body?: unknown) => {
      const response = await fetch(`${server.url}${pathname}`, {
        method,
        headers: { 'x-api-key': KEY, authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: (await response.json()) as { status?: string; message?: string; error?: string; code?: string } };
    };
    const started = await call('POST', '/api/scrape/batch', { urls: PAGES.map((p) => site.at(p)), scrapeOptions: { engine: 'http' } });
    expect(started.status).toBe(200);
    const jobId = (started.body as { jobId: string }).jobId;
    // Waits for the job's end, as a client does (the status answers, never a sleep of a set time).
    while ((await call('GET', `/api/scrape/batch/${jobId}/status`)).body.status !== 'completed');
    expect((await call('GET', `/api/scrape/batch/${jobId}`)).status).toBe(200);
    const dir = readdirSync(path.join(home, 'jobs'), { recursive: true, withFileTypes: true }).find((entry) => entry.name === jobId)!;
    const idx = path.join(dir.parentPath, jobId, 'pages.idx');
    truncateSync(idx, 0);
    for (const route of [`/api/scrape/batch/${jobId}`, `/v1/batch/scrape/${jobId}`, `/v2/batch/scrape/${jobId}`]) {
      const answer = await call('GET', route);
      expect(answer.status).toBe(500);
      expect(JSON.stringify(answer.body)).toContain(`the record of job ${jobId} is damaged (pages.idx lists 0 of the 3 entries stored)`);
    }
  });
});
