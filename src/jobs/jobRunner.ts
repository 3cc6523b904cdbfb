/**
 * What a job kind needs to run on the local back end. Each kind has one runner in
 * runners/; the LocalBackend does the bookkeeping common to all of them (states,
 * errors, cancellation, concurrency) around it.
 */
import type { JobKind, JobRequestByKind, PageEntry } from '../api/types.js';
import type { SiteAccess } from '../engine/net/access.js';
import type { Engine } from '../engine/engine.js';
import type { JobCache } from './crawlChanges.js';
import type { RecordHeader } from './jobStore.js';

export interface JobContext<K extends JobKind> {
  jobId: string;
  request: JobRequestByKind[K];
  engine: Engine;
  /**
   * Aborted when the job is cancelled or the process shuts down, and once the job
   * has ended: what the job left running in the browser ends with it.
   */
  signal: AbortSignal;
  /**
   * `engine` for page `place` (0-based) of a batch (its index) or crawl (the order it was found in): the files its
   * scrape keeps are named by that place (screenshot-<place + 1>), on every store, however the pages finish.
   */
  pageEngine(place: number): Engine;
  env: NodeJS.ProcessEnv;
  /** The request's headers, cookies and user-agent and where they may go; for every page and plain fetch of the job. */
  access?: SiteAccess;
  /** The page cache `engine` uses (withCache), for what a job keeps beyond one page: a crawl's page set (crawlChanges.ts). */
  pageCache?: JobCache;
  /** Changes the record header (counters, data of scrape/extract) under the store's lock. */
  update(change: (record: RecordHeader) => void): Promise<void>;
  /**
   * Stores page entry `index` of a batch or crawl and tells whoever waits on the job. Several may be under
   * way at once: they are told, and resolve, in the order they were called, however their writes finish.
   */
  putPage(index: number, entry: PageEntry): Promise<void>;
  /** A crawl tells whoever waits on the job how many pages it knows of (done, loading and queued). */
  discovered(count: number): void;
  /** The job's journal (a crawl's frontier as it grows), where the store keeps one: what a resume goes on from. */
  journal?: JobJournal;
  /** Set when the job goes on after a stop or an interruption (webjobs resume): what it did before. */
  resumed?: ResumedJob;
}

export interface JobJournal {
  append(lines: readonly unknown[]): Promise<void>;
  read(): Promise<unknown[]>;
}

/** What a resumed job finds of its earlier runs: the entries it stored (0-based, missing ones undefined). */
export interface ResumedJob {
  readPages(start: number, count: number): Promise<(PageEntry | undefined)[]>;
}

export interface JobRunner<K extends JobKind> {
  /** The record as it is stored at creation, before the job runs (status pending). */
  initialRecord(request: JobRequestByKind[K]): RecordHeader;
  /**
   * Checks that need this machine's configuration (an API key, a proxy) and must
   * refuse the job before it exists. Throws a WebjobsError.
   */
  preflight?(request: JobRequestByKind[K], env: NodeJS.ProcessEnv): Promise<void> | void;
  /** Does the work. Throwing fails the job with the error's message. */
  run(ctx: JobContext<K>): Promise<void>;
  /** Expected number of pages, for progress display. */
  expectedPages?(request: JobRequestByKind[K]): number;
}
