/**
 * Politeness per host: at most `perHost` requests to one host name at once, and
 * with a delay (the job's `delay`, or the host's robots.txt Crawl-delay) one at a
 * time, each starting at least `delayMs` after the previous one to that host
 * ended. The gap is counted from the end, not the start, so that the server sees
 * at least the delay between requests however long each one took. One gate per
 * job: nothing outlives it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RobotsCache } from './robots.js';

/**
 * A job's politeness per host, as its runners see it: `run` starts `task` (a
 * request to `url`) when the host's limit and `delayMs` allow. HostGate keeps it
 * within one process; on PostgreSQL, all workers of a job keep it together.
 */
export interface PoliteGate {
  run<T>(url: string, delayMs: number, task: () => Promise<T>): Promise<T>;
}

/** Runs a request to `url` within its host's limits. */
export type PoliteRequest = <T>(url: string, request: () => Promise<T>) => Promise<T>;

/**
 * A crawl's requests through `gate`, each spaced by the job's delay or its origin's
 * robots.txt Crawl-delay, whichever is longer.
 */
export function crawlPolitely(gate: PoliteGate, robots: RobotsCache, jobDelayMs: number): PoliteRequest {
  return async (url, request) => gate.run(url, Math.max(jobDelayMs, (await robots.for(url)).delayMs), request);
}

interface HostState {
  active: number;
  /** When the last request to the host ended (Date.now()), 0 before the first. */
  lastEnd: number;
  waiters: (() => void)[];
}

export class HostGate implements PoliteGate {
  private readonly hosts = new Map<string, HostState>();

  constructor(
    private readonly perHost: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** Runs `task` (a request to `url`) when the host's limit and `delayMs` allow. */
  async run<T>(url: string, delayMs: number, task: () => Promise<T>): Promise<T> {
    const state = this.stateOf(new URL(url).hostname);
    await this.acquire(state, delayMs);
    try {
      return await task();
    } finally {
      state.active--;
      state.lastEnd = Date.now();
      state.waiters.shift()?.();
    }
  }

  /**
   * When the last request to each host ended (Date.now(); now for one under way):
   * what a resumed crawl restores, so that it keeps each host's delay from there.
   */
  lastRequests(): Record<string, number> {
    const now = Date.now();
    return Object.fromEntries([...this.hosts].map(([host, state]) => [host, state.active > 0 ? now : state.lastEnd]));
  }

  /** Takes over the times of lastRequests() of an earlier run of the crawl. */
  restore(lastRequests: Record<string, number>): void {
    for (const [host, lastEnd] of Object.entries(lastRequests)) {
      const state = this.stateOf(host);
      state.lastEnd = Math.max(state.lastEnd, lastEnd);
    }
  }

  private stateOf(host: string): HostState {
    let state = this.hosts.get(host);
    if (!state) {
      state = { active: 0, lastEnd: 0, waiters: [] };
      this.hosts.set(host, state);
    }
    return state;
  }

  private async acquire(state: HostState, delayMs: number): Promise<void> {
    const limit = delayMs > 0 ? 1 : this.perHost;
    while (state.active >= limit) {
      this.signal?.throwIfAborted();
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.signal?.removeEventListener('abort', wake);
          resolve();
        };
        state.waiters.push(wake);
        this.signal?.addEventListener('abort', wake, { once: true });
      });
    }
    this.signal?.throwIfAborted();
    state.active++;
    const wait = state.lastEnd + delayMs - Date.now();
    if (wait <= 0) return;
    try {
      await sleep(wait, undefined, { signal: this.signal });
    } catch (err) {
      state.active--;
      state.waiters.shift()?.();
      throw err;
    }
  }
}
