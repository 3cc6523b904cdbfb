/**
 * `webjobs resume` through `webjobs serve` (issue 41): on the file store, a crawl
 * whose serve was killed with SIGKILL (or stopped with SIGTERM) is failed as
 * interrupted and goes on with `webjobs resume ID --remote`; a crawl stopped by Ctrl-C on a
 * `--remote` CLI goes on through POST /api/crawl/{id}/resume. On PostgreSQL
 * (serve --database + webjobs worker), a stopped batch goes on the same way. In
 * each, every page ends stored once and was served once (helpers/resumeSite.ts).
 * A job that cannot resume is answered 409 with code not_resumable (exit 11).
 */
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCli, tempHome } from './helpers/cli.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { allPaths, expectEachServedOnce, startResumeSite, storedEntries, until, type ResumeSite } from './helpers/resumeSite.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';
import { startWorker, type WorkerProcess } from './helpers/worker.js';

const KEY = 'resume-key-0123456789';
let site: ResumeSite;
let serve: ServeProcess | undefined;
const api = serveClient(() => serve!.url, KEY);

beforeAll(async () => {
  site = await startResumeSite();
});
beforeEach(() => site.reset());
afterAll(async () => {
  site?.releaseHeld();
  await serve?.stop();
  await site?.server.close();
});

function storedPages(home: string, jobId: string): Promise<number> {
  return storedEntries(path.join(home, 'jobs', jobId));
}

const at = (p: string) => site.server.at(p);
const crawlRequest = () => ({ url: at('/'), maxPages: 100, delay: 1, ignoreSitemap: true, scrapeOptions: { engine: 'http' } });
const remoteEnv = () => ({ WEBJOBS_API_KEY: KEY, WEBJOBS_HOME: tempHome() });

interface Entry {
  url: string;
}

