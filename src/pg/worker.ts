/**
 * A worker of the PostgreSQL back end: takes page jobs (one batch or crawl page
 * each) and whole jobs (scrape, extract) from pg-boss, runs them with the
 * embedded engine, and writes what they produced through the store, fenced by
 * attempt. Any number of workers on any number of machines share the queue.
 *
 * Leases: a worker holds each page it runs on a lease of WEBJOBS_LEASE_SECONDS,
 * which it renews every third of that while it lives (a heartbeat), however long
 * the page takes. A worker that dies holding it (SIGKILL, power, network, a
 * frozen process) stops renewing; any worker's next pass takes the page back and
 * queues it again, at most MAX_ATTEMPTS deliveries in all. Cancels arrive by
 * LISTEN/NOTIFY, polled for while that connection is down.
 */
import { performance } from 'node:perf_hooks';
import type PgBoss from 'pg-boss';
import { PageError, errorMessage } from '../api/errors.js';
import { LIMITS, batchPerHostLimit } from '../api/limits.js';
import { requestUrls } from '../api/redact.js';
import type { BatchScrapeRequest, CrawlRequest, JobKind, JobRequest, PageEntry } from '../api/types.js';
import { siteAccess, type SiteAccess } from '../engine/net/access.js';
import type { Engine } from '../engine/engine.js';
import { jobCleaner, type JobCleaner } from '../jobs/cleaner.js';
import { withAgentSizing, withCache, withJobFiles, withJsonFormat } from '../jobs/jobEngine.js';
import type { JobContext } from '../jobs/jobRunner.js';
import { decidedEntry, failedEntry, isJobFatal, pageEntry } from '../jobs/runners/pageEntry.js';
import { loadRunner } from '../jobs/runners/index.js';
import { JOB_QUEUE, MAX_ATTEMPTS, PAGE_QUEUE, retrying, type PgConnection } from './connect.js';
import { crawlPage } from '../jobs/crawlPage.js';
import { CrawlChanges } from '../jobs/crawlChanges.js';
import { crawlRules, type CrawlRules } from '../jobs/crawlRules.js';
import { crawlCounts, type CrawlFinish } from './crawlPages.js';
import { Completions } from './completions.js';
import { EndedWatch } from './endedWatch.js';
import { Feed } from './feed.js';
import { HostSlots, PgHostGate, type HostSlot } from './hostGate.js';
import { PgJobFiles } from './jobFiles.js';
import { PgPageCache } from './pageCache.js';
import { owedHistory } from './historyOwed.js';
import { type PageJobData, type WholeJobData } from './store.js';
import { PgProgress } from './progress.js';
import { LEASE_EXPIRED, PgWorkStore, type Held, type JobLease } from './workStore.js';

export interface PgWorkerOptions {
  connection: PgConnection;
  createEngine: () => Promise<Engine>;
  env: NodeJS.ProcessEnv;
  /** Pages (and as many scrape/extract jobs) this worker runs at once. */
  concurrency: number;
  /** How often running pages check whether their job was stopped while the notification connection is down. */
  cancelCheckMs?: number;
  log?: (line: string) => void;
}

/** A job's tabs stay open this long after its last page here, for its next page. */
const JOB_IDLE_MS = 5_000;
/** How often an idle slot asks the queue for work. */
const POLL_MS = 500;

/** Why a page or job is given up when its attempts ran out; `last` says how the last one ended. */
const givenUp = (last: string | null) => `given up after ${MAX_ATTEMPTS} attempts; the last ended because ${last ?? LEASE_EXPIRED}`;
const givenUpPage = (url: string, last: string | null) => failedEntry(url, new PageError(`${url}: ${givenUp(last)}`));
const givenUpJob = (kind: JobKind, last: string | null) => `this ${kind} job was ${givenUp(last)}`;
/** Heartbeats between two sweeps for pages whose queue job ended without beginning them: one a lease. */
const SWEEP_EVERY = 3;

