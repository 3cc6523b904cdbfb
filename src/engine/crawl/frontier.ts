/**
 * The crawl frontier: a first-in first-out queue (so the crawl is breadth-first)
 * that admits each page once, by its normalised key (see normalize.ts).
 */
import { cleanUrl, normalizeUrl } from '../../api/normalizeUrl.js';

/** Spellings `has` remembers at most (a 10,000-page crawl's links, a few MB). */
const MAX_KNOWN = 100_000;

export class Frontier {
  private readonly queue: string[] = [];
  private head = 0;
  private readonly seen = new Set<string>();
  /**
   * Spellings `has` found seen, as given: a link is on many pages (a site's navigation on each), and is not
   * normalised again every time it is met. What is seen stays seen. Bounded, as the queue is.
   */
  private readonly known = new Set<string>();

  /**
   * @param maxQueued bounds memory on sites with endless links (a crawler trap
   * adds a new URL per page; maxPages bounds the visits, this bounds the queue).
   */
  constructor(private readonly maxQueued = 10_000) {}

  /** Queues `url` unless a spelling of it was seen before; true when queued. */
  add(url: string): boolean {
    const key = normalizeUrl(url);
    const clean = cleanUrl(url);
    if (!key || !clean || this.seen.has(key) || this.size >= this.maxQueued) return false;
    this.seen.add(key);
    this.queue.push(clean);
    return true;
  }

  /** Whether `url`, in some spelling, was queued or seen before: such a URL needs no further checks. */
  has(url: string): boolean {
    if (this.known.has(url)) return true;
    const key = normalizeUrl(url);
    const seen = key === null || this.seen.has(key);
    if (seen && this.known.size < MAX_KNOWN) this.known.add(url);
    return seen;
  }

  /** Records a URL as known without queueing it: where a redirect landed. */
  markSeen(url: string): void {
    const key = normalizeUrl(url);
    if (key) this.seen.add(key);
  }

  next(): string | undefined {
    if (this.head >= this.queue.length) return undefined;
    const url = this.queue[this.head]!;
    this.queue[this.head++] = '';
    return url;
  }

  get size(): number {
    return this.queue.length - this.head;
  }
}
