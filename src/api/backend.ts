/**
 * The one interface every back end implements: the local one (engine + job store)
 * and the remote one (HTTP client of the service). The CLI only ever sees this.
 */
import type {
  JobHandle,
  JobKind,
  JobRecordByKind,
  JobRequestByKind,
  JobStatus,
  JobStatusObject,
  JobSummary,
  MapRequest,
  MapResult,
  PageEntry,
  PageQuery,
  PagedRecordHead,
} from './types.js';
import type { SearchRequest, SearchResult } from './search.js';
import type { BatchScrapeRequest } from './types.js';
import type { PageCounts } from './pageCounts.js';

/** One entry of a result batch as JSON text, read only when an answer writes it. */
export interface EntryText {
  /** Its length in bytes (as stored; what it adds to an answer). */
  bytes: number;
  text(): Promise<string | NodeJS.ReadableStream>;
}

/** A batch or crawl result batch for `serve` to stream: the record's fields, then each entry's text. */
export interface PagedText {
  record: PagedRecordHead;
  entries: EntryText[];
}

/** A result batch read entry by entry: never all of its entries in memory at once. */
export interface PagedEntries {
  record: PagedRecordHead;
  entries: AsyncIterable<PageEntry> | Iterable<PageEntry>;
}

export interface JobProgress {
  status: JobStatus;
  /** Pages finished (completed or failed) so far, for batch and crawl. */
  done: number;
  failed: number;
  /** Pages expected, when known (batch: the URL count; crawl: maxPages). */
  total?: number;
  /** Crawl, run in this process: pages it knows of so far (done, loading and queued; at most maxPages). */
  discovered?: number;
}

export interface WaitOptions {
  /** Give up waiting (not the job) after this many milliseconds. */
  timeoutMs?: number;
  onProgress?: (progress: JobProgress) => void;
  /**
   * Called once per finished page of a batch or crawl, in the order pages finish,
   * with the entry's index in the job's result (its place in `data`).
   */
  onPage?: (entry: PageEntry, index: number) => void;
}

/** A job's kind and the request it was started with. */
export type JobStart = { [K in JobKind]: { kind: K; request: JobRequestByKind[K] } }[JobKind];

export interface StartOptions {
  /** Local back end: run the job in a detached worker process that outlives this one. */
  detach?: boolean;
  /** serve: the API key the job is for; keys take the job slots in turn, and each has its own page cache. */
  tenant?: string;
}

export interface JobBackend {
  start<K extends JobKind>(kind: K, request: JobRequestByKind[K], options?: StartOptions): Promise<JobHandle>;
  /** `kind` may be omitted when the caller only has an id; the back end finds the job's kind. */
  status(jobId: string, kind?: JobKind): Promise<JobStatusObject & { kind: JobKind }>;
  /** The job record as the spec's GET result endpoint returns it; batch and crawl are paged by `query`. */
  result<K extends JobKind>(kind: K, jobId: string, query?: PageQuery): Promise<JobRecordByKind[K]>;
  /**
   * Batch and crawl, optional: the result batch `query` as JSON text per entry, each
   * read when written; `link` changes an entry that must change (a screenshot's path
   * into its URL). serve streams its answers from this where a back end has it.
   */
  resultText?(kind: 'batch' | 'crawl', jobId: string, query: Required<PageQuery>, link?: (entry: PageEntry) => PageEntry): Promise<PagedText>;
  /**
   * Batch and crawl, optional: the result batch `query`, its entries read one part at a
   * time (a file each locally; an answer each from a service, following `next`), so a
   * batch of 19 MB pages is never in memory whole. Without it, result() reads it.
   */
  resultEntries?(kind: 'batch' | 'crawl', jobId: string, query: Required<PageQuery>): Promise<PagedEntries>;
  /**
   * Batch and crawl, optional: the entries stored so far counted by what they are (`status`, `jobs`), without
   * reading them; undefined when this back end cannot count them so (read them). Without it, they are read.
   */
  pageCounts?(kind: 'batch' | 'crawl', jobId: string): Promise<PageCounts | undefined>;
  /** Resolves with the final status; rejects with WaitTimeoutError when `timeoutMs` runs out. */
  wait(kind: JobKind, jobId: string, options?: WaitOptions): Promise<JobStatus>;
  /** Jobs oldest first: the given ones (unknown ids left out), or all this back end's caller may see. */
  list(jobIds?: readonly string[]): Promise<JobSummary[]>;
  cancel(jobId: string, kind?: JobKind): Promise<JobStatusObject>;
  /**
   * Goes on with a stopped or interrupted batch or crawl in the same job, keeping the pages it stored
   * (`webjobs resume`); NotResumableError, nothing changed, for a job that completed, failed on its own or runs.
   */
  resume?(jobId: string, kind?: JobKind, options?: StartOptions): Promise<JobStatusObject>;
  /**
   * Deletes a job that has ended (completed, failed, stopped) with its pages;
   * false, and nothing deleted, for a job still pending or running. Local jobs only.
   */
  remove(jobId: string): Promise<boolean>;
  /**
   * Mends a batch or crawl whose stored entries cannot be read (a DamagedRecordError naming pages.jsonl or
   * pages.idx): those entries become failed entries saying they were lost, for `webjobs retry` to run again;
   * how many. Local jobs only.
   */
  mend?(jobId: string): Promise<{ lost: number }>;
  /** The request a job was started with, to start it again (`webjobs retry`). Local jobs only. */
  request(jobId: string): Promise<JobStart>;
  /**
   * The webjobs extension map: a site's URLs, at once (no job). Optional, so a
   * back end without it says so; `signal` ends it early (Ctrl-C, a closed request).
   */
  map?(request: MapRequest, signal?: AbortSignal): Promise<MapResult>;
  /**
   * webjobs search: a search engine's results for a question, each scraped when the request names
   * formats. Optional, so a back end without it says so.
   */
  search?(request: SearchRequest, options?: SearchOptions): Promise<SearchResult>;
  /** Releases browsers, timers and sockets so the process can exit. */
  close(): Promise<void>;
}

/** How a search runs, beyond its request: serve's address guard and job admission, the caller's stop. */
export interface SearchOptions {
  /** Ends the search early (Ctrl-C, a closed request): the scraping batch, if any, is cancelled. */
  signal?: AbortSignal;
  /** Why a result may not be fetched (serve's address guard), or undefined: a refused result is listed, never scraped. */
  refuse?: (url: string) => string | undefined;
  /** Starts the scraping batch (serve: as the key's job, within its plan and limits); by default the back end's own start. */
  startBatch?: (request: BatchScrapeRequest) => Promise<string>;
  /** The tenant of the scraping batch (serve: the API key). */
  tenant?: string;
}
