/**
 * Crawl: breadth-first from the start URL within its host, obeying the
 * robots.txt of each origin and a delay per host, up to maxPages pages. Several
 * pages load at once, but entries are stored in the order pages left the
 * frontier, so the result reads breadth-first: the start page, the pages it
 * links to, then the sitemap's URLs (read while pages load, joining as they
 * come) and deeper pages.
 */
import { setImmediate } from 'node:timers/promises';
import { LimitError } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { CrawlRequest, Format, PageEntry } from '../../api/types.js';
import { defaultConcurrency } from '../../engine/browser/browser.js';
import { DEFAULT_MAX_QUEUED, Frontier } from '../../engine/crawl/frontier.js';
import { FingerprintSet } from '../../engine/crawl/fingerprints.js';
import { HostGate } from '../../engine/crawl/hostGate.js';
import { normalizeUrl } from '../../api/normalizeUrl.js';
import { SitemapFeed } from '../../engine/crawl/sitemapFeed.js';
import { crawlFormats, crawlRules, crawlSitemapUrls, followsLink, type CrawlRules } from '../crawlRules.js';
import { visitPage, type CrawlVisit, type CrawlVisitor } from '../crawlVisit.js';
import { scrapePreflight } from '../jobEngine.js';
import { CrawlChanges } from '../crawlChanges.js';
import type { JobContext, JobRunner } from '../jobRunner.js';
import { failedEntry, isJobFatal, raceAbort, throttled } from './pageEntry.js';
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

/** A visit (crawlVisit.ts), the URL it requested (taken from the frontier) and that URL's depth. */
type Visit = CrawlVisit & { url?: string; depth?: number };

/**
 * URLs the frontier holds at most for a crawl of `maxPages`: twice as many, so that
 * a site of maxPages pages is crawled whole whatever order its links come in (a URL
 * queued past maxPages is visited only when a URL before it is dropped), and at
 * least DEFAULT_MAX_QUEUED. A crawler trap fills it and stops there.
 */
export const maxQueuedFor = (maxPages: number): number => Math.max(DEFAULT_MAX_QUEUED, 2 * maxPages);

class Crawl {
  private readonly maxPages: number;
  private readonly formats: Format[];
  /** The scope, robots.txt of each origin and each host's limits (the gate, whose Crawl-delay robots.txt sets). */
  private readonly rules: CrawlRules;
  private readonly frontier: Frontier;
  /** Keys of the pages crawled (where they landed), to drop a second redirect to the same page: fingerprints, 32 bytes a page at most. */
  private readonly crawled = new FingerprintSet();
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
    this.frontier = new Frontier(maxQueuedFor(this.maxPages));
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
  private async enqueue(urls: string[], depth: number): Promise<void> {
    for (const url of urls) {
      if (this.frontier.has(url)) continue;
      if (this.ctx.signal.aborted || this.rules.scope.matchingCost > MAX_MATCHING_COST) return;
      if (await followsLink(this.rules, this.formats, url)) this.queue(url, depth);
      await setImmediate();
    }
  }

  /** Queues `url`, `depth` links from the start page (the sitemap's URLs: 0). */
  private queue(url: string, depth: number): void {
    if (!this.frontier.add(url, depth)) return;
    this.journal.queue(url, this.ctx.request.maxDepth !== undefined ? depth : undefined);
  }

  /** The depth of the links of a page `depth` links from the start, when they are followed: followLinks, and maxDepth. */
  private linksFrom(depth: number): number | undefined {
    if (this.ctx.request.followLinks === false) return undefined;
    const { maxDepth } = this.ctx.request;
    return maxDepth !== undefined && depth >= maxDepth ? undefined : depth + 1;
  }

  /** Visits a URL taken from the frontier; `place` names the files its scrape keeps (jobRunner.ts pageEngine). */
  private async visit(url: string, isStart: boolean, place: number): Promise<Visit> {
    const { ctx } = this;
    const visitor: CrawlVisitor = {
      request: ctx.request,
      rules: this.rules,
      engine: ctx.pageEngine(place),
      signal: ctx.signal,
      access: ctx.access,
      landed: (finalUrl) => {
        const key = normalizeUrl(finalUrl) ?? finalUrl;
        if (this.crawled.has(key)) return false;
        this.crawled.add(key);
        this.frontier.markSeen(finalUrl);
        return true;
      },
      failed: (failedUrl) => this.crawled.add(normalizeUrl(failedUrl) ?? failedUrl),
    };
    try {
      return await visitPage(visitor, url, isStart, this.changes?.lastmodOf(url));
    } catch (err) {
      // Its host's gate failed (the job stopped while it waited): the page's failure, as a scrape's.
      if (isJobFatal(err)) throw err;
      visitor.failed!(url);
      return { entry: failedEntry(url, err, ctx.request.scrapeOptions?.formats), links: [] };
    }
  }

  /** The next queued URL that no redirect has already brought us to, and its depth. */
  private nextUrl(): { url: string; depth: number } | undefined {
    for (let next = this.frontier.nextWithDepth(); next !== undefined; next = this.frontier.nextWithDepth()) {
      if (!this.crawled.has(normalizeUrl(next.url) ?? next.url)) return next;
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
    this.queue(request.url, 0);

    const concurrency = defaultConcurrency();
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
        if (startDone && sitemaps) await this.enqueue(sitemaps.take(), 0);
        ctx.discovered(Math.min(this.maxPages, this.stored + inFlight.size + finished.size + this.frontier.size));
        // Pages started but dropped as redirect duplicates do not count toward maxPages.
        while (this.stored + inFlight.size + finished.size < this.maxPages && inFlight.size < concurrency) {
          const next = this.nextUrl();
          if (next === undefined) break;
          const { url, depth } = next;
          const seq = started++;
          // Files are named after the entries an earlier run stored, then in the order this run visits pages.
          inFlight.set(seq, this.visit(url, seq === startSeq, earlier + seq).then((visit) => ({ seq, visit: { ...visit, url, depth } })));
        }
        const full = this.stored + inFlight.size + finished.size >= this.maxPages;
        const sitemapWaits = startDone && sitemaps !== undefined && !sitemaps.done && !full;
        if (inFlight.size === 0 && !sitemapWaits) break;
        // Raced with the signal afresh each time: a promise raced once a page would keep every page's answer (raceAbort).
        const next = await raceAbort<{ seq: number; visit: Visit } | 'sitemap'>([...inFlight.values(), ...(sitemapWaits ? [sitemapChanged()] : [])], ctx.signal);
        if (next === 'sitemap') continue;
        const { seq, visit } = next;
        inFlight.delete(seq);
        // followLinks: false crawls the start page and the sitemap's URLs only; maxDepth stops at its depth.
        const depth = this.linksFrom(visit.depth!);
        if (depth !== undefined) await this.enqueue(visit.links, depth);
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
