/**
 * The crawl frontier: a first-in first-out queue (so the crawl is breadth-first)
 * that admits each page once, by its normalised key (see normalize.ts).
 */
import { cleanUrl, normalizeUrl } from '../../api/normalizeUrl.js';

export class Frontier {
  private readonly queue: string[] = [];
  private head = 0;
  private readonly seen = new Set<string>();

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
    const key = normalizeUrl(url);
    return key === null || this.seen.has(key);
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
