/**
 * One page of a crawl run by a PostgreSQL worker: the same rules as the
 * in-process crawl (robots.txt of each origin, scope and patterns, pages only),
 * but for a single page; the links it returns are recorded and queued by the
 * store, which enforces maxPages and de-duplication in SQL.
 */
import { PageError } from '../api/errors.js';
import type { CrawlRequest, Format, PageEntry } from '../api/types.js';
import type { SiteAccess } from '../engine/access.js';
import type { PlainFetch } from '../engine/crawl/fetchText.js';
import { looksLikePage, normalizeUrl } from '../engine/crawl/normalize.js';
import { RobotsCache } from '../engine/crawl/robots.js';
import { CrawlScope } from '../engine/crawl/scope.js';
import type { Engine } from '../engine/engine.js';
import { failedEntry, pageEntry } from '../local/runners/pageEntry.js';

const FETCH_TIMEOUT_MS = 10_000;
/** Links taken from one page, as in the in-process crawl. */
const MAX_LINKS_PER_PAGE = 1_000;

/** What a worker keeps of one crawl between its pages: the scope and the robots.txt read so far. */
export interface CrawlRules {
  scope: CrawlScope;
  robots: RobotsCache;
}

export function crawlRules(request: CrawlRequest, engine: Engine, access: SiteAccess | undefined, signal: AbortSignal): CrawlRules {
  const fetcher: PlainFetch = (url, init) => engine.fetch(url, { ...init, sessionOptions: request.sessionOptions, access });
  return { scope: new CrawlScope(request.url, request.includePatterns, request.excludePatterns), robots: new RobotsCache(fetcher, FETCH_TIMEOUT_MS, signal) };
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
  const refusal = await robotsRefusal(rules, url);
  if (refusal) return { entry: failedEntry(url, new PageError(refusal), formats), links: [] };
  let links: string[] = [];
  const options = { ...request.scrapeOptions, formats: [...new Set<Format>([...formats, 'links'])] };
  const entry = await pageEntry(url, formats, async () => {
    const data = await engine.scrape(url, options, request.sessionOptions, signal, access);
    links = (data.links ?? []).slice(0, MAX_LINKS_PER_PAGE);
    if (!formats.includes('links')) delete data.links;
    return data;
  });
  if (entry.status !== 'completed') return { entry, links: [] };
  const finalUrl = entry.metadata.url || url;
  const landedRefusal = await robotsRefusal(rules, finalUrl);
  if (landedRefusal) return { entry: failedEntry(finalUrl, new PageError(`${landedRefusal} (redirected from ${url})`), formats), links: [] };
  if (isStart) rules.scope.addHost(finalUrl);
  entry.url = finalUrl;
  if (request.followLinks === false) return { entry, links: [] };
  const accepted: { url: string; key: string }[] = [];
  for (const link of links) {
    const key = normalizeUrl(link);
    if (!key || !looksLikePage(link)) continue;
    if ((await rules.scope.allows(link)) && (await rules.robots.isAllowed(link))) accepted.push({ url: link, key });
  }
  return { entry, links: accepted };
}
