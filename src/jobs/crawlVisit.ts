/**
 * One visit of a crawl, written once for both ways a crawl runs: in one process on
 * the file store (runners/crawl.ts) and page by page on PostgreSQL workers
 * (crawlPage.ts). The sequence: robots.txt of the page's origin, the scrape within
 * its host's limits, the page's links cut to MAX_LINKS_PER_PAGE, robots.txt of the
 * origin it landed on, and the start page's host added to the crawl's scope.
 *
 * What differs between the stores stays with them: the frontier (a queue in
 * memory, rows in SQL), maxPages, and where a redirect to a page crawled already
 * is caught (`landed` below, in memory; PostgreSQL's finishPage, in SQL).
 */
import { PageError } from '../api/errors.js';
import type { CrawlRequest, Format, PageData, PageEntry } from '../api/types.js';
import type { Engine } from '../engine/engine.js';
import type { SiteAccess } from '../engine/net/access.js';
import { crawlFormats, crawlScrapeOptions, landedRefusal, MAX_LINKS_PER_PAGE, robotsRefusal, type CrawlRules } from './crawlRules.js';
import { completedEntry, decidedEntry, failedEntry, isJobFatal } from './runners/pageEntry.js';

/** What a visit needs of its crawl. */
export interface CrawlVisitor {
  request: CrawlRequest;
  rules: CrawlRules;
  engine: Engine;
  signal: AbortSignal;
  access: SiteAccess | undefined;
  /**
   * Claims the page a visit landed on (where a redirect took it): false when another visit claimed it first, and
   * this one is dropped (no entry). Unset: every visit keeps its entry, and the store de-duplicates them itself.
   */
  landed?(finalUrl: string): boolean;
  /** Told the URL of a page whose scrape failed. */
  failed?(url: string): void;
}

export interface CrawlVisit {
  /** The page's entry; null: it redirected to a page another visit claimed (CrawlVisitor.landed). */
  entry: PageEntry | null;
  /** Its links, at most MAX_LINKS_PER_PAGE, in page order (none for a page that failed or was refused). */
  links: string[];
  /** Whether robots.txt refused the page before it was requested. */
  refused?: boolean;
}

/**
 * Visits `url`; `sitemapLastmod` is its sitemap's <lastmod> when one gave it (revalidation.ts). A page's own
 * failure ends in its entry; a job-fatal one, and a failure of the host's gate (PoliteRequest), is thrown.
 */
export async function visitPage(visitor: CrawlVisitor, url: string, isStart: boolean, sitemapLastmod?: number): Promise<CrawlVisit> {
  const { request, rules } = visitor;
  const formats: Format[] = crawlFormats(request);
  const refusal = await robotsRefusal(rules, url);
  if (refusal) return { entry: failedEntry(url, new PageError(refusal), formats), links: [], refused: true };
  const options = { ...crawlScrapeOptions(request), sitemapLastmod };
  let data: PageData | undefined;
  let failure: unknown;
  // The gate outside the page's own failure: a gate that fails (a database lost while waiting for the host) is thrown.
  await rules.politely(url, async () => {
    try {
      data = await visitor.engine.scrape(url, options, request.sessionOptions, visitor.signal, visitor.access);
    } catch (err) {
      if (isJobFatal(err)) throw err;
      failure = err;
    }
  });
  if (data === undefined) {
    visitor.failed?.(url);
    return { entry: failedEntry(url, failure, request.scrapeOptions?.formats), links: [] };
  }
  const links = (data.links ?? []).slice(0, MAX_LINKS_PER_PAGE);
  if (!formats.includes('links')) delete data.links;
  const finalUrl = data.metadata.url || url;
  if (visitor.landed && !visitor.landed(finalUrl)) return { entry: null, links: [] };
  // A redirect to another origin (http to https, a www. host) lands under that origin's robots.txt.
  const landed = await landedRefusal(rules, finalUrl, url);
  if (landed) return { entry: failedEntry(finalUrl, new PageError(landed), formats), links: [] };
  if (isStart) rules.scope.addHost(finalUrl);
  // --fail (failOnHttpError): a page that answered an HTTP error is failed in the job, its links still followed.
  return { entry: decidedEntry(completedEntry(finalUrl, data), request), links };
}
