/**
 * A worker of the PostgreSQL back end: takes page jobs (one batch or crawl page
 * each) and whole jobs (scrape, extract) from pg-boss, runs them with the
 * embedded engine, and writes what they produced through the store, fenced by
 * attempt. Any number of workers on any number of machines share the queue.
 *
 * Leases: pg-boss hands a job to one worker for WEBJOBS_LEASE_SECONDS; a worker
 * that dies holding it (SIGKILL, power, network) loses it when that time is
 * up, and the job is delivered again, to any worker, at most MAX_ATTEMPTS times.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type PgBoss from 'pg-boss';
import { PageError, errorMessage } from '../api/errors.js';
import { requestUrls } from '../api/redact.js';
import type { BatchScrapeRequest, CrawlRequest, JobKind, JobRequest, PageEntry } from '../api/types.js';
import { siteAccess } from '../engine/access.js';
import type { Engine } from '../engine/engine.js';
import { jobCleaner } from '../local/cleaner.js';
import type { JobContext } from '../local/jobRunner.js';
import { failedEntry, isJobFatal, pageEntry } from '../local/runners/pageEntry.js';
import { loadRunner } from '../local/runners/index.js';
import { JOB_QUEUE, MAX_ATTEMPTS, PAGE_QUEUE, retrying, type PgConnection } from './connect.js';
import { crawlPage, crawlRules, type CrawlRules } from './crawlPage.js';
import { PgJobStore, type PageJobData, type WholeJobData } from './store.js';

export interface PgWorkerOptions {
  connection: PgConnection;
  createEngine: () => Promise<Engine>;
  env: NodeJS.ProcessEnv;
  /** Pages (and as many scrape/extract jobs) this worker runs at once. */
  concurrency: number;
  /** How often running pages check whether their job was stopped. */
  cancelCheckMs?: number;
  log?: (line: string) => void;
}

/** A job's tabs stay open this long after its last page here, for its next page. */
const JOB_IDLE_MS = 5_000;
/** How often an idle slot asks the queue for work. */
const POLL_MS = 500;

const LOST = `the worker running it stopped (killed, or cut off from the database) ${MAX_ATTEMPTS} times; given up`;

/** Thrown by a page handed back on shutdown: pg-boss then delivers the page again to another worker. */
class HandedBack extends Error {}

/**
 * What this worker holds of one job while its pages run here: one signal, so the
 * pages share the job's browser context and reuse its tabs (a tab per page would
 * cost more than the page), and for a crawl the scope and robots.txt read so far.
 * Dropped (context closed) when the job ends or no page of it ran for a while.
 */
interface HeldJob {
  controller: AbortController;
  pages: number;
  idle?: NodeJS.Timeout;
  crawl?: CrawlRules;
}

export class PgWorker {
  private readonly store: PgJobStore;
  private readonly boss: PgBoss;
  private engine: Promise<Engine> | undefined;
  private readonly jobs = new Map<string, HeldJob>();
  private readonly slots: Promise<void>[] = [];
  private readonly stopping = new AbortController();
  private watcher: NodeJS.Timeout | undefined;
  private readonly log: (line: string) => void;

  constructor(private readonly options: PgWorkerOptions) {
    this.store = new PgJobStore(options.connection);
    this.boss = options.connection.boss;
    this.log = options.log ?? (() => undefined);
  }

  async start(): Promise<void> {
    for (let i = 0; i < this.options.concurrency; i++) {
      this.slots.push(this.slot<PageJobData>(PAGE_QUEUE, (data) => this.runPage(data)));
      this.slots.push(this.slot<WholeJobData>(JOB_QUEUE, (data) => this.runWhole(data)));
    }
    this.watcher = setInterval(() => void this.checkEnded(), this.options.cancelCheckMs ?? 500);
  }

  /**
   * One page at a time from `queue`, the next fetched as soon as one ends. Our own
   * loop rather than pg-boss's work(): that one waits out its polling interval
   * after a short job (up to 0.5 s idle after a 0.1 s page) and does not await
   * the completion it reports, which a worker shutting down needs to.
   */
  private async slot<T extends object>(queue: string, run: (data: T) => Promise<void>): Promise<void> {
    while (!this.stopping.signal.aborted) {
      const [job] = await this.boss.fetch<T>(queue, { batchSize: 1 });
      if (!job) {
        await sleep(POLL_MS, undefined, { signal: this.stopping.signal }).catch(() => undefined);
        continue;
      }
      try {
        await run(job.data);
        await retrying(() => this.boss.complete(queue, job.id));
      } catch (err) {
        // Failed (or handed back on shutdown): pg-boss delivers the job again, up to its retry limit.
        await retrying(() => this.boss.fail(queue, job.id, { message: errorMessage(err) })).catch((failed: unknown) =>
          this.log(`cannot hand back ${queue} job ${job.id}: ${errorMessage(failed)}; its lease will run out`),
        );
      }
    }
  }

  private getEngine(): Promise<Engine> {
    this.engine ??= this.options.createEngine();
    return this.engine;
  }

  /** Aborts what runs here of jobs that were stopped (or ended) meanwhile. */
  private async checkEnded(): Promise<void> {
    const ended = await this.store.ended([...this.jobs.keys()]).catch((err: unknown) => {
      this.log(`cannot check for stopped jobs: ${errorMessage(err)}`);
      return [];
    });
    for (const jobId of ended) this.drop(jobId, new Error('stopped by user'));
  }

