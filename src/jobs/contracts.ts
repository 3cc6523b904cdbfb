/**
 * What the job layer runs on besides the JobStore (jobStore.ts): the page cache
 * of `maxAge` and the files a job keeps (screenshots). Each back end gives its
 * own implementation; the file store's are store/pageCache.ts and store/jobFiles.ts.
 */
import type { PageData, ScrapeOptions, SessionOptions } from '../api/types.js';

/** One scrape as the cache sees it. */
export interface CachedScrape {
  url: string;
  scrapeOptions?: ScrapeOptions;
  sessionOptions?: SessionOptions;
  /** Whose entries these are (serve: the API key); none: the cache of this machine's user. */
  tenant?: string;
}

export interface PageCache {
  /** The stored page when it is at most `maxAgeMs` old. */
  get(scrape: CachedScrape, maxAgeMs: number): Promise<PageData | undefined>;
  put(scrape: CachedScrape, data: PageData): Promise<void>;
}

/** Where a job's files go: the record keeps what `put` answers (a path or a URL) in place of the bytes. */
export interface JobFileWriter {
  /** Stores file number `n` of `kind` (`screenshot`) with extension `ext`. */
  put(jobId: string, kind: string, n: number, ext: string, bytes: Uint8Array): Promise<string>;
}
