/**
 * A queue taken in turn per key (an API key on serve): the next item is the first waiting one of the key
 * served longest ago (a key never served first), so that each key with work gets its turn, whatever the
 * others have queued. Shared by the extraction workers (workerPool.ts) and the browser's tabs
 * (engine/browser/tabTurns.ts).
 */
export class KeyTurns<T> {
  private readonly items: T[] = [];
  /** When each key was last served (a count of items handed out). */
  private readonly served = new Map<string, number>();
  private handedOut = 0;

  /** `keyOf` names an item's key; items without one share the key ''. */
  constructor(private readonly keyOf: (item: T) => string) {}

  get length(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** Takes `item` out of the queue (its wait was stopped); false when it was not waiting. */
  remove(item: T): boolean {
    const at = this.items.indexOf(item);
    if (at < 0) return false;
    this.items.splice(at, 1);
    return true;
  }

  /** Every waiting item, taken from the queue (the pool closes). */
  takeAll(): T[] {
    return this.items.splice(0);
  }

  /** Counts a turn for `key` served without waiting (nothing was queued). */
  markServed(key: string): void {
    this.mark(key);
  }

  /** The next item in turn, taken from the queue; undefined when none waits. */
  next(): T | undefined {
    if (this.items.length === 0) return undefined;
    let best = 0;
    let bestServed = Infinity;
    const seen = new Set<string>();
    for (let i = 0; i < this.items.length && seen.size < this.served.size + 1; i++) {
      const key = this.keyOf(this.items[i]!);
      if (seen.has(key)) continue;
      seen.add(key);
      const served = this.served.get(key) ?? -1;
      if (served < bestServed) {
        best = i;
        bestServed = served;
      }
      if (served === -1) break;
    }
    const [item] = this.items.splice(best, 1);
    this.mark(this.keyOf(item!));
    return item;
  }

  private mark(key: string): void {
    this.served.set(key, this.handedOut++);
    // Keys with nothing queued are forgotten past a bound, so that a server of many keys keeps few.
    if (this.served.size > 1024) for (const known of this.served.keys()) if (!this.items.some((item) => this.keyOf(item) === known)) this.served.delete(known);
  }
}