  private drop(jobId: string, reason: Error): void {
    const held = this.jobs.get(jobId);
    if (!held) return;
    clearTimeout(held.idle);
    this.jobs.delete(jobId);
    held.controller.abort(reason);
  }

  /** Runs `fn` with the job's signal, holding the job here meanwhile. */
  private async hold<T>(jobId: string, fn: (held: HeldJob) => Promise<T>): Promise<T> {
    let held = this.jobs.get(jobId);
    if (!held) {
      held = { controller: new AbortController(), pages: 0 };
      this.jobs.set(jobId, held);
    }
    clearTimeout(held.idle);
    held.pages++;
    const { signal } = held.controller;
    try {
      return await fn(held);
    } finally {
      held.pages--;
      if (held.pages === 0 && this.jobs.get(jobId) === held) {
        held.idle = setTimeout(() => this.drop(jobId, new Error('the job has no more pages here')), JOB_IDLE_MS);
      }
      if (signal.reason instanceof HandedBack) throw signal.reason;
    }
  }

  private async runPage({ jobId, index }: PageJobData): Promise<void> {
    const lease = await retrying(() => this.store.beginPage(jobId, index));
    if (!lease) return;
    const { clean, cleanError } = jobCleaner(lease.request);
    const finish = async (entry: PageEntry, links: { url: string; key: string }[] = []) => {
      const stored = clean(entry);
      if (stored.error) stored.error = cleanError(stored.error);
      await retrying(() => this.store.finishPage(jobId, index, lease.attempt, stored, links));
    };
    if (lease.attempt > MAX_ATTEMPTS) return finish(failedEntry(lease.url, new PageError(`${lease.url}: ${LOST}`)));
    try {
      const engine = await this.getEngine();
      const access = siteAccess(requestUrls(lease.request), 'scrapeOptions' in lease.request ? lease.request.scrapeOptions : undefined);
      await this.hold(jobId, async (held) => {
        const { signal } = held.controller;
        let entry: PageEntry;
        let links: { url: string; key: string }[] = [];
        if (lease.kind === 'crawl') {
          const request = lease.request as CrawlRequest;
          held.crawl ??= crawlRules(request, engine, access, signal);
          ({ entry, links } = await crawlPage(lease.url, index === 0, request, engine, held.crawl, signal, access));
        } else {
          const { scrapeOptions, sessionOptions } = lease.request as BatchScrapeRequest;
          entry = await pageEntry(lease.url, scrapeOptions?.formats, () => engine.scrape(lease.url, scrapeOptions, sessionOptions, signal, access));
        }
        // A page cut short by a cancel is not kept: the job's pages are those finished before it.
        if (!signal.aborted) await finish(entry, links);
      });
    } catch (err) {
      if (!isJobFatal(err)) throw err;
      await retrying(() => this.store.endJob(jobId, undefined, cleanError(errorMessage(err))));
    }
  }

  private async runWhole({ jobId }: WholeJobData): Promise<void> {
    const lease = await retrying(() => this.store.beginJob(jobId));
    if (!lease) return;
    const { clean, cleanError } = jobCleaner(lease.request);
    const end = (error?: string) => retrying(() => this.store.endJob(jobId, lease.attempt, error === undefined ? undefined : cleanError(error)));
    if (lease.attempt > MAX_ATTEMPTS) return end(`this ${lease.kind} job: ${LOST}`);
    const runner = await loadRunner(lease.kind);
    if (!runner) return end(`${lease.kind} jobs are not available in this build`);
    let error: string | undefined;
    await this.hold(jobId, async ({ controller: { signal } }) => {
      const ctx: JobContext<JobKind> = {
        jobId,
        request: lease.request as JobRequest,
        engine: await this.getEngine(),
        signal,
        env: this.options.env,
        access: siteAccess(requestUrls(lease.request), 'scrapeOptions' in lease.request ? lease.request.scrapeOptions : undefined),
        update: (change) =>
          retrying(() =>
            this.store.updateRecord(jobId, lease.attempt, (record) => {
              change(record);
              Object.assign(record, clean({ ...record }));
            }),
          ),
        putPage: async () => {
          throw new Error(`${lease.kind} jobs have no pages`);
        },
        // Only a crawl finds pages, and on PostgreSQL a crawl runs page by page, counted in SQL.
        discovered: () => undefined,
      };
      try {
        await (runner.run as (ctx: JobContext<JobKind>) => Promise<void>)(ctx);
      } catch (err) {
        error = signal.aborted && signal.reason instanceof Error ? signal.reason.message : errorMessage(err);
      }
    });
    await end(error);
  }

  /**
   * Stops taking work; what runs gets `graceMs` to finish, then is handed back
   * (its queue job fails and is delivered again elsewhere); then the browser closes.
   */
  async close(graceMs = 20_000): Promise<void> {
    clearInterval(this.watcher);
    this.stopping.abort();
    const handBack = setTimeout(() => {
      for (const jobId of [...this.jobs.keys()]) this.drop(jobId, new HandedBack('this worker shut down; the page goes to another worker'));
    }, graceMs);
    try {
      await Promise.all(this.slots);
    } finally {
      clearTimeout(handBack);
    }
    await this.boss.stop({ graceful: false, close: false }).catch(() => undefined);
    for (const jobId of [...this.jobs.keys()]) this.drop(jobId, new Error('this worker shut down'));
    const engine = this.engine;
    this.engine = undefined;
    if (engine) await (await engine.catch(() => undefined))?.close();
  }
}
