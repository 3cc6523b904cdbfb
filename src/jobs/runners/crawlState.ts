/**
 * A crawl's state kept in the job's journal as it goes, so that `webjobs resume`
 * goes on where it stopped (as Scrapy's JOBDIR): the frontier in the order URLs
 * joined it (which also gives the seen set), the URL each stored page was
 * requested at, visits dropped as redirects to a page crawled, and when the last
 * request to each host ended (its politeness delay goes on from there). robots.txt
 * is read again on resume: it is no page.
 *
 * Lines are gathered in memory and appended before a page is stored, one append
 * per page at most, never one per link: whatever a stored page implies (the
 * links of the pages before it) is in the journal before the page is. A line for
 * a page that was never stored (killed in between) is ignored on reading.
 */
import { normalizeUrl } from '../../api/normalizeUrl.js';
import type { PageEntry } from '../../api/types.js';
import { FingerprintSet } from '../../engine/crawl/fingerprints.js';
import type { Frontier } from '../../engine/crawl/frontier.js';
import type { HostGate } from '../../engine/crawl/hostGate.js';
import type { CrawlScope } from '../../engine/crawl/scope.js';
import type { JobJournal, ResumedJob } from '../jobRunner.js';

/** One journal line: URLs queued (in order), a page stored (its index and requested URL), a visit dropped, host times. */
type Line = { q: string[]; qd?: number[] } | { p: [number, string] } | { d: string } | { h: Record<string, number> };

const key = (url: string) => normalizeUrl(url) ?? url;

export class CrawlJournal {
  private queued: string[] = [];
  /** The depth of each queued URL, with maxDepth (`qd` beside `q`). */
  private queuedDepths: number[] = [];
  private lines: Line[] = [];
  private hostsWritten = '';
  /** The last append: appends follow each other, one at a time. */
  private appending: Promise<void> = Promise.resolve();
  /** The append waiting for the one before it: it takes every line gathered until it begins. */
  private next: Promise<void> | undefined;

  constructor(
    private readonly journal: JobJournal | undefined,
    private readonly gate: HostGate,
  ) {}

  /** `url` joined the frontier, `depth` links from the start page (kept with maxDepth only). */
  queue(url: string, depth?: number): void {
    if (!this.journal) return;
    this.queued.push(url);
    if (depth !== undefined) this.queuedDepths.push(depth);
  }

  /** Page `index` is about to be stored, requested at `url`. */
  storing(index: number, url: string): void {
    if (!this.journal) return;
    this.take();
    this.lines.push({ p: [index, url] });
  }

  /** The visit of `url` was dropped: it redirected to a page crawled already. */
  dropped(url: string): void {
    if (!this.journal) return;
    this.take();
    this.lines.push({ d: url });
  }

  private take(): void {
    if (this.queued.length > 0) this.lines.push(this.queuedDepths.length > 0 ? { q: this.queued, qd: this.queuedDepths } : { q: this.queued });
    this.queued = [];
    this.queuedDepths = [];
  }

  /**
   * Appends what gathered since the last write, with each host's last request when it changed; resolves
   * when these lines are written. One append at a time: the writes made while one is under way share the next.
   */
  async write(): Promise<void> {
    if (!this.journal) return;
    this.take();
    if (!this.next) {
      const journal = this.journal;
      const next = this.appending.then(() => {
        this.next = undefined;
        const hosts = this.gate.lastRequests();
        const text = JSON.stringify(hosts);
        if (text !== this.hostsWritten) {
          this.lines.push({ h: hosts });
          this.hostsWritten = text;
        }
        const lines = this.lines;
        this.lines = [];
        return journal.append(lines);
      });
      this.next = next;
      this.appending = next.catch(() => undefined);
    }
    await this.next;
  }
}

/** The URL each stored page was requested at, by its index, as the journal's lines say. */
export function requestedUrls(lines: readonly unknown[]): Map<number, string> {
  const urls = new Map<number, string>();
  for (const line of lines as Line[]) if (line && typeof line === 'object' && 'p' in line && Array.isArray(line.p)) urls.set(line.p[0], line.p[1]);
  return urls;
}

/** What the crawl restored: its pages stored so far, and whether its start page was done. */
export interface RestoredCrawl {
  stored: number;
  startDone: boolean;
}

const PAGE_CHUNK = 100;

/**
 * Rebuilds the crawl of an earlier run: the stored pages stay (they are counted,
 * marked crawled and seen, never queued again); the journal's URLs not yet done
 * go back into the frontier in their order, with their depths; each host's
 * politeness from its last request. What it keeps of the pages done is their
 * fingerprints (32 bytes a page at most), not their URLs.
 */
export async function restoreCrawl(
  resumed: ResumedJob,
  journal: JobJournal,
  state: { frontier: Frontier; crawled: FingerprintSet; scope: CrawlScope; gate: HostGate; stored?: (entry: PageEntry) => void },
): Promise<RestoredCrawl> {
  const done = new FingerprintSet();
  let stored = 0;
  for (;;) {
    const entries = await resumed.readPages(stored, PAGE_CHUNK);
    const present = entries.findIndex((entry) => entry === undefined);
    const got = (present === -1 ? entries : entries.slice(0, present)) as PageEntry[];
    for (const entry of got) {
      if (stored === 0 && entry.status === 'completed') state.scope.addHost(entry.url);
      state.crawled.add(key(entry.url));
      state.frontier.markSeen(entry.url);
      done.add(key(entry.url));
      state.stored?.(entry);
      if (typeof entry.metadata?.sourceURL === 'string') done.add(key(entry.metadata.sourceURL));
      stored++;
    }
    if (got.length < PAGE_CHUNK) break;
  }
  const lines = (await journal.read()) as Line[];
  // What was done first (a page stored, a visit dropped), then the URLs queued in their order.
  for (const line of lines) {
    if ('p' in line && line.p[0] < stored) done.add(key(line.p[1]));
    else if ('d' in line) done.add(key(line.d));
    else if ('h' in line) state.gate.restore(line.h);
  }
  for (const line of lines) {
    if (!('q' in line)) continue;
    line.q.forEach((url, i) => {
      if (done.has(key(url))) state.frontier.markSeen(url);
      else state.frontier.add(url, line.qd?.[i] ?? 0);
    });
  }
  return { stored, startDone: stored > 0 };
}