describe('resume on serve (file store)', () => {
  it.each([
    ['killed with SIGKILL', 'webjobs serve stopped while this job was running (crash, kill or restart)'],
    ['stopped with SIGTERM', 'webjobs serve shut down while this job was running'],
  ])('a crawl whose serve was %s goes on with webjobs resume --remote: every page once', async (how, why) => {
    const home = tempHome();
    const args = ['--allow-private', '--quiet'];
    const env = { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale` };
    await serve?.stop();
    serve = await startServe({ args, env });
    site.serveNext(4);
    const job = await api.start('crawl', crawlRequest());
    const jobId = job.split('/').pop()!;
    let seen = 0;
    await until(
      async () => site.held() > 0 && (seen = await storedPages(home, jobId)) === 4,
      () => `${seen} stored, ${site.held()} held`,
    );
    await (how === 'stopped with SIGTERM' ? serve.stop() : serve.crash());
    site.releaseHeld();
    site.serveNext(Infinity);
    serve = await startServe({ args, env });
    const interrupted = await api.call('GET', `${job}?batchSize=1`);
    expect(interrupted.body.status).toBe('failed');
    expect(interrupted.body.error).toBe(`interrupted: ${why}; go on with: webjobs resume ${jobId}`);

    const resumed = await runCli(['resume', jobId, '--remote', serve.url, '--json'], { env: remoteEnv() });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const record = JSON.parse(resumed.stdout) as { status: string; data: Entry[] };
    expect(record.status).toBe('completed');
    expect(record.data.map((entry) => new URL(entry.url).pathname).sort()).toEqual([...allPaths].sort());
    expectEachServedOnce(site);

    // Completed now: refused, 409 not_resumable, exit 11 on the CLI.
    const again = await api.call('POST', `${job}/resume`);
    expect(again).toEqual({ status: 409, body: { message: `crawl job ${jobId} completed; there is nothing to resume`, code: 'not_resumable' } });
    const refused = await runCli(['resume', jobId, '--remote', serve.url], { env: remoteEnv() });
    expect(refused.code).toBe(11);
    expect(refused.stderr).toBe(`webjobs: crawl job ${jobId} completed; there is nothing to resume\n`);
    expect((await api.call('POST', '/api/crawl/00000000-0000-4000-8000-000000000000/resume')).status).toBe(404);
  });

  it('a --remote crawl stopped by Ctrl-C names resume --remote, and goes on through the resume route', async () => {
    serve ??= await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
    site.serveNext(3);
    const cli = startCli(['crawl', at('/'), '--max-pages', '100', '--delay', '1', '--ignore-sitemap', '--engine', 'http', '--remote', serve.url], { env: remoteEnv() });
    // The service's pages are not on this machine's disk to count: the held request says three were served before it.
    await until(() => site.held() > 0, () => 'no request held');
    // The third page is served before the fourth is asked for (--delay: one at a time); wait until the service stored it.
    const jobId = await (async () => {
      let id: string | undefined;
      await until(async () => {
        const jobs = (await api.call('GET', '/api/jobs')).body as { jobId: string }[];
        id = jobs.at(-1)?.jobId;
        return id !== undefined && (await api.call('GET', `/api/crawl/${id}?batchSize=1`)).body.totalCrawledPages === 3;
      }, () => 'three pages not stored');
      return id!;
    })();
    cli.child.kill('SIGINT');
    const stopped = await cli.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr.trim()).toBe(
      `webjobs: interrupted (SIGINT): crawl job ${jobId} stopped, 3 pages done; read it with: webjobs result ${jobId} --remote ${serve.url} or go on with: webjobs resume ${jobId} --remote ${serve.url}`,
    );
    site.releaseHeld();
    site.serveNext(Infinity);
    expect(await api.call('POST', `/api/crawl/${jobId}/resume`)).toEqual({ status: 200, body: { status: 'pending' } });
    expect(await api.waitFinal(`/api/crawl/${jobId}`)).toBe('completed');
    const record = (await api.call('GET', `/api/crawl/${jobId}?batchSize=100`)).body as { data: Entry[] };
    expect(record.data.map((entry) => new URL(entry.url).pathname).sort()).toEqual([...allPaths].sort());
    expectEachServedOnce(site);
  });
});

describe('resume on PostgreSQL (serve --database, webjobs worker)', () => {
  let pg: TestPostgres | undefined;
  let worker: WorkerProcess | undefined;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  /** One serve and one worker for the cases here, started by the first that runs. */
  async function serveAndWorker(): Promise<void> {
    if (worker) return;
    await serve?.stop();
    serve = await startServe({ args: ['--allow-private', '--quiet', '--database', pg!.url], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
    // One page at a time: the first five served are the five stored.
    worker = await startWorker(pg!.url, ['--concurrency', '1']);
  }
  afterAll(async () => {
    await worker?.stop();
    await serve?.stop();
    serve = undefined;
    await pg?.stop();
  });

  it.each([
    ['batch', 'scrape/batch', 'totalScrapedPages'],
    ['crawl', 'crawl', 'totalCrawledPages'],
  ])('a stopped %s goes on: its pages without an entry (a crawl: its frontier) are queued again, the others kept', async (kind, path, counter) => {
    await serveAndWorker();
    site.serveNext(5);
    const urls = allPaths.map(at);
    const body = kind === 'batch' ? { urls, scrapeOptions: { engine: 'http' } } : { ...crawlRequest(), delay: undefined };
    const job = await api.start(path, body);
    await until(async () => site.held() > 0 && (await api.call('GET', `${job}?batchSize=1`)).body[counter] === 5, () => 'five pages not stored');
    expect((await api.call('DELETE', job)).body).toEqual({ status: 'stopped' });
    site.releaseHeld();
    site.serveNext(Infinity);
    expect(await api.call('POST', `${job}/resume`)).toEqual({ status: 200, body: { status: 'pending' } });
    expect(await api.waitFinal(job)).toBe('completed');
    const record = (await api.call('GET', `${job}?batchSize=100`)).body as { data: (Entry & { status: string })[] };
    const got = record.data.map((entry) => entry.url);
    expect(kind === 'batch' ? got : got.sort()).toEqual(kind === 'batch' ? urls : [...urls].sort());
    expect(record.data.every((entry) => entry.status === 'completed')).toBe(true);
    expectEachServedOnce(site);
    expect((await api.call('POST', `${job}/resume`)).status).toBe(409);
  });

  it('a stopped crawl that had reached maxPages goes on to maxPages only: the URLs found past it are counted, not crawled', async () => {
    await serveAndWorker();
    site.serveNext(5);
    const job = await api.start('crawl', { ...crawlRequest(), delay: undefined, maxPages: 7 });
    // Five pages stored, the cap of 7 reached: the links found past it are kept apart, not queued.
    await until(async () => site.held() > 0 && (await api.call('GET', `${job}?batchSize=1`)).body.totalCrawledPages === 5, () => 'five pages not stored');
    expect((await api.call('DELETE', job)).body).toEqual({ status: 'stopped' });
    site.releaseHeld();
    site.serveNext(Infinity);
    expect(await api.call('POST', `${job}/resume`)).toEqual({ status: 200, body: { status: 'pending' } });
    expect(await api.waitFinal(job)).toBe('completed');
    const record = (await api.call('GET', `${job}?batchSize=100`)).body as { urlsNotCrawled?: number; data: Entry[] };
    // Which 7 depends on the order the queue hands pages out (the links of the pages taken first come first).
    const crawled = record.data.map((entry) => new URL(entry.url).pathname);
    expect(crawled).toHaveLength(7);
    // Nothing past the cap was fetched: the site served exactly the pages in the result.
    expect([...site.served.keys()].sort()).toEqual([...crawled].sort());
    // The pages these 7 link to (page i: 2i+1 and 2i+2 of the 15) that are not among them.
    const found = new Set(crawled.flatMap((p) => [1, 2].map((k) => 2 * allPaths.indexOf(p) + k)).filter((i) => i < allPaths.length).map((i) => allPaths[i]!));
    expect(record.urlsNotCrawled).toBe([...found].filter((p) => !crawled.includes(p)).length);
  });
});
