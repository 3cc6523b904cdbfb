/**
 * Map: the URLs of a site, fast, without rendering a page. The start page (and,
 * with depth > 1, the pages it links to) is fetched over plain HTTP and its links
 * parsed with linkedom; the sitemaps (robots.txt Sitemap: lines and /sitemap.xml,
 * indexes and gzip included) are read as a crawl reads them. URLs are kept as a
 * crawl would visit them: normalised and de-duplicated (normalize.ts), in the
 * start URL's host and the include/exclude patterns (scope.ts), allowed by
 * robots.txt, and only links to pages (not images or archives).
 */
import { parseHTML } from 'linkedom';
import { JobFailedError, PageError, UsageError } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { MapLink, MapRequest, MapResult } from '../../api/types.js';
import { FETCH_TIMEOUT_MS, fetchText, type PlainFetch } from './fetchText.js';
import { HostGate } from './hostGate.js';
import { cleanUrl, looksLikePage, normalizeUrl } from '../../api/normalizeUrl.js';
import { RobotsCache } from './robots.js';
import { CrawlScope } from './scope.js';
import { sitemapLimits, sitemapUrls } from './sitemap.js';

/** Bytes of one HTML page read; links past 5 MiB are not worth the wait. */
const MAX_PAGE_BYTES = 5 * 1024 * 1024;
/** Pages read for links beyond the start page (depth 2 and 3): a map is a quick look, not a crawl. */
const MAX_PAGES_READ = 200;
/** Link text kept per URL, for --search. */
const MAX_TEXT_LENGTH = 200;

interface PageLink {
  href: string;
  text: string;
}

interface ReadPage {
  /** Where the page landed, after redirects. */
  url: string;
  title?: string;
  description?: string;
  links: PageLink[];
}

/** Title, description and links of an HTML document; hrefs resolved against its <base> or its URL. */
export function readHtml(html: string, url: string): Omit<ReadPage, 'url'> {
  const { document } = parseHTML(html);
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  const base = (baseHref && cleanUrl(baseHref, url)) || url;
  const links: PageLink[] = [];
  for (const anchor of document.querySelectorAll('a[href]')) {
    const href = cleanUrl(anchor.getAttribute('href') ?? '', base);
    if (href) links.push({ href, text: (anchor.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_TEXT_LENGTH) });
  }
  const meta = (selector: string) => document.querySelector(selector)?.getAttribute('content')?.trim() || undefined;
  const title = (document.querySelector('title')?.textContent ?? '').replace(/\s+/g, ' ').trim() || meta('meta[property="og:title"]');
  const description = meta('meta[name="description"]') ?? meta('meta[property="og:description"]');
  return { links, ...(title ? { title } : {}), ...(description ? { description } : {}) };
}

interface Found {
  link: MapLink;
  matched: boolean;
}

class SiteMap {
  private readonly scope: CrawlScope;
  private readonly robots: RobotsCache;
  private readonly gate: HostGate;
  /** Every URL met, by its normalised key, in the order met; undefined: out of scope or disallowed. */
  private readonly found = new Map<string, Found | undefined>();
  private matched = 0;
  private readonly search: string | undefined;
  private readonly limit: number;

  constructor(
    private readonly request: MapRequest,
    private readonly fetcher: PlainFetch,
    private readonly signal?: AbortSignal,
  ) {
    this.scope = new CrawlScope(request.url, request.includePatterns, request.excludePatterns);
    this.robots = new RobotsCache(fetcher, FETCH_TIMEOUT_MS, signal);
    this.gate = new HostGate(LIMITS.perHostConcurrency, signal);
    this.search = request.search?.toLowerCase();
    this.limit = request.limit ?? LIMITS.defaultMapLimit;
  }

  private get full(): boolean {
    return this.matched >= this.limit;
  }

  private matches(text: string): boolean {
    return this.search === undefined || text.toLowerCase().includes(this.search);
  }

