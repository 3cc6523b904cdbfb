/**
 * Crawl: breadth-first from the start URL within its host, obeying the
 * robots.txt of each origin and a delay per host, up to maxPages pages. Several
 * pages load at once, but entries are stored in the order pages left the
 * frontier, so the result reads breadth-first: the start page, the pages it
 * links to, then the sitemap's URLs (read while pages load, joining as they
 * come) and deeper pages.
 */
import { setImmediate } from 'node:timers/promises';
import { LimitError, PageError } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { CrawlRequest, Format, PageEntry } from '../../api/types.js';
import { defaultConcurrency } from '../../engine/browser/browser.js';
import { Frontier } from '../../engine/crawl/frontier.js';
import { HostGate } from '../../engine/crawl/hostGate.js';
import { normalizeUrl } from '../../api/normalizeUrl.js';
import { SitemapFeed } from '../../engine/crawl/sitemapFeed.js';
import {
  crawlFormats,
  crawlRules,
  crawlScrapeOptions,
  crawlSitemapUrls,
  followsLink,
  landedRefusal,
  MAX_LINKS_PER_PAGE,
  robotsRefusal,
  type CrawlRules,
} from '../crawlRules.js';
import { scrapePreflight } from '../jobEngine.js';
import { CrawlChanges } from '../crawlChanges.js';
import type { JobContext, JobRunner } from '../jobRunner.js';
import { abortPromise, completedEntry, decidedEntry, failedEntry, isJobFatal, throttled } from './pageEntry.js';
import { CrawlJournal, restoreCrawl } from './crawlState.js';

/**
 * Automaton steps the include/exclude patterns of one crawl may cost (a few
 * seconds of work): patterns built to meet ever new state sets on a site built
 * to feed them fail the crawl instead of taking the server's time for hours.
 * Ordinary patterns cost next to nothing, as their state sets are remembered.
 */
const MAX_MATCHING_COST = 200_000_000;

/**
 * Entries written at once, at most: the crawl goes on visiting while they are, where it waited for
 * each (a file written and renamed, several round trips to libuv's threads, was most of a re-crawl's time).
 */
const STORING_AT_ONCE = 16;

interface Visit {
  /** The URL requested (taken from the frontier). */
  url?: string;
  /** null: the page redirected to one already crawled, so it is not a new entry. */
  entry: PageEntry | null;
  links: string[];
}

class Crawl {
  private readonly maxPages: number;
  private readonly formats: Format[];
  /** The scope, robots.txt of each origin and each host's limits (the gate, whose Crawl-delay robots.txt sets). */
  private readonly rules: CrawlRules;
  private readonly frontier = new Frontier();
  /** Keys of the pages crawled (where they landed), to drop a second redirect to the same page. */
  private readonly crawled = new Set<string>();
  /** Entries handed to the store (the next one's index), and those written (what totalCrawledPages says). */
  private stored = 0;
  private written = 0;
  /** Entries being written, oldest first; the first write that failed. */
  private storing: Promise<void>[] = [];
  private storeFailed: { err: unknown } | undefined;
  private readonly counter;
  private readonly gate: HostGate;
  /** The frontier and pages as they go, for webjobs resume (crawlState.ts). */
  private readonly journal: CrawlJournal;
  /** With change tracking: the previous crawl's pages, sitemap lastmods (crawlChanges.ts). */
  private changes: CrawlChanges | undefined;

  constructor(private readonly ctx: JobContext<'crawl'>) {
    const request: CrawlRequest = ctx.request;
    this.maxPages = request.maxPages ?? LIMITS.defaultCrawlPages;
    this.formats = crawlFormats(request);
    this.gate = new HostGate(LIMITS.perHostConcurrency, ctx.signal);
    this.journal = new CrawlJournal(ctx.journal, this.gate);
    this.rules = crawlRules(request, ctx.engine, ctx.access, ctx.signal, this.gate);
    this.counter = throttled(() =>
      ctx.update((record) => {
        (record as unknown as { totalCrawledPages: number }).totalCrawledPages = this.written;
      }),
    );
  }

  /**
   * Checks each new link against the scope, giving the event loop back after each:
   * a page's 1,000 links against 40 patterns must not hold up the server's other requests.
   */
  private async enqueue(urls: string[]): Promise<void> {
    for (const url of urls) {
      if (this.frontier.has(url)) continue;
      if (this.ctx.signal.aborted || this.rules.scope.matchingCost > MAX_MATCHING_COST) return;
      if (await followsLink(this.rules, this.formats, url)) this.queue(url);
      await setImmediate();
    }
  }

  private queue(url: string): void {
    if (this.frontier.add(url)) this.journal.queue(url);
  }