/** Thrown by a page handed back on shutdown: it is queued again for another worker. */
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
  /** What its pages need of the job, read from the database once, not for each page. */
  job?: JobInfo;
  crawl?: CrawlRules;
  /** A crawl's change tracking: the previous crawl's pages, read once (crawlChanges.ts). */
  changes?: Promise<CrawlChanges | undefined>;
  /** The job's politeness per host, kept with its other workers. */
  gate?: PgHostGate;
}

/** A job's request and what follows from it alone: the same for every page of the job. */
interface JobInfo {
  kind: JobKind;
  request: JobRequest;
  cleaner: JobCleaner;
  access: SiteAccess | undefined;
}

function jobInfo(kind: JobKind, request: JobRequest): JobInfo {
  return {
    kind,
    request,
    cleaner: jobCleaner(request),
    access: siteAccess(requestUrls(request), 'scrapeOptions' in request ? request.scrapeOptions : undefined),
  };
}

export class PgWorker {
  private readonly store: PgWorkStore;
  /** Where scrapeOptions.maxAge finds and keeps pages, shared with every worker. */
  private readonly cache: PgPageCache;
  /** Where screenshots go: out of the records, served by any API node. */
  private readonly files: PgJobFiles;
  /** A crawl's entries, read back by its finishing step. */
  private readonly progress: PgProgress;
  private readonly boss: PgBoss;
  private engine: Promise<Engine> | undefined;
  private readonly jobs = new Map<string, HeldJob>();
  private readonly slots: Promise<void>[] = [];
  private readonly stopping = new AbortController();
  /** The leases this worker holds now: renewed on each heartbeat. */
  private readonly leases = new Set<Held>();
  private readonly hostSlots: HostSlots;
  /** The slots of hosts this worker's requests hold now: renewed on each heartbeat too. */
  private readonly holdingSlots = new Set<HostSlot>();
  private heartbeat: NodeJS.Timeout | undefined;
  /** A heartbeat is under way (the next one skips rather than piling up on a slow database). */
  private beating = false;
  private beats = 0;
  private readonly ended: EndedWatch;
  private readonly completions: Completions;
  private readonly pageFeed: Feed<PageJobData>;
  private readonly jobFeed: Feed<WholeJobData>;
  private readonly log: (line: string) => void;

  constructor(private readonly options: PgWorkerOptions) {
    this.store = new PgWorkStore(options.connection);
    this.cache = new PgPageCache(options.connection.pool);
    this.files = new PgJobFiles(options.connection.pool);
    this.progress = new PgProgress(options.connection.pool);
    this.hostSlots = new HostSlots(options.connection.pool, options.connection.settings.leaseSeconds);
    this.boss = options.connection.boss;
    this.log = options.log ?? (() => undefined);
    this.completions = new Completions(this.boss, this.log);
    this.pageFeed = new Feed<PageJobData>(this.boss, this.store, PAGE_QUEUE, options.concurrency, this.log);
    this.jobFeed = new Feed<WholeJobData>(this.boss, this.store, JOB_QUEUE, options.concurrency, this.log);
    this.ended = new EndedWatch(options.connection.settings.url, {
      onEnded: (jobId) => this.drop(jobId, new Error('stopped by user')),
      poll: () => this.checkEnded(),
      pollMs: options.cancelCheckMs ?? 500,
      log: this.log,
    });
  }

