/**
 * The job interface on PostgreSQL: what an API node (`webjobs serve --database`)
 * answers with. Starting a job records it and queues its work in one
 * transaction; workers anywhere run it (src/pg/worker.ts). A database that
 * cannot be reached is a DatabaseUnavailableError (503 + Retry-After), never a 500.
 */
import type { JobBackend, SearchOptions, StartOptions, WaitOptions } from '../api/backend.js';
import type { SearchRequest, SearchResult } from '../api/search.js';
import { UnsupportedError, UsageError, WaitTimeoutError } from '../api/errors.js';
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
  type PageQuery,
} from '../api/types.js';
import type { JobStart } from '../api/backend.js';
import { validateJobId, validateMapRequest, validateRequest } from '../api/validate.js';
import type { Engine } from '../engine/engine.js';
import { ofKind } from '../jobs/jobStore.js';
import { loadRunner } from '../jobs/runners/index.js';
import { reachable, type PgConnection } from './connect.js';
import { PgProgress } from './progress.js';
import { PgJobStore, type JobOwner } from './store.js';
import { resumeJob } from './resume.js';

const WAIT_POLL_MS = 250;

export interface PgBackendOptions {
  /** The engine map reads sites with, on this node (plain HTTP, no browser); without one, map is unsupported. */
  createEngine?: () => Promise<Engine>;
  /** serve --shared-cache: every key reads and writes the same entries of the page cache (maxAge). */
  sharedCache?: boolean;
}

/** How a refusal names this back end. */
const ON_POSTGRES = 'PostgreSQL (serve --database)';

export class PgBackend implements JobBackend {
  readonly store: PgJobStore;
  private readonly pool: PgConnection['pool'];
  private readonly progress: PgProgress;
  /** Map's engine, made on the first map. */
  private engine: Promise<Engine> | undefined;

  constructor(
    connection: PgConnection,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly options: PgBackendOptions = {},
  ) {
    this.store = new PgJobStore(connection);
    this.pool = connection.pool;
    this.progress = new PgProgress(connection.pool);
  }

  /** Answered at once by this API node, as on the file store (jobs/map.ts): map is no job, so no worker runs it. */
  async map(request: MapRequest, signal?: AbortSignal): Promise<MapResult> {
    const validated = validateMapRequest(request);
    const { createEngine } = this.options;
    if (!createEngine) throw UnsupportedError.of('map', `${ON_POSTGRES} without an engine`);
    this.engine ??= createEngine().catch((err: unknown) => {
      this.engine = undefined;
      throw err;
    });
    const [engine, { mapWith }] = await Promise.all([this.engine, import('../jobs/map.js')]);
    return mapWith(engine, validated, signal);
  }

  /** Asked by this API node (jobs/search.ts); the scraping batch is a job like any other, run by the workers. */
  async search(request: SearchRequest, options: SearchOptions = {}): Promise<SearchResult> {
    const { searchWith } = await import('../jobs/search.js');
    return searchWith(this, request, this.env, options);
  }

  async start<K extends JobKind>(kind: K, request: JobRequestByKind[K], _options: StartOptions = {}): Promise<JobHandle> {
    return this.startOwned(kind, request);
  }

  /** Starts a job for an API key, refused with TooManyJobsError when the key already has maxActive pending or running. */
  async startOwned<K extends JobKind>(kind: K, request: JobRequestByKind[K], owner?: JobOwner): Promise<JobHandle> {
    const validated = validateRequest(kind, request);
    const runner = await loadRunner(kind);
    if (!runner) throw new UsageError(`${kind} jobs are not available in this build`);
    // The API node checks what it can without a browser (an extract's LLM key, its schema); workers need the same settings.
    await runner.preflight?.(validated, this.env);
    // The job reads and writes its key's entries of the page cache, unless the keys share it.
    const cacheTenant = this.options.sharedCache ? undefined : owner?.key;
    return { jobId: await reachable(() => this.store.create(kind, validated, runner.initialRecord(validated), owner, cacheTenant)) };
  }

