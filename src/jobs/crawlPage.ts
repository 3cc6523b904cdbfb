/**
 * One page of a crawl, the step a PostgreSQL worker runs: the visit of the
 * in-process crawl (crawlVisit.ts), then the page's new links (scope, patterns,
 * robots.txt: crawlRules.ts) and, on the start page, the sitemaps' URLs; the links
 * it returns are recorded and queued by the store, which enforces maxPages and
 * de-duplication in SQL: of URLs by their normalised key, and of pages by where
 * they landed (`landed`), as the in-process crawl does in memory.
 */
import { LIMITS } from '../api/limits.js';
import type { CrawlRequest, Format, PageEntry } from '../api/types.js';
import { normalizeUrl } from '../api/normalizeUrl.js';
import { tracksChanges } from './changeTracking.js';
import { crawlFormats, crawlSitemapUrls, followsLink, type CrawlRules } from './crawlRules.js';
import { visitPage, type CrawlVisitor } from './crawlVisit.js';

/** A candidate page: its absolute URL, its normalised key, its depth (links from the start page) and, from a sitemap, its <lastmod> (ms). */
export interface FoundLink {
  url: string;
  key: string;
  depth: number;
  lastmod?: number;
}

export interface CrawledPage {
  entry: PageEntry;
  /** New candidate pages, in page order. */
  links: FoundLink[];
  /** The normalised URL the page landed on (the requested one when its scrape failed); none when robots.txt refused it. */
  landed?: string;
}

/** The page `url` of a crawl (`isStart`: its start page), `depth` links from the start page, with the <lastmod> its sitemap gave it. */
export async function crawlPage(
  visitor: Omit<CrawlVisitor, 'landed' | 'failed'>,
  url: string,
  isStart: boolean,
  { depth = 0, lastmod }: { depth?: number; lastmod?: number } = {},
): Promise<CrawledPage> {
  const { request, rules, signal } = visitor;
  const found = new FoundLinks(rules, crawlFormats(request), [url]);
  // The start page's worker reads the sitemaps, after the page's links (as the in-process crawl orders them),
  // whatever became of the page itself, unless the site's robots.txt could not be read.
  const done = async (entry: PageEntry, landed: string | undefined): Promise<CrawledPage> => {
    if (isStart && !request.ignoreSitemap) await readSitemaps(request, rules, found, signal);
    return { entry, links: found.list(), landed };
  };
  // The gate's failure (a database lost while waiting for the host) is thrown: the page is handed back, not failed.
  const visit = await visitPage(visitor, url, isStart, lastmod);
  const entry = visit.entry!;
  if (visit.refused) {
    // A robots.txt that cannot be read closes the whole site, its sitemaps too.
    return (await rules.robots.for(url)).unavailable ? { entry, links: [] } : done(entry, undefined);
  }
  const landed = normalizeUrl(entry.url) ?? entry.url;
  // A page that failed has no links; one that --fail failed for its HTTP status (decidedEntry) still leads on.
  if (entry.status !== 'completed' && visit.links.length === 0) return done(entry, landed);
  found.skip(entry.url);
  // followLinks: false crawls the start page and the sitemaps' URLs only; maxDepth stops at its depth.
  const follows = request.followLinks !== false && (request.maxDepth === undefined || depth < request.maxDepth);
  if (follows) for (const link of visit.links) await found.add(link, depth + 1);
  return done(entry, landed);
}

/** The candidate pages one page yields, each once, in the order found: those the crawl's scope and robots.txt allow. */
class FoundLinks {
  private readonly accepted = new Map<string, { url: string; depth: number }>();
  private readonly seen = new Set<string>();
  /** Sitemap <lastmod>s by key (read with change tracking only, as the in-process crawl does). */
  readonly lastmods = new Map<string, number>();

  constructor(
    private readonly rules: CrawlRules,
    private readonly formats: readonly Format[],
    skipped: string[],
  ) {
    for (const url of skipped) this.skip(url);
  }

  /** The page itself (where it was asked for, where it landed) is no candidate. */
  skip(url: string): void {
    const key = normalizeUrl(url);
    if (key) this.seen.add(key);
  }

  async add(link: string, depth: number): Promise<void> {
    const key = normalizeUrl(link);
    if (!key || this.seen.has(key)) return;
    this.seen.add(key);
    if (await followsLink(this.rules, this.formats, link)) this.accepted.set(key, { url: link, depth });
  }

  get size(): number {
    return this.accepted.size;
  }

  list(): FoundLink[] {
    return [...this.accepted].map(([key, { url, depth }]) => {
      const lastmod = this.lastmods.get(key);
      return lastmod === undefined ? { url, key, depth } : { url, key, depth, lastmod };
    });
  }
}

/** The sitemaps' URLs (robots.txt Sitemap: lines and /sitemap.xml), read until with the links found they fill maxPages. */
async function readSitemaps(request: CrawlRequest, rules: CrawlRules, found: FoundLinks, signal: AbortSignal): Promise<void> {
  const maxPages = request.maxPages ?? LIMITS.defaultCrawlPages;
  const { sitemaps } = await rules.robots.for(request.url);
  const onLastmod = tracksChanges(request.scrapeOptions)
    ? (url: string, lastmod: number) => {
        const key = normalizeUrl(url);
        if (key) found.lastmods.set(key, lastmod);
      }
    : undefined;
  for await (const chunk of crawlSitemapUrls(rules, request, sitemaps, signal, onLastmod)) {
    for (const link of chunk) await found.add(link, 0);
    // The start page is one of maxPages; leaving the loop ends the reading: no further file is fetched.
    if (found.size >= maxPages - 1) break;
  }
}
