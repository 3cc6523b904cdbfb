/**
 * The crawl frontier: a first-in first-out queue (so the crawl is breadth-first)
 * that admits each page once, by its normalised key (see normalize.ts).
 *
 * What it keeps grows with the crawl, so it is kept compact (issue 59): the keys
 * seen as 64-bit fingerprints (at most 32 bytes a URL, fingerprints.ts), the queue
 * as UTF-8 (a URL's length plus 6 bytes, urlQueue.ts), the memo of spellings met
 * again in a fixed table (512 KB, however long the crawl).
 */
import { cleanUrl, normalizeUrl } from '../../api/normalizeUrl.js';
import { FingerprintCache, FingerprintSet } from './fingerprints.js';
import { UrlQueue } from './urlQueue.js';

/** URLs queued at most unless the crawl says otherwise (runners/crawl.ts sizes it by maxPages). */
export const DEFAULT_MAX_QUEUED = 10_000;

export class Frontier {
  private readonly queue = new UrlQueue();
  private readonly seen = new FingerprintSet();
  /**
   * Spellings `has` found seen, as given: a link is on many pages (a site's navigation on each), and is not
   * normalised again every time it is met. What is seen stays seen, so a spelling remembered is never wrong;
   * one pushed out of its slot by another is normalised again when met.
   */
  private readonly known = new FingerprintCache();

  /**
   * @param maxQueued bounds the queue on sites with endless links (a crawler trap
   * adds a new URL per page; maxPages bounds the visits, this bounds the queue).
   */
  constructor(private readonly maxQueued = DEFAULT_MAX_QUEUED) {}

  /** Queues `url` (with `depth`, given back by nextWithDepth) unless a spelling of it was seen before; true when queued. */
  add(url: string, depth = 0): boolean {
    if (this.size >= this.maxQueued) return false;
    const key = normalizeUrl(url);
    const clean = cleanUrl(url);
    if (!key || !clean || !this.seen.add(key)) return false;
    this.queue.push(clean, depth);
    return true;
  }

  /** Whether `url`, in some spelling, was queued or seen before: such a URL needs no further checks. */
  has(url: string): boolean {
    if (this.known.has(url)) return true;
    const key = normalizeUrl(url);
    const seen = key === null || this.seen.has(key);
    if (seen) this.known.add(url);
    return seen;
  }

  /** Records a URL as known without queueing it: where a redirect landed. */
  markSeen(url: string): void {
    const key = normalizeUrl(url);
    if (key) this.seen.add(key);
  }

  next(): string | undefined {
    return this.queue.shift()?.url;
  }

  /** The next URL and the depth it was queued with. */
  nextWithDepth(): { url: string; depth: number } | undefined {
    const next = this.queue.shift();
    return next && { url: next.url, depth: next.n };
  }

  get size(): number {
    return this.queue.size;
  }

  /** Bytes its structures take: the seen set, the queue and the memo (what a test bounds per page). */
  get bytes(): number {
    return this.seen.bytes + this.queue.bytes + this.known.bytes;
  }

  /** Keys seen (queued, or marked seen). */
  get seenCount(): number {
    return this.seen.size;
  }
}
