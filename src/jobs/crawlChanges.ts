/**
 * Change tracking across a whole crawl (issue 41), what a page's own history
 * (changeTracking.ts) cannot say: which pages of the previous crawl this one did
 * not reach. The in-process crawl (runners/crawl.ts) calls it at three points:
 *
 * - sitemap lastmods as they are read (`noteLastmod`), handed to each page's
 *   scrape (`lastmodOf`) for the job's cache to decide on revalidation
 *   (revalidation.ts);
 * - each entry as it is stored (`reached`);
 * - the end (`finish`), whose entries are appended to the crawl's.
 *
 * The previous crawl is the last one of the same start URL, crawl options, output
 * options and change-tracking tag in the same store (and tenant): its page set is
 * kept in the page cache under its own key, as a page's history is, and replaced
 * at the end of each crawl that completes.
 *
 * A page of that set this crawl did not reach is `removed` (an entry of its own,
 * `visibility: hidden`, no content), and so is one it reached that answered 404 or
 * 410 (its entry says so). Only a crawl that ran out of pages to visit can tell: when
 * maxPages cut it with URLs left, the pages not reached are carried over to the next
 * crawl's comparison, not called removed. A page that failed, or answered another
 * HTTP error, is carried over as well: a passing outage removes nothing.
 */
import { normalizeUrl } from '../api/normalizeUrl.js';
import type { CrawlRequest, PageData, PageEntry } from '../api/types.js';
import { historyOf, tracksChanges } from './changeTracking.js';
import type { CachedScrape, PageCache } from './contracts.js';

/** The job's page cache and whose entries it reads (serve: the API key's; none: shared). */
export interface JobCache {
  cache: PageCache;
  tenant?: string;
}

const GONE = new Set([404, 410]);

const keyOf = (url: string): string => normalizeUrl(url) ?? url;

/** keyOf, remembered for the URLs of one crawl: each entry asks for its URLs' keys several times. */
function keysOf(): (url: string) => string {
  const keys = new Map<string, string>();
  return (url) => {
    let key = keys.get(url);
    if (key === undefined) keys.set(url, (key = keyOf(url)));
    return key;
  };
}

export class CrawlChanges {
  private readonly lastmods = new Map<string, number>();
  /** This crawl's page set so far, by normalised URL. */
  private readonly pages = new Map<string, string>();
  /** Keys of every entry this crawl stored (a failed page too). */
  private readonly reachedKeys = new Set<string>();
  private readonly keyOf = keysOf();

  private constructor(
    private readonly request: CrawlRequest,
    private readonly jobCache: JobCache | undefined,
    /** The previous crawl's page set, by normalised URL. */
    private readonly previous: Map<string, string>,
  ) {}

  /** For a crawl with the changeTracking format; undefined otherwise (nothing to do). */
  static async open(request: CrawlRequest, jobCache: JobCache | undefined): Promise<CrawlChanges | undefined> {
    if (!tracksChanges(request.scrapeOptions)) return undefined;
    const stored = jobCache ? await jobCache.cache.last(pageSetKey(request, jobCache.tenant)) : undefined;
    const previous = new Map((stored?.data.links ?? []).map((url) => [keyOf(url), url]));
    return new CrawlChanges(request, jobCache, previous);
  }

  noteLastmod(url: string, lastmod: number): void {
    this.lastmods.set(this.keyOf(url), lastmod);
  }

  /** The page's sitemap lastmod, when a sitemap gave one. */
  lastmodOf(url: string): number | undefined {
    return this.lastmods.get(this.keyOf(url));
  }

  /** Notes the entry before it is stored; a page of the previous crawl now answering 404 or 410 is marked removed. */
  async reached(entry: PageEntry): Promise<void> {
    const key = this.previousKey(entry);
    const status = Number(entry.metadata?.statusCode);
    if (!entry.changeTracking && key !== undefined && entry.status === 'completed' && GONE.has(status)) {
      entry.changeTracking = { previousScrapeAt: await this.previousScrapeAt(this.previous.get(key)!), changeStatus: 'removed', visibility: 'visible' };
    }
    this.noteStored(entry);
  }

  /**
   * Notes an entry stored already, as it was stored (`reached` calls it; a resumed crawl calls it
   * for each entry of the run it continues, so that those pages do not count as not reached).
   */
  noteStored(entry: PageEntry): void {
    const keys = [this.keyOf(entry.url), this.keyOf(entry.metadata?.sourceURL ?? entry.url)];
    for (const key of keys) this.reachedKeys.add(key);
    const status = entry.changeTracking?.changeStatus;
    if (status === 'removed') return;
    if (status !== undefined) {
      this.pages.set(keys[0]!, entry.url);
      return;
    }
    // Failed, or another HTTP error: a page of the previous set keeps its place.
    const key = this.previousKey(entry);
    if (key !== undefined) this.pages.set(key, this.previous.get(key)!);
  }

  private previousKey(entry: PageEntry): string | undefined {
    return [this.keyOf(entry.url), this.keyOf(entry.metadata?.sourceURL ?? entry.url)].find((key) => this.previous.has(key));
  }

  /**
   * The entries of the pages removed since the previous crawl, and this crawl's page
   * set stored for the next one. `complete`: the crawl ran out of pages to visit.
   */
  async finish(complete: boolean): Promise<PageEntry[]> {
    const removed: PageEntry[] = [];
    for (const [key, url] of this.previous) {
      if (this.reachedKeys.has(key)) continue;
      if (!complete) {
        this.pages.set(key, url);
        continue;
      }
      removed.push({
        url,
        status: 'completed',
        error: null,
        metadata: { url, sourceURL: url },
        changeTracking: { previousScrapeAt: await this.previousScrapeAt(url), changeStatus: 'removed', visibility: 'hidden' },
      });
    }
    if (this.jobCache) {
      const set: PageData = { metadata: { url: this.request.url }, links: [...this.pages.values()] };
      await this.jobCache.cache.put(pageSetKey(this.request, this.jobCache.tenant), set);
    }
    return removed;
  }

  /** When the page's last result was stored (its history's), as changeTracking says it. */
  private async previousScrapeAt(url: string): Promise<string | null> {
    if (!this.jobCache) return null;
    const { scrapeOptions, sessionOptions } = this.request;
    const last = await this.jobCache.cache.last(historyOf({ url, scrapeOptions, sessionOptions, tenant: this.jobCache.tenant }));
    return last ? new Date(last.storedAt).toISOString() : null;
  }
}

/**
 * The key of a crawl's page set: the start URL, the history's key of the output
 * options and tag, and what decides which pages the crawl visits (not its pace).
 * Stored as a page whose `links` are the set's URLs.
 */
function pageSetKey(request: CrawlRequest, tenant: string | undefined): CachedScrape {
  const { url, scrapeOptions, sessionOptions, maxPages, maxDepth, followLinks, ignoreSitemap, includePatterns, excludePatterns } = request;
  const history = historyOf({ url, scrapeOptions, sessionOptions, tenant });
  const crawl = {
    maxPages: maxPages ?? null,
    followLinks: followLinks ?? true,
    ignoreSitemap: ignoreSitemap ?? false,
    includePatterns: includePatterns ?? [],
    excludePatterns: excludePatterns ?? [],
    // Named only when set: the key of a crawl without it stays what it was.
    ...(maxDepth !== undefined ? { maxDepth } : {}),
  };
  return { ...history, history: `crawl ${JSON.stringify({ tag: history.history, crawl })}` };
}