  /** The jobs of an API key, oldest first. */
  jobsOf(key: string): Promise<string[]> {
    return reachable(() => this.store.jobsOf(key));
  }

  owns(key: string, jobId: string): Promise<boolean> {
    return reachable(() => this.store.owns(key, jobId));
  }

  private async header(jobId: string, kind?: JobKind) {
    return ofKind(await reachable(() => this.store.header(validateJobId(jobId))), kind);
  }

  async status(jobId: string, kind?: JobKind): Promise<JobStatusObject & { kind: JobKind }> {
    const { status, kind: actual } = await this.header(jobId, kind);
    return { status, kind: actual };
  }

  async result<K extends JobKind>(kind: K, jobId: string, query?: PageQuery): Promise<JobRecordByKind[K]> {
    await this.header(jobId, kind);
    return (await reachable(() => this.store.result(jobId, query))) as JobRecordByKind[K];
  }

  /**
   * Polls the job's row: the job runs on some worker, which may be on another machine. Progress counts the
   * pages finished and failed; onPage gets each finished entry once, in page order.
   */
  async wait(kind: JobKind, jobId: string, options: WaitOptions = {}): Promise<JobStatus> {
    await this.header(jobId, kind);
    const started = Date.now();
    const replay = options.onPage && (kind === 'batch' || kind === 'crawl') ? this.pageReplay(kind, jobId, options.onPage) : undefined;
    for (;;) {
      const { kind: _kind, ...progress } = await reachable(() => this.progress.progress(jobId));
      const final = isFinal(progress.status);
      await replay?.(final);
      options.onProgress?.(progress);
      if (final) return progress.status;
      if (options.timeoutMs !== undefined && Date.now() - started >= options.timeoutMs) throw new WaitTimeoutError(jobId, options.timeoutMs);
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    }
  }

  /**
   * Hands each finished entry to onPage once, in page order: one waits for an earlier page still running, until
   * the job has ended (a crawl cancelled leaves pages unfinished). Its index is its place in the result's data:
   * a batch lists every URL, a crawl its finished pages.
   */
  private pageReplay(kind: 'batch' | 'crawl', jobId: string, onPage: NonNullable<WaitOptions['onPage']>): (final: boolean) => Promise<void> {
    let next = 0;
    let given = 0;
    return async (final) => {
      for (;;) {
        const rows = await reachable(() => this.progress.finished(jobId, next));
        for (const { idx, entry } of rows) {
          if (idx !== next && !final) return;
          next = idx + 1;
          // A crawl's page dropped as a redirect to a page crawled already has no entry.
          if (!entry) continue;
          onPage(entry, kind === 'batch' ? idx : given);
          given++;
        }
        if (rows.length === 0) return;
      }
    };
  }

  list(jobIds?: readonly string[]): Promise<JobSummary[]> {
    return reachable(() => this.store.list(jobIds));
  }

  async cancel(jobId: string, kind?: JobKind): Promise<JobStatusObject> {
    await this.header(jobId, kind);
    return { status: await reachable(() => this.store.cancel(jobId)) };
  }

  async resume(jobId: string, kind?: JobKind): Promise<JobStatusObject> {
    return this.resumeOwned(jobId, kind);
  }

  /** Resumes a stopped batch or crawl (pg/resume.ts); for an API key, refused with TooManyJobsError past its limit. */
  async resumeOwned(jobId: string, kind?: JobKind, owner?: JobOwner): Promise<JobStatusObject> {
    await this.header(jobId, kind);
    return { status: await reachable(() => resumeJob(this.pool, this.store, jobId, owner)) };
  }

  async remove(jobId: string): Promise<boolean> {
    return reachable(() => this.store.remove(validateJobId(jobId)));
  }

  async request(jobId: string): Promise<JobStart> {
    return (await reachable(() => this.store.request(validateJobId(jobId)))) as JobStart;
  }

  /** Closes map's engine; the connection is the caller's to close. */
  async close(): Promise<void> {
    const engine = this.engine;
    this.engine = undefined;
    await (await engine?.catch(() => undefined))?.close();
  }
}
