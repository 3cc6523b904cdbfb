/**
 * The remote back end: the CLI's jobs run on a webjobs service (`webjobs serve`
 * or the hosted service the spec describes) and are polled over HTTP. It speaks
 * the service's conventions: the /api prefix, the x-api-key header, status
 * endpoints that say only the status, and paged batch/crawl results.
 */
import { JOB_PATH, KIND_PATHS, NO_SUCH_JOB_CODE } from '../api/paths.js';
import type { JobBackend, JobStart, PagedEntries, SearchOptions, StartOptions, WaitOptions } from '../api/backend.js';
import { JobNotFoundError, PlanError, RemoteError, UsageError, WaitTimeoutError } from '../api/errors.js';
import {
  isFinal,
  JOB_KINDS,
  type JobHandle,
  type JobKind,
  type JobRecordByKind,
  type JobRequestByKind,
  type JobStatus,
  type JobStatusObject,
  type JobSummary,
  type MapRequest,
  type MapResult,
  type PageEntry,
  type PageQuery,
} from '../api/types.js';
import type { SearchRequest, SearchResult } from '../api/search.js';
import { HttpClient, type HttpOptions } from './http.js';
import { quoted } from '../api/quote.js';

export interface RemoteBackendOptions extends Omit<HttpOptions, 'apiUrl'> {
  /** The service's address, with or without its /api prefix. */
  baseUrl: string;
  /** Waits between status polls: soon at first, then every ~2 s. */
  pollDelaysMs?: number[];
}

/**
 * Most jobs a CLI waits for end within a second or two: polled at 250, 750, 1750 ms..., one done at 0.8 s was seen at
 * 1.75 s. Small waits first (a status request is a few hundred bytes), then every 2 s as before.
 */
export const DEFAULT_POLL_DELAYS_MS = [100, 200, 300, 500, 1000, 1500, 2000];
/** Entries per request when streaming a batch/crawl's pages during a wait. */
const STREAM_BATCH = 100;
/** A search that scrapes its results waits for them in one request: up to this long. */
const SEARCH_SCRAPE_TIMEOUT_MS = 15 * 60_000;

type PagedKind = 'batch' | 'crawl';
type PagedRecord = JobRecordByKind[PagedKind];

/** The entry offset a `next` of serve's asks for; undefined when it names none. */
function nextOffset(next: string): number | undefined {
  const offset = new URL(next, 'http://service').searchParams.get('offset');
  return offset !== null && /^\d+$/.test(offset) ? Number(offset) : undefined;
}
const isPaged = (kind: JobKind): kind is PagedKind => kind === 'batch' || kind === 'crawl';

