import type { CssSchema } from './cssSchema.js';
import type { Action, ActionsResult, ProfileOptions } from './actionTypes.js';
import type { Webhook } from './webhook.js';

/**
 * The job API (docs/api.md) as types. Names are the interface's; fields it
 * leaves open follow the real service; webjobs' own fields say "extension".
 */

export const JOB_KINDS = ['scrape', 'batch', 'crawl', 'extract'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** `stopped` is the real service's state for a cancelled job; it is final like completed and failed. */
export const JOB_STATUSES = ['pending', 'running', 'completed', 'failed', 'stopped'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'stopped'];
export const isFinal = (status: JobStatus): boolean => FINAL_STATUSES.includes(status);

/**
 * rawHtml and screenshot are the real service's formats beyond the interface's three (docs/api.md#requests);
 * structuredData (the page's schema.org data as JSON-LD) is webjobs' own;
 * changeTracking (Firecrawl's) compares the Markdown with the last run's (ChangeTracking);
 * json (Firecrawl's) is the page's data as jsonOptions asks (a model, or its structured data);
 * chunks (webjobs') is the Markdown in pieces of at most chunkTokens tokens (Chunk).
 */
export const FORMATS = ['markdown', 'html', 'links', 'rawHtml', 'screenshot', 'structuredData', 'changeTracking', 'json', 'chunks'] as const;
export type Format = (typeof FORMATS)[number];

export const SCREENSHOT_FORMATS = ['png', 'jpeg', 'webp'] as const;
export type ScreenshotFormat = (typeof SCREENSHOT_FORMATS)[number];

/**
 * The browser window pages are rendered in, and so a screenshot's size: a laptop's. Puppeteer's
 * own 800×600 gets many sites' tablet layout, which hides parts of the page at that width.
 */
export const VIEWPORT = { width: 1280, height: 800 } as const;
export const VIEWPORT_SIZE = `${VIEWPORT.width}×${VIEWPORT.height}`;

/** How the `screenshot` format is taken (the real service's screenshotOptions). */
export interface ScreenshotOptions {
  /** The whole page, not only the viewport. Default false. */
  fullPage?: boolean;
  /** Default png. */
  format?: ScreenshotFormat;
}

export const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle'] as const;
export type WaitUntil = (typeof WAIT_UNTIL)[number];

/**
 * webjobs extension: which engine reads a page. `http` fetches it and reads the HTML
 * as served, `browser` renders it in Chromium, `auto` (the default) fetches it and
 * renders it only when it must (docs/engines.md).
 */
export const ENGINES = ['auto', 'http', 'browser'] as const;
export type EngineName = (typeof ENGINES)[number];

export interface ScrapeOptions {
  formats?: Format[];
  onlyMainContent?: boolean;
  /** Milliseconds allowed for navigating to and rendering one page. */
  timeout?: number;
  /** Milliseconds to wait after the page loaded, for late scripts. */
  waitFor?: number;
  screenshotOptions?: ScreenshotOptions;
  waitUntil?: WaitUntil;
  /** CSS selectors: when given, only these parts of the page are kept. */
  includeTags?: string[];
  /** CSS selectors removed from the page before conversion. */
  excludeTags?: string[];
  /**
   * webjobs extension: extra HTTP request headers, sent only to the origins of the
   * URLs the request names (never to another site a redirect, frame or resource reaches).
   */
  headers?: Record<string, string>;
  /** webjobs extension: cookies, each sent only to its own domain, as a browser would. */
  cookies?: Cookie[];
  /** webjobs extension: the User-Agent of every request of the job (pages, robots.txt, sitemaps). */
  userAgent?: string;
  /** webjobs extension: which engine reads the pages (default auto). */
  engine?: EngineName;
  /**
   * webjobs extension (Firecrawl's name): milliseconds a stored result of the same
   * URL and output-shaping options may be old to be returned instead of scraping
   * again (`metadata.cacheState` says hit or miss); fresh results are stored.
   */
  maxAge?: number;
  /**
   * webjobs extension: trace main-content selection in `metadata.explain` (text, one line a pass and one a
   * removed block: which pass removed which block, and why; Readability's pick against the region).
   */
  explain?: boolean;
  /** With the changeTracking format (Firecrawl's name): which history the page is compared with. */
  changeTrackingOptions?: ChangeTrackingOptions;
  /** With the json format (Firecrawl v1's name): what to extract from each page. */
  jsonOptions?: JsonOptions;
  /** Page actions (Firecrawl v2's), run in order in Chromium after the page loaded and before it is read (actionTypes.ts). */
  actions?: Action[];
  /** Firecrawl v2's profile: cookies and local storage loaded before the actions and saved after the page. */
  profile?: ProfileOptions;
  /** webjobs extension, with the chunks format: each chunk's most tokens (o200k_base; default 512, at least 16). */
  chunkTokens?: number;
  /**
   * webjobs extension: each page's Markdown is cut after the last whole block that fits in this many tokens
   * (o200k_base, at least 16); a cut page says `metadata.truncated: true`. Chunks are made after the cut.
   */
  maxTokens?: number;
}

/** One chunk of a page (the chunks format). */
export interface Chunk {
  /** Its place among the page's chunks, from 0. */
  index: number;
  /** Markdown: whole blocks of the page (a block larger than the budget alone: a piece of it). */
  text: string;
  /** The headings the chunk sits under, outermost first. */
  headings: string[];
  /** The text's length in o200k_base tokens. */
  tokens: number;
}

/**
 * The json format's options: extract's, for one page. A schema, a prompt, or both;
 * a schema alone with no model configured is filled from the page's structured data.
 */
export interface JsonOptions {
  schema?: Record<string, unknown>;
  prompt?: string;
  systemPrompt?: string;
  /** webjobs extension: "anthropic" or "openai"; default: the server's. */
  provider?: ModelProviderName;
  model?: string;
}

/** Firecrawl's diff modes; webjobs computes git-diff (json, the extracted fields' comparison, is a later step). */
export const CHANGE_TRACKING_MODES = ['git-diff', 'json'] as const;
export type ChangeTrackingMode = (typeof CHANGE_TRACKING_MODES)[number];

export interface ChangeTrackingOptions {
  /** A separate history: a page is compared with the last result stored under the same tag (none: the untagged history). */
  tag?: string;
  /** Default git-diff. */
  modes?: ChangeTrackingMode[];
}

export const CHANGE_STATUSES = ['new', 'same', 'changed', 'removed'] as const;
export type ChangeStatus = (typeof CHANGE_STATUSES)[number];

/**
 * The changeTracking format (Firecrawl's fields): the page's Markdown against the
 * last stored result of the same URL, output options and tag, in the same store.
 */
export interface ChangeTracking {
  /** When the result compared with was scraped (ISO 8601); null the first time. */
  previousScrapeAt: string | null;
  changeStatus: ChangeStatus;
  /** "visible": reached by a link or given as a URL ("hidden": only known from a past run; not produced yet). */
  visibility: 'visible' | 'hidden';
  /** git-diff mode, when changed: the unified diff of the Markdown (text) and its hunks (json, parse-diff's shape). */
  diff?: { text: string; json: ParsedDiff };
}

/** A unified diff as parse-diff (the library Firecrawl uses) gives it. */
export interface ParsedDiff {
  files: {
    from: string;
    to: string;
    additions: number;
    deletions: number;
    chunks: {
      content: string;
      oldStart: number;
      oldLines: number;
      newStart: number;
      newLines: number;
      changes: ({ type: 'add'; add: true; ln: number; content: string } | { type: 'del'; del: true; ln: number; content: string } | { type: 'normal'; normal: true; ln1: number; ln2: number; content: string })[];
    }[];
  }[];
}

/**
 * A cookie given with a job. Without `domain` it belongs to the host of each URL
 * the request names (host-only, as a cookie set without Domain=); with `domain`
 * and `includeSubdomains` it goes to that host and its subdomains.
 */
export interface Cookie {
  name: string;
  value: string;
  domain?: string;
  includeSubdomains?: boolean;
  /** Default "/". */
  path?: string;
  /** Sent over https only. */
  secure?: boolean;
  httpOnly?: boolean;
  /** Unix time in seconds; absent or 0: a session cookie. */
  expires?: number;
}

export interface SessionOptions {
  useProxy?: boolean;
  solveCaptchas?: boolean;
  proxyCountry?: string;
}

export interface ScrapeRequest {
  url: string;
  scrapeOptions?: ScrapeOptions;
  sessionOptions?: SessionOptions;
}

export interface BatchScrapeRequest {
  urls: string[];
  scrapeOptions?: ScrapeOptions;
  sessionOptions?: SessionOptions;
  /** webjobs extension (docs/api.md#requests): pages scraped at once (browser tabs); the engine picks when omitted. */
  concurrency?: number;
  /** webjobs extension (docs/api.md#requests): milliseconds between two requests to one host (one at a time then). */
  delay?: number;
  /** webjobs extension (docs/api.md#requests): a page the server answered with 4xx or 5xx is a failed entry (the CLI's --fail). */
  failOnHttpError?: boolean;
  /** Deliveries of the job's events (api/webhook.ts, jobs/webhooks/). */
  webhook?: Webhook;
}

export interface CrawlRequest {
  url: string;
  maxPages?: number;
  /**
   * Links followed from the start page at most (Firecrawl's maxDiscoveryDepth): 0 the start page (and the sitemap's
   * pages, which no link led to), 1 also the pages it links to, and so on. None: no limit.
   */
  maxDepth?: number;
  followLinks?: boolean;
  ignoreSitemap?: boolean;
  includePatterns?: string[];
  excludePatterns?: string[];
  scrapeOptions?: ScrapeOptions;
  sessionOptions?: SessionOptions;
  /** webjobs extension (docs/api.md#requests): milliseconds between two requests to one host; a longer robots.txt Crawl-delay wins. */
  delay?: number;
  /** webjobs extension (docs/api.md#requests): a page the server answered with 4xx or 5xx is a failed entry (the CLI's --fail). */
  failOnHttpError?: boolean;
  /** Deliveries of the job's events (api/webhook.ts, jobs/webhooks/). */
  webhook?: Webhook;
}

/** The model servers extract can use: Claude's Messages API, or any OpenAI-compatible Chat Completions API. */
export const MODEL_PROVIDERS = ['anthropic', 'openai'] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

export interface ExtractRequest {
  urls: string[];
  prompt?: string;
  schema?: Record<string, unknown>;
  /**
   * webjobs extension: Crawl4AI's JSON CSS schema (api/cssSchema.ts). The result is
   * the array of items it reads from each page's repeated elements, with no model;
   * not with a prompt or a schema.
   */
  selectors?: CssSchema;
  systemPrompt?: string;
  /** webjobs extension: "anthropic" or "openai" (any OpenAI-compatible server); default: the server's. */
  provider?: ModelProviderName;
  model?: string;
  sessionOptions?: SessionOptions;
  /** Deliveries of the job's events (api/webhook.ts, jobs/webhooks/). */
  webhook?: Webhook;
}

export interface JobRequestByKind {
  scrape: ScrapeRequest;
  batch: BatchScrapeRequest;
  crawl: CrawlRequest;
  extract: ExtractRequest;
}
export type JobRequest = JobRequestByKind[JobKind];

/**
 * All metadata values are strings (docs/api.md#records), but one: `truncated` is true (a boolean) on a page
 * whose Markdown maxTokens cut (set by jobs/agentSizing.ts, read with `isTruncated`).
 */
export type PageMetadata = Record<string, string>;

/** What a scrape of one page yields (data of a scrape job). */
export interface PageData {
  metadata: PageMetadata;
  markdown?: string;
  html?: string;
  links?: string[];
  /** The document as the server sent it, before any script ran or cleaning. */
  rawHtml?: string;
  /**
   * The screenshot's file: its path on this machine (local jobs), or its URL on
   * the service (`serve` answers GET /api/files/{jobId}/{name}).
   */
  screenshot?: string;
  /**
   * webjobs extension: the page's schema.org data, one JSON-LD item each: its
   * JSON-LD blocks as written (`@graph` kept), then its microdata and RDFa
   * converted to JSON-LD. An empty list when the page has none.
   */
  structuredData?: Record<string, unknown>[];
  /** The changeTracking format: what changed since the last run (ChangeTracking). */
  changeTracking?: ChangeTracking;
  /**
   * The json format: the data jsonOptions asks for, valid against its schema. Filled
   * without a model, the fields not found are named in metadata.warning.
   */
  json?: unknown;
  /** What the page's actions gave (screenshots and PDFs as files, scrapes, script values). */
  actions?: ActionsResult;
  /** The chunks format: the Markdown in chunks of at most scrapeOptions.chunkTokens tokens. */
  chunks?: Chunk[];
}

/** Whether maxTokens cut the page's Markdown (metadata.truncated is true). */
export function isTruncated(data: Pick<PageData, 'metadata'>): boolean {
  return String(data.metadata?.truncated) === 'true';
}

/** `pending` only appears in the result of a batch that is still running, for URLs not yet done. */
export type PageStatus = 'completed' | 'failed' | 'pending';

/** One entry of a batch scrape or crawl result. */
export interface PageEntry extends PageData {
  url: string;
  status: PageStatus;
  error: string | null;
}

export interface ScrapeJob {
  jobId: string;
  status: JobStatus;
  data?: PageData;
  error?: string;
}

export interface PagedJobFields {
  totalPageBatches: number;
  currentPageBatch: number;
  batchSize: number;
  /**
   * webjobs extension: `serve` bounds an answer by bytes as well as by entries; when
   * that bound cut this result batch short, `data` holds its first entries and `next`
   * is the path and query (from /api on) of the rest of the batch.
   */
  next?: string;
}

/** A batch or crawl record without its entries: what precedes them in an answer. */
export type PagedRecordHead = Omit<JobRecordByKind['batch'], 'data'> | Omit<JobRecordByKind['crawl'], 'data'>;

export interface BatchScrapeJob extends PagedJobFields {
  jobId: string;
  status: JobStatus;
  totalScrapedPages: number;
  data: PageEntry[];
  error?: string;
  /** Webhook deliveries dropped after their last retry (absent when none). */
  webhookFailures?: number;
  /** `page` deliveries dropped unsent because the job's webhook queue was full (absent when none). */
  webhookDropped?: number;
}

export interface CrawlJob extends PagedJobFields {
  jobId: string;
  status: JobStatus;
  totalCrawledPages: number;
  /** webjobs extension: maxPages stopped the crawl while this many more URLs were found and not crawled (absent otherwise). */
  urlsNotCrawled?: number;
  data: PageEntry[];
  error?: string;
  /** Webhook deliveries dropped after their last retry (absent when none). */
  webhookFailures?: number;
  /** `page` deliveries dropped unsent because the job's webhook queue was full (absent when none). */
  webhookDropped?: number;
}

export interface ExtractJob {
  jobId: string;
  status: JobStatus;
  data?: Record<string, unknown> | unknown;
  /** The schema the job extracted with: the user's, or the one generated from the prompt. */
  schema?: Record<string, unknown>;
  metadata?: { inputTokens: number; outputTokens: number; numPagesScraped: number };
  /**
   * webjobs extension: a schema filled from the pages' structured data without a
   * model (no model configured) says here that fields were not found, and lists
   * them in `missing` (paths such as "offers.price"); such a job fails when the
   * data found does not satisfy the schema.
   */
  warning?: string;
  missing?: string[];
  error?: string;
  /** Webhook deliveries dropped after their last retry (absent when none). */
  webhookFailures?: number;
  /** `page` deliveries dropped unsent because the job's webhook queue was full (absent when none). */
  webhookDropped?: number;
}

export interface JobRecordByKind {
  scrape: ScrapeJob;
  batch: BatchScrapeJob;
  crawl: CrawlJob;
  extract: ExtractJob;
}
export type JobRecord = JobRecordByKind[JobKind];

export interface JobHandle {
  jobId: string;
}

export interface JobStatusObject {
  status: JobStatus;
}

/** One row of `webjobs jobs`. A job whose stored record is damaged is listed with status "unknown" and the reason in `error`. */
export interface JobSummary {
  jobId: string;
  kind: JobKind | 'unknown';
  status: JobStatus | 'unknown';
  createdAt: string;
  url: string;
  error?: string;
}

/** Which result batch of a batch/crawl job to read; 1-based like the real service. */
export interface PageQuery {
  page?: number;
  batchSize?: number;
}

/**
 * webjobs extension (docs/api.md#requests): `POST /api/map` and `webjobs map`. The URLs
 * of a site from its sitemaps and links, without rendering a page; synchronous.
 */
export interface MapRequest {
  url: string;
  /** Keep URLs whose address or link text contains this (case-insensitive). */
  search?: string;
  /** Most URLs returned. */
  limit?: number;
  /** Link levels read from the start page: 0 sitemaps only, 1 the start page's links, 2 also theirs. */
  depth?: number;
  ignoreSitemap?: boolean;
  includePatterns?: string[];
  excludePatterns?: string[];
}

export interface MapLink {
  url: string;
  /** Known for the pages map read (the start page, pages of a deeper --depth). */
  title?: string;
  description?: string;
}

export interface MapResult {
  links: MapLink[];
}
