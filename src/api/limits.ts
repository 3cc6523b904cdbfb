import type { BatchScrapeRequest } from './types.js';

/** The job API's limits (docs/api.md#limits) and the defaults webjobs documents beside them. */
export const LIMITS = {
  maxBatchUrls: 1000,
  maxCrawlPages: 100,
  /**
   * maxPages of a crawl run on this machine (the CLI without --remote); `serve` keeps maxCrawlPages, the API's limit.
   * What grows with a crawl is kept compact or on disk (issue 59; test/scaleBounds.test.ts, npm run bench:crawl-scale).
   */
  maxLocalCrawlPages: 100_000,
  defaultCrawlPages: 10,
  defaultTimeoutMs: 30_000,
  maxTimeoutMs: 300_000,
  maxWaitForMs: 60_000,
  defaultResultBatchSize: 100,
  maxResultBatchSize: 1000,
  /**
   * The furthest entry of a job's results a query may ask for (page, skip): PostgreSQL numbers a job's
   * pages with an integer, so no job holds more. Past it, a query is refused before it reaches a store.
   */
  maxResultOffset: 2_147_483_647,
  maxExtractUrls: 20,
  /** Crawl includePatterns, and excludePatterns, each: how many, and how long one may be (matching costs path length x pattern length). */
  maxCrawlPatterns: 20,
  /** A crawl's maxDepth at most: past any site's depth, a bound so that the number stays an ordinary one. */
  maxCrawlDepth: 1_000,
  maxCrawlPatternLength: 100,
  /** The webjobs extension `delay` (batch and crawl): milliseconds between two requests to one host. */
  maxDelayMs: 60_000,
  /** Requests one host gets at once in a crawl or batch with no delay (a batch's own `concurrency` replaces it). */
  perHostConcurrency: 4,
  /** scrapeOptions.headers: how many, and how long a name plus its value may be. */
  maxHeaders: 50,
  maxHeaderLength: 8192,
  /** scrapeOptions.cookies: how many, and how long a name plus its value may be (browsers keep 4096). */
  maxCookies: 300,
  maxCookieLength: 4096,
  maxUserAgentLength: 512,
  /** An extract schema's objects and arrays within each other: ajv compiles by recursion, and ~2,000 levels overflow its stack. */
  maxSchemaDepth: 100,
  /** map (a webjobs extension): URLs returned by default and at most, and link levels read at most. */
  /** scrapeOptions.maxAge (a webjobs extension): a cached page may be reused up to a year old. */
  maxMaxAgeMs: 365 * 24 * 3600 * 1000,
  /** changeTrackingOptions.tag (--change-tag): a name, not a document. */
  maxChangeTagLength: 200,
  /** chunkTokens and maxTokens (webjobs extensions): below 16 tokens a heading alone would not fit; a million is past any model's window. */
  minTokens: 16,
  maxTokens: 1_000_000,
  defaultMapLimit: 5_000,
  maxMapLimit: 100_000,
  defaultMapDepth: 1,
  maxMapDepth: 3,
} as const;

/**
 * Requests one host of a batch gets at once, across all its workers: the batch's own
 * `concurrency` when the user set one (their choice for the one host a batch often
 * targets), else perHostConcurrency.
 */
export function batchPerHostLimit(request: BatchScrapeRequest): number {
  return request.concurrency ?? LIMITS.perHostConcurrency;
}
