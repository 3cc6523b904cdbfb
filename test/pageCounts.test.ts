/**
 * `webjobs status` and `webjobs jobs` count a batch's or crawl's pages (completed, failed, changed) from pages.idx,
 * where each entry's line carries its marks (api/pageCounts.ts), never reading an entry: at 100,000 pages reading
 * them took `status` 6 s and `jobs` 10.8 s (issue 59). The counts stay what `result` holds after a kill -9, a
 * resume, a mend for `retry`, and for a job stored by an older version (index lines without marks: read).
 */
import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageEntry } from '../src/api/types.js';
import { FileJobStore } from '../src/store/fileStore.js';
import { runCli, startCli, tempHome } from './helpers/cli.js';
import { html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startResumeSite, storedEntries, until, PAGES, type ResumeSite } from './helpers/resumeSite.js';

interface Counts {
  completed: number;
  failed: number;
  changed: number;
}

const entry = (n: number, status: 'completed' | 'failed', changeStatus?: string): PageEntry =>
  ({
    url: `https://a.example/${n}`,
    status,
    error: status === 'failed' ? 'HTTP 404' : null,
    metadata: {},
    ...(changeStatus ? { changeTracking: { changeStatus } } : {}),
  }) as PageEntry;

/** The counts of entries as `result` gives them: what the counts must say. */
function countOf(entries: { status: string; changeTracking?: { changeStatus: string } }[]): Counts {
  const changed = entries.filter((e) => ['new', 'changed', 'removed'].includes(e.changeTracking?.changeStatus ?? '')).length;
  return { completed: entries.filter((e) => e.status === 'completed').length, failed: entries.filter((e) => e.status === 'failed').length, changed };
}

async function jobsCounts(home: string, jobId: string): Promise<Counts | undefined> {
  const listed = await runCli(['jobs', '--json'], { env: { WEBJOBS_HOME: home } });
  expect(listed.code).toBe(0);
  return (JSON.parse(listed.stdout) as { jobId: string; pages?: Counts }[]).find((job) => job.jobId === jobId)?.pages;
}

async function resultEntries(home: string, jobId: string): Promise<{ status: string; data: { status: string; url: string }[] }> {
  const result = await runCli(['result', jobId], { env: { WEBJOBS_HOME: home } });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { status: string; data: { status: string; url: string }[] };
}

describe('page counts from pages.idx (the store)', () => {
  it('counts entries by their marks, below the count asked, an entry stored again as its later self', async () => {
    const store = new FileJobStore(tempHome());
    const { meta } = await store.create('crawl', { url: 'https://a.example/' }, { jobId: '', status: 'running' } as never);
    const jobId = meta.jobId;
    await Promise.all([
      store.putPage(jobId, 0, entry(0, 'completed', 'new')),
      store.putPage(jobId, 1, entry(1, 'completed', 'same')),
      store.putPage(jobId, 2, entry(2, 'failed')),
      store.putPage(jobId, 3, entry(3, 'completed', 'changed')),
      store.putPage(jobId, 4, entry(4, 'completed')),
    ]);
    expect(await store.pageCounts(jobId, 5)).toEqual({ completed: 4, failed: 1, changed: 2 });
    expect(await store.pageCounts(jobId, 3)).toEqual({ completed: 2, failed: 1, changed: 1 });
    // Redone by a resumed run: the later line's entry counts, once.
    await store.putPage(jobId, 2, entry(2, 'completed', 'removed'));
    expect(await store.pageCounts(jobId, 5)).toEqual({ completed: 5, failed: 0, changed: 3 });
  });

  it("an older version's index lines (no marks) leave the count to the entries; a mend gives them marks", async () => {
    const home = tempHome();
    const store = new FileJobStore(home);
    const { meta } = await store.create('crawl', { url: 'https://a.example/' }, { jobId: '', status: 'running' } as never);
    const jobId = meta.jobId;
    const dir = path.join(home, 'jobs', jobId);
    await store.putPage(jobId, 0, entry(0, 'failed'));
    // An entry appended as an older version did: its line says where it is, not what it is.
    const text = JSON.stringify(entry(1, 'completed', 'new'));
    const offset = statSync(path.join(dir, 'pages.jsonl')).size;
    appendFileSync(path.join(dir, 'pages.jsonl'), `${text}\n`);
    appendFileSync(path.join(dir, 'pages.idx'), `${JSON.stringify([1, offset, Buffer.byteLength(text)])}\n`);
    expect(await store.readPages(jobId, 0, 2)).toEqual([entry(0, 'failed'), entry(1, 'completed', 'new')]);
    expect(await store.pageCounts(jobId, 2)).toBeUndefined();
    expect(await store.pageCounts(jobId, 1)).toEqual({ completed: 0, failed: 1, changed: 0 });
    await store.mendPages(jobId, 'missing');
    expect(await store.pageCounts(jobId, 2)).toEqual({ completed: 1, failed: 1, changed: 1 });
  });

  it("a batch's entries lost and mended for retry count as the failed entries they became", async () => {
    const home = tempHome();
    const store = new FileJobStore(home);
    const urls = [0, 1, 2].map((n) => `https://a.example/${n}`);
    const { meta } = await store.create('batch', { urls }, { jobId: '', status: 'completed', totalScrapedPages: 3 } as never);
    const jobId = meta.jobId;
    for (const n of [0, 1, 2]) await store.putPage(jobId, n, entry(n, 'completed'));
    const log = path.join(home, 'jobs', jobId, 'pages.jsonl');
    // The last entry's bytes lost (a crash of the machine).
    truncateSync(log, statSync(log).size - 10);
    const { lost } = await store.mendPages(jobId, 'failed');
    expect(lost).toEqual([2]);
    expect(await store.pageCounts(jobId, 3)).toEqual({ completed: 2, failed: 1, changed: 0 });
  });
});