  /** Visits a URL taken from the frontier; `place` names the files its scrape keeps (jobRunner.ts pageEngine). */
  private async visit(url: string, isStart: boolean, place: number): Promise<Visit> {
    const refusal = await robotsRefusal(this.rules, url);
    if (refusal) return { entry: failedEntry(url, new PageError(refusal), this.formats), links: [] };
    const { scrapeOptions, sessionOptions } = this.ctx.request;
    let data;
    try {
      const options = { ...crawlScrapeOptions(this.ctx.request), sitemapLastmod: this.changes?.lastmodOf(url) };
      data = await this.rules.politely(url, () => this.ctx.pageEngine(place).scrape(url, options, sessionOptions, this.ctx.signal, this.ctx.access));
    } catch (err) {
      if (isJobFatal(err)) throw err;
      this.crawled.add(normalizeUrl(url)!);
      return { entry: failedEntry(url, err, scrapeOptions?.formats), links: [] };
    }
    const links = (data.links ?? []).slice(0, MAX_LINKS_PER_PAGE);
    if (!this.formats.includes('links')) delete data.links;
    const finalUrl = data.metadata.url || url;
    const key = normalizeUrl(finalUrl) ?? finalUrl;
    if (this.crawled.has(key)) return { entry: null, links: [] };
    this.crawled.add(key);
    this.frontier.markSeen(finalUrl);
    // A redirect to another origin (http to https, a www. host) lands under that origin's robots.txt.
    const landed = await landedRefusal(this.rules, finalUrl, url);
    if (landed) return { entry: failedEntry(finalUrl, new PageError(landed), this.formats), links: [] };
    if (isStart) this.rules.scope.addHost(finalUrl);
    return { entry: decidedEntry(completedEntry(finalUrl, data), this.ctx.request), links };
  }

  /** The next queued URL that no redirect has already brought us to. */
  private nextUrl(): string | undefined {
    for (let url = this.frontier.next(); url !== undefined; url = this.frontier.next()) {
      if (!this.crawled.has(normalizeUrl(url)!)) return url;
    }
    return undefined;
  }

  async run(): Promise<void> {
    const { ctx } = this;
    const request = ctx.request;
    this.changes = await CrawlChanges.open(request, ctx.pageCache);
    // A resumed crawl goes on from its stored pages and journal; a new one from its start URL.
    const restored = ctx.resumed && ctx.journal
      ? await restoreCrawl(ctx.resumed, ctx.journal, {
          frontier: this.frontier,
          crawled: this.crawled,
          scope: this.rules.scope,
          gate: this.gate,
          // The pages of earlier runs were reached too: change tracking must not list them as removed.
          stored: this.changes && ((entry) => this.changes!.noteStored(entry)),
        })
      : undefined;
    /** Entries an earlier run stored: this run's pages come after them. */
    const earlier = restored?.stored ?? 0;
    this.stored = earlier;
    this.written = earlier;
    if (restored) this.counter.poke();
    const startRobots = await this.rules.robots.for(request.url);
    // Unless an earlier run queued (or stored) it already: one killed before its first page was stored begins here.
    this.queue(request.url);

    const concurrency = defaultConcurrency();
    const aborted = abortPromise(ctx.signal);
    const inFlight = new Map<number, Promise<{ seq: number; visit: Visit }>>();
    // Finished visits wait here until every earlier one is stored: entries keep frontier order.
    const finished = new Map<number, Visit>();
    let started = 0;
    let nextToStore = 0;
    let startDone = restored?.startDone ?? false;
    // The start page is the first visit, unless an earlier run of the crawl did it.
    const startSeq = startDone ? -1 : 0;
    const sitemapStop = new AbortController();
    const sitemaps = request.ignoreSitemap || startRobots.unavailable
      ? undefined
      : new SitemapFeed(
          crawlSitemapUrls(
            this.rules,
            request,
            startRobots.sitemaps,
            AbortSignal.any([ctx.signal, sitemapStop.signal]),
            this.changes && ((url, lastmod) => this.changes!.noteLastmod(url, lastmod)),
          ),
          // Enough is known when the pages begun and queued fill maxPages.
          () => earlier + started + this.frontier.size >= this.maxPages,
        );
    const sitemapChanged = async (): Promise<'sitemap'> => {
      await sitemaps!.changed();
      return 'sitemap';
    };
    try {
      for (;;) {
        // Sitemap URLs come after the start page's links; read alongside the crawl, they join the frontier as they come.
        if (startDone && sitemaps) await this.enqueue(sitemaps.take());
        ctx.discovered(Math.min(this.maxPages, this.stored + inFlight.size + finished.size + this.frontier.size));
        // Pages started but dropped as redirect duplicates do not count toward maxPages.
        while (this.stored + inFlight.size + finished.size < this.maxPages && inFlight.size < concurrency) {
          const url = this.nextUrl();
          if (url === undefined) break;
          const seq = started++;
          // Files are named after the entries an earlier run stored, then in the order this run visits pages.
          inFlight.set(seq, this.visit(url, seq === startSeq, earlier + seq).then((visit) => ({ seq, visit: { ...visit, url } })));
        }
        const full = this.stored + inFlight.size + finished.size >= this.maxPages;
        const sitemapWaits = startDone && sitemaps !== undefined && !sitemaps.done && !full;
        if (inFlight.size === 0 && !sitemapWaits) break;
        const next = await Promise.race([...inFlight.values(), aborted, ...(sitemapWaits ? [sitemapChanged()] : [])]);
        if (next === 'sitemap') continue;
        const { seq, visit } = next;
        inFlight.delete(seq);
        // followLinks: false crawls the start page and the sitemap's URLs only.
        if (request.followLinks !== false) await this.enqueue(visit.links);
        if (seq === startSeq) startDone = true;
        finished.set(seq, visit);
        nextToStore = await this.storeInOrder(finished, nextToStore);
        if (this.rules.scope.matchingCost > MAX_MATCHING_COST) {
          throw new LimitError(
            "includePatterns/excludePatterns: matching them against this site's links costs too much; use fewer or simpler patterns (fewer ? after a *)",
          );
        }
      }
      // Pages of the previous crawl not reached are removed when the crawl ran out of pages before maxPages.
      const complete = this.stored < this.maxPages;
      await this.noteUrlsLeft();
      for (const entry of (await this.changes?.finish(complete)) ?? []) await this.store(entry);
      await this.allStored();
    } finally {
      sitemaps?.stop();
      sitemapStop.abort();
      // The last count waits for the entries being written when the crawl stopped.
      await Promise.allSettled(this.storing);
      await this.journal.write();
      await this.counter.flush();
    }
  }

