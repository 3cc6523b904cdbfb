/**
 * One page of a crawl, the step a PostgreSQL worker runs: the rules of the
 * in-process crawl (crawlRules.ts: robots.txt of each origin, scope and
 * patterns, pages only, the start page's links then the sitemaps' URLs), for a
 * single page; the links it returns are recorded and queued by the store, which
 * enforces maxPages and de-duplication in SQL.
 */
import { PageError } from '../api/errors.js';
import { LIMITS } from '../api/limits.js';
import type { CrawlRequest, Format, PageEntry } from '../api/types.js';
import type { SiteAccess } from '../engine/net/access.js';
import { normalizeUrl } from '../api/normalizeUrl.js';
import type { Engine } from '../engine/engine.js';
import {
  crawlFormats,
  crawlScrapeOptions,
  crawlSitemapUrls,
  followsLink,
  landedRefusal,
  MAX_LINKS_PER_PAGE,
  robotsRefusal,
  type CrawlRules,
} from './crawlRules.js';
import { decidedEntry, failedEntry, pageEntry } from './runners/pageEntry.js';

export interface CrawledPage {
  entry: PageEntry;
  /** New candidate pages: absolute URLs with their normalised keys, in page order. */
  links: { url: string; key: string }[];
}

export async function crawlPage(
  url: string,
  isStart: boolean,
  request: CrawlRequest,
  engine: Engine,
  rules: CrawlRules,
  signal: AbortSignal,
  access: SiteAccess | undefined,
): Promise<CrawledPage> {
  const formats = crawlFormats(request);
  const found = new FoundLinks(rules, formats, [url]);
  // The start page's worker reads the sitemaps, after the page's links (as the in-process crawl orders them),
  // whatever became of the page itself, unless the site's robots.txt could not be read.
  const done = async (entry: PageEntry): Promise<CrawledPage> => {
    if (isStart && !request.ignoreSitemap) await readSitemaps(request, rules, found, signal);
    return { entry, links: found.list() };
  };
  const refusal = await robotsRefusal(rules, url);
  if (refusal) {
    const entry = failedEntry(url, new PageError(refusal), formats);
    // A robots.txt that cannot be read closes the whole site, its sitemaps too.
    return (await rules.robots.for(url)).unavailable ? { entry, links: [] } : done(entry);
  }
  let links: string[] = [];
  const options = crawlScrapeOptions(request);
  // The gate outside the page's entry: a database lost while waiting for the host hands the page back, not fails it.
  const entry = await rules.politely(url, () =>
    pageEntry(url, formats, async () => {
      const data = await engine.scrape(url, options, request.sessionOptions, signal, access);
      links = (data.links ?? []).slice(0, MAX_LINKS_PER_PAGE);
      if (!formats.includes('links')) delete data.links;
      return data;
    }),
  );
  if (entry.status !== 'completed') return done(entry);
  const finalUrl = entry.metadata.url || url;
  const landed = await landedRefusal(rules, finalUrl, url);
  if (landed) return done(failedEntry(finalUrl, new PageError(landed), formats));
  if (isStart) rules.scope.addHost(finalUrl);
  entry.url = finalUrl;
  found.skip(finalUrl);
  // followLinks: false crawls the start page and the sitemaps' URLs only.
  if (request.followLinks !== false) for (const link of links) await found.add(link);
  return done(decidedEntry(entry, request));
}

/** The candidate pages one page yields, each once, in the order found: those the crawl's scope and robots.txt allow. */
class FoundLinks {
  private readonly accepted = new Map<string, string>();
  private readonly seen = new Set<string>();

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

  async add(link: string): Promise<void> {
    const key = normalizeUrl(link);
    if (!key || this.seen.has(key)) return;
    this.seen.add(key);
    if (await followsLink(this.rules, this.formats, link)) this.accepted.set(key, link);
  }

  get size(): number {
    return this.accepted.size;
  }

  list(): { url: string; key: string }[] {
    return [...this.accepted].map(([key, url]) => ({ url, key }));
  }
}

/** The sitemaps' URLs (robots.txt Sitemap: lines and /sitemap.xml), read until with the links found they fill maxPages. */
async function readSitemaps(request: CrawlRequest, rules: CrawlRules, found: FoundLinks, signal: AbortSignal): Promise<void> {
  const maxPages = request.maxPages ?? LIMITS.defaultCrawlPages;
  const { sitemaps } = await rules.robots.for(request.url);
  for await (const chunk of crawlSitemapUrls(rules, request, sitemaps, signal)) {
    for (const link of chunk) await found.add(link);
    // The start page is one of maxPages; leaving the loop ends the reading: no further file is fetched.
    if (found.size >= maxPages - 1) break;
  }
}
