/**
 * The local back end: jobs run in this process (or a detached worker process)
 * with the embedded engine, and live in the on-disk job store.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { JobBackend, JobStart, PagedEntries, PagedText, SearchOptions, StartOptions, WaitOptions } from '../api/backend.js';
import type { SearchRequest, SearchResult } from '../api/search.js';
import type { PageCounts } from '../api/pageCounts.js';
import { NotResumableError, UsageError, errorMessage } from '../api/errors.js';
import {
  isFinal,
  type JobHandle,
  type JobKind,
  type JobRecordByKind,
  type JobRequestByKind,
  type JobStatus,
  type JobStatusObject,
  type JobSummary,
  type MapRequest,
  type MapResult,
  type PageData,
  type PageEntry,
  type PageQuery,
} from '../api/types.js';
import { requestUrls, withoutCredentials } from '../api/redact.js';
import { CLI_LIMITS, LOCAL_LIMITS, validateJobId, validateMapRequest, validateRequest } from '../api/validate.js';
import { siteAccess } from '../engine/net/access.js';
import type { Engine } from '../engine/engine.js';
import { ofKind, type JobHeader, type OwnedJobStore, type StoredJob } from '../jobs/jobStore.js';
import type { JobFileWriter, PageCache } from '../jobs/contracts.js';
import { withAgentSizing, withCache, withJobFiles, withJsonFormat, withTurn } from '../jobs/jobEngine.js';
import { withProfiles, type ProfileStore } from '../jobs/profiles.js';
import { jobCleaner } from '../jobs/cleaner.js';
import { askedUrl, commitHistory, commitsHistory, storedPages } from '../jobs/historyCommit.js';
import type { JobCache } from '../jobs/crawlChanges.js';
import { JobQueue } from './jobQueue.js';
import { JobEvents, waitByPolling } from './jobEvents.js';
import type { JobContext, JobRunner } from '../jobs/jobRunner.js';
import { entryCount, readRecord, readRecordEntries, readRecordText } from './records.js';
import { pagesDamaged } from './damaged.js';
import { loadRunner } from '../jobs/runners/index.js';
import { checkResumable, interruptedError } from '../jobs/resume.js';
import type { Webhooks } from '../jobs/webhooks/webhooks.js';

export interface LocalBackendOptions {
  store: OwnedJobStore;
  /** Created on first use, so commands that only read the store never start a browser. */
  createEngine?: () => Promise<Engine>;
  env?: NodeJS.ProcessEnv;
  /** Jobs run at once in this process; the rest wait as pending. */
  maxConcurrentJobs?: number;
  /** How often a running job checks the store for a cancel from another process. */
  cancelCheckMs?: number;
  /** Where scrapeOptions.maxAge finds and keeps pages; without it maxAge has no effect. */
  pageCache?: PageCache;
  /** Where jobs keep their screenshots; without it a screenshot stays a data: URL in the record. */
  files?: JobFileWriter;
  /** Where scrapeOptions.profile is kept, by tenant; without it a page asking for a profile fails saying so. */
  profiles?: ProfileStore;
  /** scrape and batch may read saved pages (file:// URLs): the CLI's own jobs, never serve's or MCP's. */
  savedPages?: boolean;
  /** Running jobs one tenant (serve: API key) may have at once; the slots are taken in turn over tenants (jobQueue.ts). */
  maxRunningPerTenant?: number;
  /** Tenants share the page cache (a hit tells one what another fetched); by default each has its own entries. */
  sharedCache?: boolean;
  /** Sends the events of jobs that ask for a webhook (jobs/webhooks/). */
  webhooks?: Webhooks;
  /** close() first waits until every delivery is sent or dropped (the CLI's own webhooks; serve keeps owed ones for its next start). */
  drainWebhooks?: boolean;
}

const WORKER_COMMAND = '__run-job';
const BIN = fileURLToPath(new URL('../../bin/webjobs.js', import.meta.url));

async function defaultEngine(env: NodeJS.ProcessEnv, savedPages: boolean): Promise<Engine> {
  const { BrowserEngine } = await import('../engine/engine.js');
  return new BrowserEngine({ env, savedPages });
}

async function runnerFor<K extends JobKind>(kind: K): Promise<JobRunner<K>> {
  const runner = await loadRunner(kind);
  if (!runner) throw new UsageError(`${kind} jobs are not available in this build`);
  return runner;
}