  /** Records `url` (with the text of a link to it) once; returns its entry when it is in the map. */
  private async add(url: string, text = ''): Promise<Found | undefined> {
    const key = normalizeUrl(url);
    if (!key) return undefined;
    let entry = this.found.get(key);
    if (!this.found.has(key)) {
      const allowed = looksLikePage(url) && (await this.scope.allows(url)) && (await this.robots.isAllowed(url));
      entry = allowed ? { link: { url }, matched: false } : undefined;
      this.found.set(key, entry);
    }
    if (entry && !entry.matched && (this.matches(decodeSafely(url)) || (text !== '' && this.matches(text)))) {
      entry.matched = true;
      this.matched++;
    }
    return entry;
  }

  /** The page at `url`; the start page (`start`) that the engine refused (a redirect to a refused address) fails the map, saying why, as a scrape does: the start URL is the request's (400). */
  private async read(url: string, start = false): Promise<ReadPage | undefined> {
    const delayMs = (await this.robots.for(url)).delayMs;
    const fetched = await this.gate.run(url, delayMs, () => fetchText(this.fetcher, url, { timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_PAGE_BYTES, signal: this.signal }));
    if (start && fetched.refused !== undefined) throw new UsageError(`could not map ${url}: ${fetched.refused}`);
    if (fetched.status < 200 || fetched.status >= 300) return undefined;
    return { url: fetched.url, ...readHtml(fetched.text, fetched.url) };
  }

  /** Adds a page read and its links; returns the URLs of links not met before. */
  private async addPage(page: ReadPage): Promise<string[]> {
    const self = await this.add(page.url, page.title ?? '');
    if (self) Object.assign(self.link, page.title ? { title: page.title } : {}, page.description ? { description: page.description } : {});
    const fresh: string[] = [];
    for (const { href, text } of page.links) {
      const known = this.found.has(normalizeUrl(href) ?? '');
      const entry = await this.add(href, text);
      if (entry && !known) fresh.push(entry.link.url);
      if (this.signal?.aborted) break;
    }
    return fresh;
  }

  private async walkLinks(depth: number): Promise<void> {
    if (depth < 1) return;
    const start = await this.read(this.request.url, true);
    if (!start) return;
    // Where the start URL redirects (example.com to www.example.com) is the site too.
    this.scope.addHost(start.url);
    let level = await this.addPage(start);
    let budget = MAX_PAGES_READ;
    for (let d = 2; d <= depth && level.length > 0 && budget > 0 && !this.signal?.aborted; d++) {
      const batch = level.slice(0, budget);
      budget -= batch.length;
      const pages = await Promise.all(batch.map((url) => this.read(url)));
      level = [];
      for (const page of pages) if (page) level.push(...(await this.addPage(page)));
    }
  }

  private async readSitemaps(sitemaps: string[]): Promise<void> {
    const limits = sitemapLimits(LIMITS.maxMapLimit);
    const fetcher: PlainFetch = async (url, init) => this.gate.run(url, (await this.robots.for(url)).delayMs, () => this.fetcher(url, init));
    for await (const chunk of sitemapUrls(fetcher, sitemaps, limits, this.signal)) {
      for (const url of chunk) await this.add(url);
      // Leaving the loop ends the generator: no further sitemap file is fetched.
      if (this.full) break;
    }
  }

  async run(): Promise<MapResult> {
    const robots = await this.robots.for(this.request.url);
    if (robots.unavailable) throw new JobFailedError(robots.unavailable);
    await this.walkLinks(this.request.depth ?? LIMITS.defaultMapDepth);
    if (!this.request.ignoreSitemap && !this.full) {
      await this.readSitemaps([...robots.sitemaps, new URL('/sitemap.xml', this.request.url).href]);
    }
    if (this.signal?.aborted) throw this.signal.reason instanceof Error ? this.signal.reason : new PageError('the map was stopped');
    const links: MapLink[] = [];
    for (const entry of this.found.values()) {
      if (entry?.matched) links.push(entry.link);
      if (links.length >= this.limit) break;
    }
    return { links };
  }
}

function decodeSafely(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

/** The map of the site at `request.url` (a validated request), read through `fetcher` (the engine's guarded plain fetch). */
export function mapSite(request: MapRequest, fetcher: PlainFetch, signal?: AbortSignal): Promise<MapResult> {
  return new SiteMap(request, fetcher, signal).run();
}