/** `https://host/`, `https://host/api` and `https://host/api/` all mean the same service. */
export function apiUrlOf(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`--remote: ${quoted(baseUrl)} is not a URL (expected e.g. https://jobs.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--remote: ${quoted(baseUrl)} must use http or https`);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/api') ? path : `${path}/api`;
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class RemoteBackend implements JobBackend {
  private readonly http: HttpClient;
  private readonly pollDelaysMs: number[];
  /** Whether the service answers GET /api/jobs/{jobId} (webjobs serve does; the spec has no such route). */
  private hasJobRoute = true;

  constructor(options: RemoteBackendOptions) {
    this.http = new HttpClient({ ...options, apiUrl: apiUrlOf(options.baseUrl) });
    this.pollDelaysMs = options.pollDelaysMs ?? DEFAULT_POLL_DELAYS_MS;
  }

  /** The job always runs on the service; `detach` means nothing here. */
  async start<K extends JobKind>(kind: K, request: JobRequestByKind[K], _options?: StartOptions): Promise<JobHandle> {
    const { jobId } = await this.http.call<JobHandle>('POST', KIND_PATHS[kind], { body: request });
    return { jobId };
  }

  async status(jobId: string, kind?: JobKind): Promise<JobStatusObject & { kind: JobKind }> {
    if (kind) return { status: await this.statusOf(kind, jobId), kind };
    if (this.hasJobRoute) {
      try {
        const job = await this.http.call<JobStatusObject & { kind: JobKind }>('GET', `${JOB_PATH}/${encodeURIComponent(jobId)}`, { jobId, noSuchJobCode: NO_SUCH_JOB_CODE });
        return { status: job.status, kind: job.kind };
      } catch (err) {
        if (!(err instanceof RemoteError && err.httpStatus === 404)) throw err;
        this.hasJobRoute = false;
      }
    }
    // A service with the spec's endpoints only: they are per kind, so ask each until one knows the job.
    for (const candidate of JOB_KINDS) {
      try {
        return { status: await this.statusOf(candidate, jobId), kind: candidate };
      } catch (err) {
        // 402: batch endpoints are closed to this key's plan, so it has no batch job.
        if (!(err instanceof JobNotFoundError || err instanceof PlanError)) throw err;
      }
    }
    throw new JobNotFoundError(jobId);
  }

  private async statusOf(kind: JobKind, jobId: string): Promise<JobStatus> {
    const { status } = await this.http.call<JobStatusObject>('GET', `${KIND_PATHS[kind]}/${encodeURIComponent(jobId)}/status`, { jobId });
    return status;
  }

  async result<K extends JobKind>(kind: K, jobId: string, query?: PageQuery): Promise<JobRecordByKind[K]> {
    if (!isPaged(kind)) return this.http.call<JobRecordByKind[K]>('GET', `${KIND_PATHS[kind]}/${encodeURIComponent(jobId)}`, { jobId });
    const { record, entries } = await this.resultEntries(kind, jobId, query ?? {});
    const data: PageEntry[] = [];
    for await (const entry of entries) data.push(entry);
    return { ...record, data } as JobRecordByKind[K];
  }

  /**
   * A result batch, one answer at a time: serve bounds an answer by bytes, and says
   * where the rest of the batch is (`next`, whose offset is asked for next).
   */
  async resultEntries(kind: PagedKind, jobId: string, query: PageQuery): Promise<PagedEntries> {
    const path = `${KIND_PATHS[kind]}/${encodeURIComponent(jobId)}`;
    const readAt = (offset?: number) =>
      this.http.call<PagedRecord>('GET', path, { jobId, query: { page: query.page, batchSize: query.batchSize, offset } });
    const first = await readAt();
    const { data: _data, next: _next, ...record } = first;
    async function* entries(): AsyncGenerator<PageEntry> {
      let answer: PagedRecord | undefined = first;
      let read = 0;
      while (answer) {
        const { data, next } = answer;
        answer = undefined;
        yield* data;
        read += data.length;
        // Onwards only: a `next` that does not move on ends the batch rather than loop.
        const offset = next !== undefined ? nextOffset(next) : undefined;
        if (offset !== undefined && data.length > 0 && offset >= read) answer = await readAt(offset);
      }
    }
    return { record, entries: entries() };
  }

  /**
   * Polls the status endpoint, first soon, then every ~2 s. For batch and crawl,
   * finished pages are handed to onPage in submission order as they become
   * readable (the service does not say in which order they finished).
   */
  async wait(kind: JobKind, jobId: string, options: WaitOptions = {}): Promise<JobStatus> {
    const started = Date.now();
    const stream = isPaged(kind) && (options.onPage || options.onProgress) ? new PageStream(this, kind, jobId) : undefined;
    for (let poll = 0; ; poll++) {
      const status = await this.statusOf(kind, jobId);
      if (stream) await stream.advance(isFinal(status), options.onPage);
      options.onProgress?.({ status, done: stream?.done ?? 0, failed: stream?.failed ?? 0 });
      if (isFinal(status)) return status;
      const waited = Date.now() - started;
      if (options.timeoutMs !== undefined && waited >= options.timeoutMs) throw new WaitTimeoutError(jobId, options.timeoutMs);
      const delay = this.pollDelaysMs[Math.min(poll, this.pollDelaysMs.length - 1)]!;
      await sleep(options.timeoutMs !== undefined ? Math.min(delay, Math.max(0, options.timeoutMs - waited)) : delay);
    }
  }

  /** `webjobs serve`'s own list of this key's jobs (not an endpoint of the spec). */
  /** The service lists all of this key's jobs; a list of ids narrows that here. */
  async list(jobIds?: readonly string[]): Promise<JobSummary[]> {
    const jobs = await this.http.call<JobSummary[]>('GET', '/jobs');
    if (!jobIds) return jobs;
    const wanted = new Set(jobIds.map((id) => id.toLowerCase()));
    return jobs.filter((job) => wanted.has(job.jobId));
  }

  async cancel(jobId: string, kind?: JobKind): Promise<JobStatusObject> {
    const jobKind = kind ?? (await this.status(jobId)).kind;
    const { status } = await this.http.call<JobStatusObject>('DELETE', `${KIND_PATHS[jobKind]}/${encodeURIComponent(jobId)}`, { jobId });
    return { status };
  }

  /** `webjobs serve`'s extension POST /api/{crawl|scrape/batch}/{jobId}/resume (not an endpoint of the spec). */
  async resume(jobId: string, kind?: JobKind): Promise<JobStatusObject> {
    const jobKind = kind ?? (await this.status(jobId)).kind;
    const { status } = await this.http.call<JobStatusObject>('POST', `${KIND_PATHS[jobKind]}/${encodeURIComponent(jobId)}/resume`, { jobId });
    return { status };
  }

  /** `webjobs serve`'s extension POST /api/map (not an endpoint of the spec). */
  async map(request: MapRequest): Promise<MapResult> {
    return this.http.call<MapResult>('POST', '/map', { body: request });
  }

  /** `webjobs serve`'s extension POST /api/search: the service asks its search engine and scrapes the results. */
  async search(request: SearchRequest, options: SearchOptions = {}): Promise<SearchResult> {
    // Scraping up to 100 results takes the time of a batch: longer than one request is given.
    const scrapes = (request.scrapeOptions?.formats?.length ?? 0) > 0;
    return this.http.call<SearchResult>('POST', '/search', {
      body: request,
      ...(scrapes ? { timeoutMs: SEARCH_SCRAPE_TIMEOUT_MS } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** The service has no endpoint to delete a job: it keeps its jobs by its own rules. */
  async remove(): Promise<boolean> {
    throw new UsageError('prune works on the local job store; a webjobs service keeps its jobs by its own rules (drop --remote)');
  }

  /** The service never returns a job's request (it may hold credentials). */
  async request(): Promise<JobStart> {
    throw new UsageError("retry works on local jobs; a webjobs service does not return a job's request (drop --remote)");
  }

  /** Nothing to release: every request is complete when its call returns. */
  async close(): Promise<void> {}
}

/**
 * Reads a batch/crawl job's entries in order while it runs, handing each
 * finished one over once. A batch has placeholders (status pending) for pages
 * not done yet; reading stops at the first one and resumes there next poll.
 */
class PageStream {
  private next = 0;
  done = 0;
  failed = 0;

  constructor(private readonly backend: RemoteBackend, private readonly kind: PagedKind, private readonly jobId: string) {}

  async advance(final: boolean, onPage?: WaitOptions['onPage']): Promise<void> {
    for (;;) {
      const page = Math.floor(this.next / STREAM_BATCH) + 1;
      const record = await this.backend.result(this.kind, this.jobId, { page, batchSize: STREAM_BATCH });
      const offset = this.next - (page - 1) * STREAM_BATCH;
      for (const entry of record.data.slice(offset)) {
        if (entry.status === 'pending' && !final) return;
        const index = this.next++;
        // A stopped or failed batch keeps placeholders for pages it never did: nothing to hand over.
        if (entry.status === 'pending') continue;
        this.done++;
        if (entry.status === 'failed') this.failed++;
        onPage?.(entry, index);
      }
      if (record.data.length < STREAM_BATCH || page >= record.totalPageBatches) return;
    }
  }
}
