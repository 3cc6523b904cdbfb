/**
 * What the job layer runs on besides the JobStore (jobStore.ts): the page cache
 * of `maxAge` (which also keeps change tracking's last results) and the files a job keeps (screenshots). Each back end gives its
 * own implementation; the file store's are store/pageCache.ts and store/jobFiles.ts.
 */
import type { PageData, ScrapeOptions, SessionOptions } from '../api/types.js';
import type { Validators } from '../engine/validators.js';

/** One scrape as the cache sees it. */
export interface CachedScrape {
  url: string;
  scrapeOptions?: ScrapeOptions;
  sessionOptions?: SessionOptions;
  /** Whose entries these are (serve: the API key); none: the cache of this machine's user. */
  tenant?: string;
  /**
   * The change-tracking history this entry is (jobs/changeTracking.ts), by tag ('' untagged): its
   * own key, apart from the cache of maxAge; none for the cache of maxAge.
   */
  history?: string;
}

/** A stored page and when it was stored. */
export interface CacheEntry {
  /** Date.now() when the page was scraped. */
  storedAt: number;
  data: PageData;
  /** The ETag and Last-Modified the page came with: a later scrape revalidates the entry with them (jobEngine.ts). */
  validators?: Validators;
}

export interface PageCache {
  /** The stored page when it is at most `maxAgeMs` old. */
  get(scrape: CachedScrape, maxAgeMs: number): Promise<PageData | undefined>;
  /** Stores the page (now), with the validators it came with, replacing the entry. */
  put(scrape: CachedScrape, data: PageData, validators?: Validators): Promise<void>;
  /** The entry stored under the key, whatever its age (change tracking's last result, an entry to revalidate). */
  last(scrape: CachedScrape): Promise<CacheEntry | undefined>;
  /** `entry`, read with `last` (or `hold`), still stands (the server answered 304): its storedAt becomes now. */
  renew(scrape: CachedScrape, entry: CacheEntry): Promise<void>;
  /**
   * `last`, for an entry that may be renewed soon (a page revalidated, a history compared): the store may keep
   * what it read it from open for the renewal (FilePageCache: its file, one open where two were). `release`
   * the entry once it will not be renewed any more, renewed or not. Optional: `last` otherwise.
   */
  hold?(scrape: CachedScrape): Promise<CacheEntry | undefined>;
  release?(entry: CacheEntry): void;
}

/** Where a job's files go: the record keeps what `put` answers (a path, or the file's path on serve) in place of the bytes. */
export interface JobFileWriter {
  /**
   * Stores file number `n` of `kind` (`screenshot`, `pdf`) with extension `ext`; storing it again replaces it.
   * `n` may be a page's number and the file's within it, "3-1" (the files of page actions).
   */
  put(jobId: string, kind: string, n: number | string, ext: string, bytes: Uint8Array): Promise<string>;
}

/** One stored job file, to serve. */
export interface JobFile {
  /** Its media type (image/png...). */
  type: string;
  size: number;
  open(): NodeJS.ReadableStream;
}

/** A job's files, written by its runs and served by serve at GET /api/files/{jobId}/{name}. */
export interface JobFileStore extends JobFileWriter {
  /** The job and name of a file from what `put` answered; undefined for anything else (a page's own URL). */
  nameOf(stored: string): { jobId: string; name: string } | undefined;
  /** The file, or undefined when the job has no file of that name (or the name is none `put` makes). */
  read(jobId: string, name: string): Promise<JobFile | undefined>;
}

/** What a job file may be called: what `put` makes of its kind, number and extension. */
export const JOB_FILE_NAME = /^[a-z]+-\d{1,9}(-\d{1,2})?\.(png|jpeg|webp|pdf)$/;

export const JOB_FILE_TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', pdf: 'application/pdf' };