  /** When maxPages stopped the crawl: how many more URLs it had found (`urlsNotCrawled`), so the CLI can say so. */
  private async noteUrlsLeft(): Promise<void> {
    if (this.stored < this.maxPages) return;
    let left = 0;
    while (this.nextUrl() !== undefined) left++;
    if (left === 0) return;
    await this.ctx.update((record) => {
      (record as unknown as { urlsNotCrawled: number }).urlsNotCrawled = left;
    });
  }

  /**
   * Hands the entry to the store as the next one, once `journaled` (its journal lines) is written, and goes
   * on: up to STORING_AT_ONCE entries are written side by side, the oldest awaited when that many are.
   */
  private async store(entry: PageEntry, journaled: Promise<void> = Promise.resolve()): Promise<void> {
    if (this.storeFailed) throw this.storeFailed.err;
    const index = this.stored++;
    const put = journaled
      .then(() => this.ctx.putPage(index, entry))
      .then(() => {
        // putPage resolves in the order of its calls: the entries before this one are stored too.
        this.written++;
        this.counter.poke();
      });
    put.catch((err: unknown) => {
      this.storeFailed ??= { err };
    });
    this.storing.push(put);
    if (this.storing.length >= STORING_AT_ONCE) await this.storing.shift();
  }

  /** Every entry handed to the store is written; the first failure, if any, thrown. */
  private async allStored(): Promise<void> {
    const storing = this.storing.splice(0);
    await Promise.all(storing);
  }

  private async storeInOrder(finished: Map<number, Visit>, from: number): Promise<number> {
    let seq = from;
    for (let visit = finished.get(seq); visit !== undefined; visit = finished.get(seq)) {
      finished.delete(seq);
      seq++;
      if (!visit.entry) this.journal.dropped(visit.url!);
      if (!visit.entry || this.stored >= this.maxPages) continue;
      await this.changes?.reached(visit.entry);
      // The journal first: a stored page never has links the journal lacks.
      this.journal.storing(this.stored, visit.url!);
      await this.store(visit.entry, this.journal.write());
    }
    return seq;
  }
}

export const crawlRunner: JobRunner<'crawl'> = {
  preflight: (request, env) => scrapePreflight(request.scrapeOptions, env),
  initialRecord: () => ({
    jobId: '',
    status: 'pending',
    totalCrawledPages: 0,
    totalPageBatches: 1,
    currentPageBatch: 1,
    batchSize: LIMITS.defaultResultBatchSize,
  }),
  expectedPages: (request) => request.maxPages ?? LIMITS.defaultCrawlPages,
  run: (ctx) => new Crawl(ctx).run(),
};
