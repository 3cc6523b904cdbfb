/**
 * Browser tabs shared fairly per key (issue 54, finding 1): at most `max` tabs load pages at once across every
 * job of a browser engine (serve's), and a tab that frees goes to the first waiting page of the key served
 * longest ago (a key never served first), as api/workerPool.ts hands out extraction workers. One key's batch
 * never holds every tab: another key's page waits behind one page of every other key with work.
 */

interface Waiting {
  key: string;
  resolve(): void;
  reject(reason: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class TabTurns {
  private inUse = 0;
  private readonly waiting: Waiting[] = [];
  /** When each key last had a tab (a count of tabs handed out), for the turn (next()). */
  private readonly served = new Map<string, number>();
  private handedOut = 0;

  constructor(readonly max: number) {}

  /** A turn at a tab for `key` (pages without one share a turn); rejects with the signal's reason when `signal` aborts first. */
  take(key = '', signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.inUse < this.max && this.waiting.length === 0) {
      this.handOut(key);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiting: Waiting = { key, resolve, reject, signal };
      if (signal) {
        waiting.onAbort = () => {
          const at = this.waiting.indexOf(waiting);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiting.onAbort, { once: true });
      }
      this.waiting.push(waiting);
    });
  }

  /** A turn taken is over: the tab goes to the next key in turn. */
  give(): void {
    this.inUse--;
    while (this.inUse < this.max && this.waiting.length > 0) {
      const next = this.next();
      if (next.onAbort) next.signal!.removeEventListener('abort', next.onAbort);
      this.handOut(next.key);
      next.resolve();
    }
  }

  private handOut(key: string): void {
    this.inUse++;
    this.served.set(key, this.handedOut++);
    // Keys with nothing waiting are forgotten past a bound, so that a server of many keys keeps few.
    if (this.served.size > 1024) for (const known of this.served.keys()) if (!this.waiting.some((w) => w.key === known)) this.served.delete(known);
  }

  /** The first waiting page of the key served longest ago (a key never served first), taken from the queue. */
  private next(): Waiting {
    let best = 0;
    let bestServed = Infinity;
    const seen = new Set<string>();
    for (let i = 0; i < this.waiting.length; i++) {
      const key = this.waiting[i]!.key;
      if (seen.has(key)) continue;
      seen.add(key);
      const served = this.served.get(key) ?? -1;
      if (served < bestServed) {
        best = i;
        bestServed = served;
      }
      if (served === -1) break;
    }
    return this.waiting.splice(best, 1)[0]!;
  }
}
