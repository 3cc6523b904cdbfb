/**
 * One page of a crawl run by a PostgreSQL worker: the same rules as the
 * in-process crawl (robots.txt of each origin, scope and patterns, pages only,
 * the start page's links then the sitemaps' URLs), but for a single page; the
 * links it returns are recorded and queued by the store, which enforces
 * maxPages and de-duplication in SQL.
 */
import { PageError } from '../api/errors.js';
import { LIMITS } from '../api/limits.js';
import type { CrawlRequest, Format, PageEntry } from '../api/types.js';
import type { SiteAccess } from '../engine/access.js';
import type { PlainFetch } from '../engine/crawl/fetchText.js';
import { crawlPolitely, type PoliteGate, type PoliteRequest } from '../engine/crawl/hostGate.js';
import { looksLikePage, normalizeUrl } from '../api/normalizeUrl.js';
import { RobotsCache } from '../engine/crawl/robots.js';
import { CrawlScope } from '../engine/crawl/scope.js';
import { sitemapUrls } from '../engine/crawl/sitemap.js';
import type { Engine } from '../engine/engine.js';
import { failedEntry, pageEntry } from '../local/runners/pageEntry.js';

const FETCH_TIMEOUT_MS = 10_000;
/** Links taken from one page, as in the in-process crawl. */
const MAX_LINKS_PER_PAGE = 1_000;
/** As the in-process crawl: 50 sitemap files of at most 10 MiB each. */
const MAX_SITEMAP_FILES = 50;
const MAX_SITEMAP_BYTES = 10 * 1024 * 1024;

/** What a worker keeps of one crawl between its pages: the scope and the robots.txt read so far. */
export interface CrawlRules {
  scope: CrawlScope;
  robots: RobotsCache;
  /** Runs a request to `url` within its host's limits: the job's delay or the origin's Crawl-delay, whichever is longer. */
  politely: PoliteRequest;
  /** Reads a sitemap file, politely. */
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

async function robotsRefusal(rules: CrawlRules, url: string): Promise<string | undefined> {
  const robots = await rules.robots.for(url);
  if (robots.unavailable) return robots.unavailable;
  return robots.isAllowed(url) ? undefined : `robots.txt of ${new URL(url).host} disallows ${url}`;
}

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
  const formats: Format[] = request.scrapeOptions?.formats ?? ['markdown'];
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
  const options = { ...request.scrapeOptions, formats: [...new Set<Format>([...formats, 'links'])] };
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
  const landedRefusal = await robotsRefusal(rules, finalUrl);
  if (landedRefusal) return done(failedEntry(finalUrl, new PageError(`${landedRefusal} (redirected from ${url})`), formats));
  if (isStart) rules.scope.addHost(finalUrl);
  entry.url = finalUrl;
  found.skip(finalUrl);
  // followLinks: false crawls the start page and the sitemaps' URLs only.
  if (request.followLinks !== false) for (const link of links) await found.add(link);
  return done(entry);
}

/** The candidate pages one page yields, each once, in the order found: those the crawl's scope and robots.txt allow. */
class FoundLinks {
  private readonly accepted = new Map<string, string>();
  private readonly seen = new Set<string>();
  /** As the in-process crawl: PDF documents give Markdown and HTML, so a crawl asking for either follows links to them. */
  private readonly pdf: boolean;

  constructor(
    private readonly rules: CrawlRules,
    formats: readonly Format[],
    skipped: string[],
  ) {
    this.pdf = formats.includes('markdown') || formats.includes('html');
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
    if (looksLikePage(link, { pdf: this.pdf }) && (await this.rules.scope.allows(link)) && (await this.rules.robots.isAllowed(link))) this.accepted.set(key, link);
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
  const limits = { maxUrls: LIMITS.maxLocalCrawlPages, maxFiles: MAX_SITEMAP_FILES, maxBytes: MAX_SITEMAP_BYTES, timeoutMs: FETCH_TIMEOUT_MS };
  for await (const chunk of sitemapUrls(rules.sitemapFetcher, [...sitemaps, new URL('/sitemap.xml', request.url).href], limits, signal)) {
    for (const link of chunk) await found.add(link);
    // The start page is one of maxPages; leaving the loop ends the reading: no further file is fetched.
    if (found.size >= maxPages - 1) break;
  }
}