describe('status and jobs count pages without reading them', () => {
  let site: FixtureServer;
  beforeAll(async () => {
    const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {};
    for (let n = 0; n < 6; n++) {
      // Each page links to the next and to a page that is not there (404: a failed entry).
      const links = [`<a href="/p/${n + 1}">next</a>`, `<a href="/gone/${n}">gone</a>`].join(' ');
      routes[`/p/${n}`] = (_req, res) => sendHtml(res, html(`<article><h1>Page ${n}</h1><p>The text of page ${n}, long enough to be content. ${links}</p></article>`));
    }
    site = await startFixtureServer(routes);
  });
  afterAll(async () => {
    await site?.close();
  });

  it('jobs --json and status give the counts result holds, with the entries in pages.jsonl unreadable', async () => {
    const home = tempHome();
    const env = { WEBJOBS_HOME: home };
    const crawl = await runCli(['crawl', site.at('/p/0'), '--max-pages', '20', '--ignore-sitemap', '--engine', 'http', '--formats', 'markdown,changeTracking', '--fail', '-q'], { env });
    // Exit 3: some pages failed (the 404s, with --fail).
    expect(crawl.code, crawl.stderr).toBe(3);
    const [jobId] = readdirSync(path.join(home, 'jobs')).filter((name) => !name.startsWith('.'));
    const expected = countOf((await resultEntries(home, jobId!)).data as never);
    expect(expected.failed).toBeGreaterThan(0);
    expect(expected.completed).toBeGreaterThan(0);
    expect(expected.changed).toBeGreaterThan(0);
    // Every byte of the entries made a space, the file as long as before: an entry read would be refused as damaged.
    const log = path.join(home, 'jobs', jobId!, 'pages.jsonl');
    writeFileSync(log, Buffer.alloc(statSync(log).size, 0x20));
    expect((await runCli(['result', jobId!], { env })).code).not.toBe(0);
    expect(await jobsCounts(home, jobId!)).toEqual(expected);
    const status = await runCli(['status', jobId!], { env });
    expect(status.stdout.trim()).toBe('completed');
    expect(status.stderr.trim()).toBe(`webjobs: ${expected.completed} pages completed, ${expected.failed} failed, ${expected.changed} changed`);
  });
});

describe('counts after a kill -9 and a resume', () => {
  let site: ResumeSite;
  beforeAll(async () => {
    site = await startResumeSite();
  });
  afterAll(async () => {
    site?.releaseHeld();
    await site?.server.close();
  });

  it('a crawl killed with SIGKILL counts the pages it stored, and all of them once resumed', { timeout: 60_000 }, async () => {
    const home = tempHome();
    const env = { WEBJOBS_HOME: home };
    site.serveNext(5);
    const cli = startCli(['crawl', site.server.at('/'), '--max-pages', '100', '--delay', '1', '--ignore-sitemap', '--engine', 'http'], { env });
    let stored = 0;
    let dir = '';
    await until(
      async () => {
        if (cli.child.exitCode !== null) throw new Error(`the CLI ended early: ${cli.output().stderr}`);
        const ids = (() => {
          try {
            return readdirSync(path.join(home, 'jobs')).filter((name) => !name.startsWith('.'));
          } catch {
            return [];
          }
        })();
        dir = ids[0] ? path.join(home, 'jobs', ids[0]) : '';
        stored = dir ? await storedEntries(dir) : 0;
        return site.held() > 0 && stored === 5;
      },
      () => `${stored} stored, ${site.held()} held`,
    );
    cli.child.kill('SIGKILL');
    expect((await cli.done).signal).toBe('SIGKILL');
    const jobId = path.basename(dir);
    // The record counted its entries every so often: the counts are what is stored, as result says.
    expect(await jobsCounts(home, jobId)).toEqual({ completed: 5, failed: 0, changed: 0 });
    const killed = await resultEntries(home, jobId);
    expect(killed.status).toBe('failed');
    expect(countOf(killed.data)).toEqual({ completed: 5, failed: 0, changed: 0 });
    expect(JSON.parse(readFileSync(path.join(dir, 'job.json'), 'utf8')).totalCrawledPages).toBe(5);

    site.releaseHeld();
    site.serveNext(Infinity);
    const resumed = await runCli(['resume', jobId, '-q'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await jobsCounts(home, jobId)).toEqual({ completed: PAGES, failed: 0, changed: 0 });
    expect(countOf((await resultEntries(home, jobId)).data)).toEqual({ completed: PAGES, failed: 0, changed: 0 });
  });
});