export class LocalBackend implements JobBackend {
  private readonly store: OwnedJobStore;
  private readonly env: NodeJS.ProcessEnv;
  private readonly createEngine: () => Promise<Engine>;
  private readonly maxConcurrentJobs: number;
  private readonly cancelCheckMs: number;
  private readonly pageCache: PageCache | undefined;
  private readonly files: JobFileWriter | undefined;
  private readonly profiles: ProfileStore | undefined;
  private readonly savedPages: boolean;
  private engine: Promise<Engine> | undefined;
  private readonly events = new JobEvents();
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void>; tenant?: string }>();
  private readonly queue: JobQueue;
  private readonly sharedCache: boolean;
  private readonly webhooks: Webhooks | undefined;
  private readonly drainWebhooks: boolean;
  /**
   * Jobs that ended while their end could not be written (the store's disk is
   * full): why, by job. Reads report them failed with that error; the stored record
   * still says running, and is judged as an orphan once this process is gone.
   */
  private readonly unstored = new Map<string, string>();
  /** close() was called: the jobs it stops end failed as interrupted, free to resume. */
  private closing = false;

  constructor(options: LocalBackendOptions) {
    this.store = options.store;
    this.env = options.env ?? process.env;
    this.savedPages = options.savedPages ?? false;
    this.createEngine = options.createEngine ?? (() => defaultEngine(this.env, this.savedPages));
    this.maxConcurrentJobs = options.maxConcurrentJobs ?? 2;
    this.cancelCheckMs = options.cancelCheckMs ?? 500;
    this.pageCache = options.pageCache;
    this.files = options.files;
    this.profiles = options.profiles;
    this.queue = new JobQueue(options.maxRunningPerTenant);
    this.sharedCache = options.sharedCache ?? false;
    this.webhooks = options.webhooks;
    this.drainWebhooks = options.drainWebhooks ?? false;
  }

  static readonly workerCommand = WORKER_COMMAND;

  async start<K extends JobKind>(kind: K, request: JobRequestByKind[K], options: StartOptions = {}): Promise<JobHandle> {
    // serve checked the service's limits before it got here; the CLI's own jobs may use this machine's.
    const validated = validateRequest(kind, request, this.savedPages ? CLI_LIMITS : LOCAL_LIMITS);
    const runner = await runnerFor(kind);
    await runner.preflight?.(validated, this.env);
    await (await this.getEngine()).preflight(validated.sessionOptions, 'scrapeOptions' in validated ? validated.scrapeOptions?.engine : undefined);
    const { meta } = await this.store.create(kind, validated, runner.initialRecord(validated));
    if (options.detach) await this.spawnWorker(meta.jobId);
    else this.enqueue(meta.jobId, options.tenant);
    return { jobId: meta.jobId };
  }

  /** Starts a worker process that runs the job after this process exits. */
  private async spawnWorker(jobId: string): Promise<void> {
    const child = spawn(process.execPath, [BIN, WORKER_COMMAND, jobId], {
      detached: true,
      stdio: 'ignore',
      env: this.env,
    });
    child.unref();
    if (child.pid === undefined) throw new Error('could not start a worker process');
    await this.store.setOwner(jobId, child.pid);
  }

  /** The detached worker's entry point: runs one stored pending job to its end. */
  async runStored(jobId: string): Promise<JobStatus> {
    await this.execute(jobId);
    return (await this.store.header(jobId)).status;
  }

  /** Runs the job in this process as soon as a slot is free and it is `tenant`'s turn (jobQueue.ts). */
  enqueue(jobId: string, tenant?: string): void {
    this.queue.push({ jobId, tenant });
    this.pump();
  }

  private runningOf(tenant: string | undefined): number {
    let count = 0;
    for (const job of this.running.values()) if (job.tenant === tenant) count++;
    return count;
  }

  private pump(): void {
    while (this.running.size < this.maxConcurrentJobs) {
      const next = this.queue.next((tenant) => this.runningOf(tenant));
      if (!next) return;
      const controller = new AbortController();
      const done = this.execute(next.jobId, controller, next.tenant).finally(() => {
        this.running.delete(next.jobId);
        this.pump();
      });
      this.running.set(next.jobId, { controller, done, tenant: next.tenant });
    }
  }

  private getEngine(): Promise<Engine> {
    this.engine ??= this.createEngine();
    return this.engine;
  }

  /** Runs the job; a store that cannot be written (a full disk) fails the job, never the process. */
  private async execute(jobId: string, controller = new AbortController(), tenant?: string): Promise<void> {
    await this.executeStored(jobId, controller, tenant).catch((err: unknown) => {
      this.unstored.set(jobId, errorMessage(err));
      this.events.progress(jobId, { status: 'failed', done: 0, failed: 0 });
    });
  }

  /**
   * The tracked pages this job found new or changed become their history's last versions (historyCommit.ts), now
   * that it ran to its end: those of this run, and (resumed) those its earlier runs stored.
   */
  private async commitHistory(jobId: string, job: StoredJob, jobCache: JobCache, changed: ReadonlySet<number>): Promise<void> {
    const { kind, request } = job.meta;
    if (kind === 'scrape') {
      const data = ((await this.store.read(jobId)).record as { data?: PageData }).data;
      const entry: PageEntry | undefined = data && { url: (request as { url: string }).url, status: 'completed', error: null, ...data };
      if (entry) await commitHistory(jobCache, request, [{ url: askedUrl(kind, request, 0, entry), entry }]);
      return;
    }
    const read = (start: number, count: number) => this.store.readPages(jobId, start, count);
    // A resumed job's earlier runs stored pages this one did not see: every entry is read then.
    await commitHistory(jobCache, request, storedPages(kind, request, read, job.meta.resumedAt ? undefined : changed));
  }

  private async executeStored(jobId: string, controller: AbortController, tenant?: string): Promise<void> {
    const self = await this.store.self();
    const job = await this.store.update(jobId, (record, meta) => {
      if (record.status !== 'pending') return;
      record.status = 'running';
      meta.owner = self;
    });
    if (job.record.status !== 'running' || job.meta.owner.lease !== self.lease) return;
    this.events.progress(jobId, { status: 'running', done: 0, failed: 0 });
    const { kind, request } = job.meta;
    this.webhooks?.started(jobId, kind, request);
    const watcher = setInterval(() => void this.checkCancelled(jobId, controller), this.cancelCheckMs);
    let failed = 0;
    /** Indexes of the entries this run stored new or changed (changeTracking), for the history's commit. */
    const changed = new Set<number>();
    /** The last entry handed to putPage, told once those before it are. */
    let telling: Promise<void> = Promise.resolve();
    let error: string | undefined;
    const { clean, cleanError } = jobCleaner(job.meta.request);
    try {
      // The job's pages take its tenant's turn at the shared extraction workers (jobEngine.ts withTurn).
      const engine = withTurn(await this.getEngine(), tenant);
      const shared = this.profiles ? withProfiles(engine, this.profiles, tenant) : engine;
      const pageCache = this.pageCache ? { cache: this.pageCache, tenant: this.sharedCache ? undefined : tenant } : undefined;
      // The history of a tracked page moves when the job completes (below): a killed run's changes stay owed.
      const cached = pageCache ? withCache(shared, pageCache.cache, pageCache.tenant, { deferHistory: true }) : shared;
      // The json format around the job's engine once (a schema made from a prompt is made once per job); files outside it, numbered per page.
      const shaped = withAgentSizing(withJsonFormat(cached, this.env));
      const files = this.files;
      /** The engine whose screenshots are files beside the job, numbered from `first`. */
      const filed = (first: number) => (files ? withJobFiles(shaped, files, jobId, first) : shaped);
      const ctx: JobContext<JobKind> = {
        jobId,
        request: job.meta.request,
        engine: filed(1),
        pageEngine: (place) => filed(place + 1),
        signal: controller.signal,
        env: this.env,
        access: siteAccess(requestUrls(job.meta.request), 'scrapeOptions' in job.meta.request ? job.meta.request.scrapeOptions : undefined),
        pageCache,
        update: async (change) => {
          await this.store.update(jobId, (record) => {
            change(record);
            Object.assign(record, clean({ ...record }));
            if (record.error !== undefined) record.error = cleanError(record.error);
          });
        },
        putPage: (index, page) => {
          const entry = clean(page);
          if (entry.error) entry.error = cleanError(entry.error);
          const written = this.store.putPage(jobId, index, entry);
          // Its failure is told in its turn (below), not as an unhandled rejection before.
          written.catch(() => undefined);
          // Written side by side, told in the order they were handed in.
          const told = telling.then(async () => {
            await written;
            if (entry.changeTracking && entry.changeTracking.changeStatus !== 'same') changed.add(index);
            if (entry.status === 'failed') failed++;
            this.events.page(jobId, entry, index);
            this.webhooks?.page(jobId, kind, request, entry);
          });
          telling = told.catch(() => undefined);
          return told;
        },
        discovered: (count) => this.events.discovered(jobId, count),
        ...(job.meta.kind === 'crawl' ? { journal: { append: (lines) => this.store.appendJournal(jobId, lines), read: () => this.store.readJournal(jobId) } } : {}),
        ...(job.meta.resumedAt ? { resumed: { readPages: (start, count) => this.store.readPages(jobId, start, count) } } : {}),
      };
      await (await runnerFor(job.meta.kind)).run(ctx);
      if (pageCache && commitsHistory(job.meta.kind, job.meta.request)) await this.commitHistory(jobId, job, pageCache, changed);
    } catch (err) {
      error = controller.signal.aborted ? abortMessage(controller.signal) : errorMessage(err);
    } finally {
      clearInterval(watcher);
      // The job is over: its browser context (tabs, popups, workers, timers) goes with it.
      if (!controller.signal.aborted) controller.abort(new Error('the job has ended'));
    }
    const interrupted = error !== undefined && this.closing && controller.signal.aborted;
    const final = await this.store.update(jobId, (record, meta) => {
      if (record.status !== 'running') return;
      if (error !== undefined) {
        record.status = 'failed';
        record.error = cleanError(interrupted ? interruptedError(error, meta.kind, jobId) : error);
        if (interrupted) meta.interrupted = true;
      } else {
        record.status = 'completed';
      }
    });
    this.events.progress(jobId, { status: final.record.status, done: entryCount(final), failed });
    this.webhooks?.ended(jobId, kind, request, final.record, { done: entryCount(final), failed });
  }

  private async checkCancelled(jobId: string, controller: AbortController): Promise<void> {
    // The store's own header, not a copy in memory: the cancel may come from another process.
    const header = await this.store.storedHeader(jobId).catch(() => undefined);
    if (header?.status === 'stopped' && !controller.signal.aborted) controller.abort(new Error('stopped by user'));
  }

  /** The job's header (never its result): status, kind and the rest a check needs. */
  private async readHeader(jobId: string, kind?: JobKind): Promise<JobHeader> {
    const header = ofKind(await this.store.header(validateJobId(jobId)), kind);
    return this.unstored.has(header.jobId) ? { ...header, status: 'failed' } : header;
  }

  async status(jobId: string, kind?: JobKind): Promise<JobStatusObject & { kind: JobKind }> {
    const header = await this.readHeader(jobId, kind);
    return { status: header.status, kind: header.kind };
  }

  async result<K extends JobKind>(kind: K, jobId: string, query?: PageQuery): Promise<JobRecordByKind[K]> {
    const job = await this.store.read((await this.readHeader(jobId, kind)).jobId);
    const record = await readRecord(this.store, job, query);
    const unstored = this.unstored.get(job.meta.jobId);
    return (unstored === undefined ? record : { ...record, status: 'failed', error: unstored }) as JobRecordByKind[K];
  }

  async resultText(kind: 'batch' | 'crawl', jobId: string, query: Required<PageQuery>, link?: (entry: PageEntry) => PageEntry): Promise<PagedText> {
    const job = await this.store.read((await this.readHeader(jobId, kind)).jobId);
    return readRecordText(this.store, job, query, link);
  }

  async resultEntries(kind: 'batch' | 'crawl', jobId: string, query: Required<PageQuery>): Promise<PagedEntries> {
    const job = await this.store.read((await this.readHeader(jobId, kind)).jobId);
    return readRecordEntries(this.store, job, query);
  }

  /** From the store's index (pages.idx), after the checks a read makes (a dead owner's job failed, damaged entries refused). */
  async pageCounts(kind: 'batch' | 'crawl', jobId: string): Promise<PageCounts | undefined> {
    const job = await this.store.read((await this.readHeader(jobId, kind)).jobId);
    return this.store.pageCounts?.(job.meta.jobId, entryCount(job));
  }

  async wait(kind: JobKind, jobId: string, options: WaitOptions = {}): Promise<JobStatus> {
    const header = await this.readHeader(jobId, kind);
    if (isFinal(header.status)) return header.status;
    if (this.running.has(header.jobId) || this.queue.has(header.jobId)) {
      return this.events.wait(header.jobId, options);
    }
    return waitByPolling(this.store, kind, header.jobId, options);
  }

  /** jobs/search.ts: the search engine of this process's environment; the results scraped by a batch job of this back end. */
  async search(request: SearchRequest, options: SearchOptions = {}): Promise<SearchResult> {
    const { searchWith } = await import('../jobs/search.js');
    return searchWith(this, request, this.env, options);
  }

  /** jobs/map.ts: plain HTTP through the engine's fetch, no browser. */
  async map(request: MapRequest, signal?: AbortSignal): Promise<MapResult> {
    const validated = validateMapRequest(request);
    const [engine, { mapWith }] = await Promise.all([this.getEngine(), import('../jobs/map.js')]);
    return mapWith(engine, validated, signal);
  }

  /** Mends a damaged batch or crawl for `webjobs retry`: its entries that cannot be read become failed entries saying so. */
  async mend(jobId: string): Promise<{ lost: number }> {
    const { jobId: id } = await this.readHeader(jobId);
    return { lost: (await this.store.mendPages?.(id, 'failed'))?.lost.length ?? 0 };
  }

  async remove(jobId: string): Promise<boolean> {
    return this.store.remove((await this.readHeader(jobId)).jobId);
  }

  async request(jobId: string): Promise<JobStart> {
    return (await this.store.request(validateJobId(jobId))) as JobStart;
  }

  async list(jobIds?: readonly string[]): Promise<JobSummary[]> {
    const jobs = await this.store.list(jobIds);
    return jobs.map((job) =>
      'damaged' in job
        ? { jobId: job.jobId, kind: job.kind ?? 'unknown', status: 'unknown', createdAt: job.createdAt, url: job.url ?? '', error: job.damaged }
        : { jobId: job.jobId, kind: job.kind, status: this.unstored.has(job.jobId) ? 'failed' : job.status, createdAt: job.createdAt, url: withoutCredentials(job.url) },
    );
  }

  async cancel(jobId: string, kind?: JobKind): Promise<JobStatusObject> {
    const { jobId: id } = await this.readHeader(jobId, kind);
    const status = await this.store.cancel(id);
    this.queue.remove(id);
    const active = this.running.get(id);
    active?.controller.abort(new Error('stopped by user'));
    return { status };
  }

  /**
   * Goes on with a stopped or interrupted batch or crawl in the same job (jobs/resume.ts says which may): it
   * keeps the pages it stored and does the rest, in this process or (detach) in a worker. Refused with
   * NotResumableError, the job unchanged, when it may not.
   */
  async resume(jobId: string, kind?: JobKind, options: StartOptions = {}): Promise<JobStatusObject> {
    // A stopped job still winding down here ends first: one run of a job at a time.
    await this.running.get(validateJobId(jobId))?.done;
    const header = await this.readHeader(jobId, kind);
    const id = header.jobId;
    const self = await this.store.self();
    const judged = header.owner;
    const ownerGone = judged.lease !== self.lease && !(await this.store.ownerAlive(judged));
    // Entries that cannot be read are redone, whatever the job's end (every entry is read to know).
    const damaged = isFinal(header.status) && this.store.mendPages !== undefined && (await pagesDamaged(this.store, id));
    // A stopped job whose process still winds it down (or a serve that owns it) is that process's to resume.
    if (judged.lease !== self.lease && !ownerGone) {
      checkResumable(id, header.kind, header.status, true, damaged);
      throw new NotResumableError(`${header.kind} job ${id} belongs to a process that still runs (pid ${judged.pid}); resume it there (webjobs serve: --remote), or once it has exited`);
    }
    const resumed = await this.store.update(id, (record, meta) => {
      // Pending under a process gone before it began the job (killed at once): nothing else would ever run it.
      const abandoned = record.status === 'pending' && ownerGone && meta.owner.pid === judged.pid && meta.owner.lease === judged.lease;
      checkResumable(id, meta.kind, record.status, meta.interrupted === true || abandoned, damaged);
      record.status = 'pending';
      delete record.error;
      delete meta.interrupted;
      meta.resumedAt = new Date().toISOString();
      meta.owner = self;
    });
    this.unstored.delete(id);
    if (damaged) await this.store.mendPages!(id, 'missing');
    if (options.detach) await this.spawnWorker(id);
    else this.enqueue(id, options.tenant);
    return { status: resumed.record.status };
  }

  /**
   * Stops running jobs (they end failed as interrupted, saying why: a batch or
   * crawl may resume), then the browser. Pending
   * jobs stay pending in the store; whoever reads them next sees they are orphaned.
   */
  async close(reason = 'webjobs shut down before the job finished'): Promise<void> {
    this.closing = true;
    this.queue.clear();
    for (const { controller } of this.running.values()) controller.abort(new Error(reason));
    await Promise.all([...this.running.values()].map((r) => r.done.catch(() => undefined)));
    if (this.drainWebhooks) await this.webhooks?.idle().then(() => this.webhooks?.close());
    const engine = this.engine;
    this.engine = undefined;
    if (engine) await (await engine.catch(() => undefined))?.close();
    // The jobs left pending are free for the next server at once, not when the lease would run out.
    await this.store.close().catch(() => undefined);
  }
}

function abortMessage(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : 'the job was aborted';
}
