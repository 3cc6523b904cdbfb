/**
 * Browser tabs shared fairly per key (issue 54, finding 1): at most `max` tabs load pages at once across every
 * job of a browser engine (serve's), and a tab that frees goes to the first waiting page of the key served
 * longest ago (a key never served first), as api/workerPool.ts hands out extraction workers. One key's batch
 * never holds every tab: another key's page waits behind one page of every other key with work.
 */

import { KeyTurns } from '../../api/keyTurns.js';

interface Waiting {
  key: string;
  resolve(): void;
  reject(reason: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class TabTurns {
  private inUse = 0;
  private readonly waiting = new KeyTurns<Waiting>((waiting) => waiting.key);

  constructor(readonly max: number) {}

  /** A turn at a tab for `key` (pages without one share a turn); rejects with the signal's reason when `signal` aborts first. */
  take(key = '', signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.inUse < this.max && this.waiting.length === 0) {
      this.inUse++;
      this.waiting.markServed(key);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiting: Waiting = { key, resolve, reject, signal };
      if (signal) {
        waiting.onAbort = () => {
          this.waiting.remove(waiting);
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
      const next = this.waiting.next()!;
      if (next.onAbort) next.signal!.removeEventListener('abort', next.onAbort);
      this.inUse++;
      next.resolve();
    }
  }
}
