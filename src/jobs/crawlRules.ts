/**
 * The rules of a crawl, one for both ways it runs: in one process
 * (runners/crawl.ts) and page by page on PostgreSQL workers (crawlPage.ts). The
 * crawl's scope and patterns, the robots.txt of each origin, requests within
 * each host's limits, and the bounds on what a page or a sitemap may add.
 */
import { LIMITS } from '../api/limits.js';
import { looksLikePage } from '../api/normalizeUrl.js';
import type { CrawlRequest, Format, ScrapeOptions } from '../api/types.js';
import type { SiteAccess } from '../engine/net/access.js';
import { FETCH_TIMEOUT_MS, type PlainFetch } from '../engine/crawl/fetchText.js';
import { crawlPolitely, type PoliteGate, type PoliteRequest } from '../engine/crawl/hostGate.js';
import { RobotsCache } from '../engine/crawl/robots.js';
import { CrawlScope } from '../engine/crawl/scope.js';
import { sitemapLimits, sitemapUrls } from '../engine/crawl/sitemap.js';
import type { Engine } from '../engine/engine.js';

/** Links taken from one page: a page with 50,000 links must not flood the frontier. */
export const MAX_LINKS_PER_PAGE = 1_000;

/** What a crawl keeps between its pages: the scope and the robots.txt read so far. */
export interface CrawlRules {
  scope: CrawlScope;
  robots: RobotsCache;
  /** Runs a request to `url` within its host's limits: the job's delay or the origin's Crawl-delay, whichever is longer. */
  politely: PoliteRequest;
  /** Reads a sitemap file, politely: sitemap files are requests to the site too, and wait their turn with the pages. */
  sitemapFetcher: PlainFetch;
}

export function crawlRules(request: CrawlRequest, engine: Engine, access: SiteAccess | undefined, signal: AbortSignal, gate: PoliteGate): CrawlRules {
  const fetcher: PlainFetch = (url, init) => engine.fetch(url, { ...init, sessionOptions: request.sessionOptions, access });
  const robots = new RobotsCache(fetcher, FETCH_TIMEOUT_MS, signal);
  const politely = crawlPolitely(gate, robots, request.delay ?? 0);
  return {
    scope: new CrawlScope(request.url, request.includePatterns, request.excludePatterns),
    robots,
    politely,
    sitemapFetcher: (url, init) => politely(url, () => fetcher(url, init)),
  };
}

/** Why robots.txt keeps the crawl from `url`, or undefined when it may go there. */
export async function robotsRefusal(rules: CrawlRules, url: string): Promise<string | undefined> {
  const robots = await rules.robots.for(url);
  if (robots.unavailable) return robots.unavailable;
  return robots.isAllowed(url) ? undefined : `robots.txt of ${new URL(url).host} disallows ${url}`;
}

/** The formats a crawl's entries keep (the request's, else Markdown). */
export function crawlFormats(request: CrawlRequest): Format[] {
  return request.scrapeOptions?.formats ?? ['markdown'];
}

/** What a crawl scrapes each page with: the request's options, with the links the crawler needs (dropped again unless asked for). */
export function crawlScrapeOptions(request: CrawlRequest): ScrapeOptions {
  return { ...request.scrapeOptions, formats: [...new Set<Format>([...crawlFormats(request), 'links'])] };
}

/**
 * Whether the crawl follows a link to `url`: a page (PDF documents give Markdown and HTML, so a crawl asking for
 * either follows links to them), in the crawl's scope, allowed by its origin's robots.txt.
 */
export async function followsLink(rules: CrawlRules, formats: readonly Format[], url: string): Promise<boolean> {
  const pdf = formats.includes('markdown') || formats.includes('html');
  return looksLikePage(url, { pdf }) && (await rules.scope.allows(url)) && (await rules.robots.isAllowed(url));
}

/** Why robots.txt keeps the crawl from the page `url` redirected to (`landed`, maybe on another origin), or undefined. */
export async function landedRefusal(rules: CrawlRules, landed: string, url: string): Promise<string | undefined> {
  const refusal = await robotsRefusal(rules, landed);
  return refusal && `${refusal} (redirected from ${url})`;
}

/**
 * The URLs of a crawl's sitemaps, a chunk at a time: those robots.txt names (`listed`) and /sitemap.xml of the
 * start URL, read politely within the bounds on files and bytes, until `signal` or the caller stops.
 */
export function crawlSitemapUrls(
  rules: CrawlRules,
  request: CrawlRequest,
  listed: readonly string[],
  signal: AbortSignal,
  /** Told each page URL's <lastmod> (revalidation: sitemapUrls). */
  onLastmod?: (url: string, lastmod: number) => void,
): AsyncGenerator<string[]> {
  return sitemapUrls(rules.sitemapFetcher, [...listed, new URL('/sitemap.xml', request.url).href], sitemapLimits(LIMITS.maxLocalCrawlPages), signal, onLastmod);
}