  async start(): Promise<void> {
    await this.ended.start();
    for (let i = 0; i < this.options.concurrency; i++) {
      this.slots.push(this.slot(this.pageFeed, (data, queueJob) => this.runPage(data, queueJob)));
      this.slots.push(this.slot(this.jobFeed, (data, queueJob) => this.runWhole(data, queueJob)));
    }
    // Every third of a lease: renew ours, and take back those of workers gone silent.
    this.heartbeat = setInterval(() => void this.beat(), (this.options.connection.settings.leaseSeconds * 1000) / 3);
    void this.beat();
  }

  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    try {
      await this.store.renew([...this.leases]);
      await this.hostSlots.renew([...this.holdingSlots]);
      const taken = await this.store.reapExpired();
      if (taken > 0) this.log(`took back ${taken} page(s) whose worker stopped renewing its lease; queued again`);
      if (this.beats++ % SWEEP_EVERY === 0) await this.sweep();
    } catch (err) {
      this.log(`heartbeat: ${errorMessage(err)}`);
    } finally {
      this.beating = false;
    }
  }

  /**
   * Queues again the pages and jobs whose queue job ended without beginning them (nothing else would), and
   * records failed, saying why, those for which that was the last attempt.
   */
  private async sweep(): Promise<void> {
    const { queued, spent } = await this.store.sweepOrphans();
    if (queued > 0) this.log(`queued again ${queued} page(s) or job(s) whose queue job ended without beginning them`);
    for (const take of spent) {
      const { kind, request } = await this.store.request(take.jobId);
      await this.giveUp(take, jobInfo(kind, request));
    }
  }

  /** Records failed, saying why, a page or job whose attempts are spent, held at its last `attempt`. */
  private async giveUp({ jobId, index, attempt, url, lastError }: Held & { url: string; lastError: string | null }, job: JobInfo): Promise<void> {
    if (index !== undefined) return this.storePage({ jobId, index, attempt }, job.cleaner, givenUpPage(url, lastError), job.kind === 'crawl' ? {} : undefined);
    await retrying(() => this.store.endJob(jobId, attempt, job.cleaner.cleanError(givenUpJob(job.kind, lastError))));
  }

  /** Stores a page's entry (and for a crawl what it adds) if `lease` still holds it; a fenced write is logged, not kept. */
  private async storePage(lease: Held & { index: number }, { clean, cleanError }: JobCleaner, entry: PageEntry, crawl?: CrawlFinish): Promise<void> {
    const stored = clean(entry);
    if (stored.error) stored.error = cleanError(stored.error);
    const write = await retrying(() => this.store.finishPage(lease.jobId, lease.index, lease.attempt, stored, crawl));
    if (write === 'fenced') {
      this.log(`page ${lease.index} of job ${lease.jobId}: its lease was taken back and the page given to another attempt; this result (attempt ${lease.attempt}) is dropped`);
    }
  }

  /** Runs `fn` holding `lease`: renewed by the heartbeat until it ends; what it cannot finish is queued again. */
  private async leased(lease: Held, what: string, fn: () => Promise<void>): Promise<void> {
    this.leases.add(lease);
    try {
      await fn();
    } catch (err) {
      this.log(`${what}: ${errorMessage(err)}; queued again`);
      await retrying(() => this.store.requeue(lease, errorMessage(err))).catch((failed: unknown) =>
        this.log(`cannot hand back ${what}: ${errorMessage(failed)}; it goes back when its lease runs out`),
      );
    } finally {
      this.leases.delete(lease);
    }
  }

  /**
   * One page at a time from `feed`, the next taken as soon as one ends. Our own
   * loop rather than pg-boss's work(): that one waits out its polling interval
   * after a short job (up to 0.5 s idle after a 0.1 s page) and does not await
   * the completion it reports, which a worker shutting down needs to.
   */
  private async slot<T extends PageJobData | WholeJobData>(feed: Feed<T>, run: (data: T, queueJob: string) => Promise<void>): Promise<void> {
    while (!this.stopping.signal.aborted) {
      const job = await feed.next(this.stopping.signal, POLL_MS);
      if (!job) continue;
      const started = performance.now();
      try {
        await run(job.data, job.id);
        feed.took(performance.now() - started);
        this.completions.add(feed.queue, job.id);
      } catch (err) {
        // Failed before it held a lease (the database gone for long): pg-boss delivers the job again, up to its retry limit.
        await retrying(() => this.boss.fail(feed.queue, job.id, { message: errorMessage(err) })).catch((failed: unknown) =>
          this.log(`cannot hand back ${feed.queue} job ${job.id}: ${errorMessage(failed)}; its lease will run out`),
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
    void held.gate?.close();
  }

  /** Runs `fn` with the job's signal, holding the job here meanwhile. */
  private async hold<T>(jobId: string, job: JobInfo | undefined, fn: (held: HeldJob) => Promise<T>): Promise<T> {
    let held = this.jobs.get(jobId);
    if (!held) {
      held = { controller: new AbortController(), pages: 0, job };
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

  /** Keeps job `jobId`'s new and changed pages' versions owed until it completes (historyOwed.ts). */
  private owed(jobId: string) {
    return owedHistory(this.options.connection.pool, jobId);
  }

  private async runPage({ jobId, index }: PageJobData, queueJob: string): Promise<void> {
    const known = this.jobs.get(jobId)?.job;
    const lease = await retrying(() => this.store.beginPage(jobId, index, queueJob, known === undefined));
    if (!lease) return;
    const job = known ?? jobInfo(lease.kind, lease.request!);
    const { cleanError } = job.cleaner;
    const finish = (entry: PageEntry, crawl?: CrawlFinish) => this.storePage(lease, job.cleaner, entry, crawl);
    if (lease.attempt > MAX_ATTEMPTS) return this.giveUp(lease, job);
    await this.leased(lease, `page ${index} of job ${jobId}`, async () => {
      try {
        const engine = withAgentSizing(withJsonFormat(withJobFiles(withCache(await this.getEngine(), this.cache, lease.cacheTenant, { deferHistory: this.owed(jobId) }), this.files, jobId, index + 1), this.options.env));
        const { access } = job;
        await this.hold(jobId, job, async (held) => {
          const { signal } = held.controller;
          const perHost = job.kind === 'batch' ? batchPerHostLimit(job.request as BatchScrapeRequest) : LIMITS.perHostConcurrency;
          const gate = (held.gate ??= new PgHostGate(this.hostSlots, jobId, perHost, signal, this.holdingSlots, this.log));
          let entry: PageEntry;
          let crawl: CrawlFinish | undefined;
          try {
            if (job.kind === 'crawl') {
              const request = job.request as CrawlRequest;
              held.crawl ??= crawlRules(request, engine, access, signal, gate);
              held.changes ??= CrawlChanges.open(request, { cache: this.cache, tenant: lease.cacheTenant });
              const page = await crawlPage({ request, rules: held.crawl, engine, signal, access }, lease.url, index === 0, { depth: lease.depth, lastmod: lease.lastmod });
              // A page of the previous crawl that now answers 404 or 410 is removed (crawlChanges.ts).
              await (await held.changes)?.reached(page.entry);
              ({ entry } = page);
              crawl = { links: page.links, landed: page.landed };
            } else {
              const { scrapeOptions, sessionOptions, delay = 0 } = job.request as BatchScrapeRequest;
              const { url } = lease;
              entry = await gate.run(url, delay, () => pageEntry(url, scrapeOptions?.formats, () => engine.scrape(url, scrapeOptions, sessionOptions, signal, access)));
              entry = decidedEntry(entry, job.request as BatchScrapeRequest);
            }
          } catch (err) {
            if (signal.aborted) return; // stopped while waiting for its host
            throw err;
          }
          // A page cut short by a cancel is not kept: the job's pages are those finished before it.
          if (!signal.aborted) await finish(entry, crawl);
        });
      } catch (err) {
        if (!isJobFatal(err)) throw err;
        await retrying(() => this.store.endJob(jobId, undefined, cleanError(errorMessage(err))));
      }
    });
  }

  private async runWhole({ jobId }: WholeJobData, queueJob: string): Promise<void> {
    const lease = await retrying(() => this.store.beginJob(jobId, queueJob));
    if (!lease) return;
    const { clean, cleanError } = jobCleaner(lease.request);
    const end = (error?: string) => retrying(() => this.store.endJob(jobId, lease.attempt, error === undefined ? undefined : cleanError(error)));
    if (lease.attempt > MAX_ATTEMPTS) return end(givenUpJob(lease.kind, lease.lastError));
    // A crawl runs page by page; the whole job is its finishing step, with change tracking (crawlPages.ts).
    if (lease.kind === 'crawl') return this.leased(lease, `the end of crawl ${jobId}`, () => this.finishCrawl(lease));
    const runner = await loadRunner(lease.kind);
    if (!runner) return end(`${lease.kind} jobs are not available in this build`);
    await this.leased(lease, `${lease.kind} job ${jobId}`, async () => {
      let error: string | undefined;
      await this.hold(jobId, undefined, async ({ controller: { signal } }) => {
        // The json format around the job's engine once (a schema made from a prompt is made once per job); files outside it.
        const shaped = withAgentSizing(withJsonFormat(withCache(await this.getEngine(), this.cache, lease.cacheTenant, { deferHistory: this.owed(jobId) }), this.options.env));
        const ctx: JobContext<JobKind> = {
          jobId,
          request: lease.request as JobRequest,
          engine: withJobFiles(shaped, this.files, jobId),
          pageEngine: (place) => withJobFiles(shaped, this.files, jobId, place + 1),
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
    });
  }

  /**
   * A crawl with change tracking, once its last page is in: the pages of the previous crawl it did not reach,
   * after its own (crawlChanges.ts, as the in-process crawl ends), and this crawl's page set kept for the next.
   */
  private async finishCrawl(lease: JobLease): Promise<void> {
    const { jobId } = lease;
    const request = lease.request as CrawlRequest;
    const changes = await CrawlChanges.open(request, { cache: this.cache, tenant: lease.cacheTenant });
    let removed: PageEntry[] = [];
    if (changes) {
      for (let from = 0; ; ) {
        const rows = await retrying(() => this.progress.finished(jobId, from));
        if (rows.length === 0) break;
        for (const { entry } of rows) if (entry) changes.noteStored(entry);
        from = rows[rows.length - 1]!.idx + 1;
      }
      // Pages not reached are removed when the crawl ran out of pages before maxPages.
      const { done, maxPages } = await retrying(() => crawlCounts(this.options.connection.pool, jobId));
      const { clean } = jobCleaner(request);
      removed = (await changes.finish(done < maxPages)).map(clean);
    }
    await retrying(() => this.store.finishCrawl(jobId, lease.attempt, removed));
  }

  /**
   * Stops taking work; what runs gets `graceMs` to finish, then is handed back
   * (its queue job fails and is delivered again elsewhere); then the browser closes.
   */
  async close(graceMs = 20_000): Promise<void> {
    this.stopping.abort();
    const handBack = setTimeout(() => {
      for (const jobId of [...this.jobs.keys()]) this.drop(jobId, new HandedBack('this worker shut down; the page goes to another worker'));
    }, graceMs);
    try {
      await Promise.all(this.slots);
    } finally {
      clearTimeout(handBack);
    }
    clearInterval(this.heartbeat);
    await this.completions.flush();
    // Fetched ahead and not begun: queued again at once, for other workers, rather than left to expire.
    await Promise.all([this.pageFeed.giveBack(), this.jobFeed.giveBack()]);
    await this.ended.close();
    // The slots of hosts kept for next requests, freed for other workers now rather than when their leases run out.
    await Promise.all([...this.jobs.values()].map((held) => held.gate?.close()));
    await this.boss.stop({ graceful: false, close: false }).catch(() => undefined);
    for (const jobId of [...this.jobs.keys()]) this.drop(jobId, new Error('this worker shut down'));
    const engine = this.engine;
    this.engine = undefined;
    if (engine) await (await engine.catch(() => undefined))?.close();
  }
}
