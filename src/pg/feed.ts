/**
 * How a worker takes jobs from a pg-boss queue: several per round trip, some
 * ahead of its slots when its jobs are short, none kept waiting long.
 */
import { performance } from 'node:perf_hooks';
import type PgBoss from 'pg-boss';
import { errorMessage } from '../api/errors.js';
import { retrying } from './connect.js';
import type { PageJobData, WholeJobData } from './store.js';
import type { PgWorkStore } from './workStore.js';

/** Queue jobs fetched ahead of the slots that wait for one: at most this many, */
const MAX_AHEAD = 32;
/** and about this much work (by the time recent jobs took) per slot, so that none waits long here; */
const AHEAD_MS = 100;
/** one that waited this long all the same (the slots held up by long pages) is given back to the queue. */
const AHEAD_STALE_MS = 5 * AHEAD_MS;

/**
 * A queue's jobs for this worker's slots, fetched several per round trip: as
 * many as slots are free, plus, when recent jobs were short, some ahead
 * (about AHEAD_MS of work per slot). One fetch for each page cost the queue more
 * than any other statement of a short page. A job fetched ahead holds no lease;
 * held up here past AHEAD_STALE_MS (the slots busy with long pages after short
 * ones) it is given back, for a free worker to take. Were this worker to die
 * holding it, pg-boss delivers it again when it expires.
 */
export class Feed<T extends PageJobData | WholeJobData> {
  private readonly buffer: { job: PgBoss.Job<T>; at: number }[] = [];
  private fetching: Promise<number> | undefined;
  private waiting = 0;
  /** Milliseconds a job of this queue took here lately (a moving average); unknown before the first. */
  private jobMs: number | undefined;
  private staleCheck: NodeJS.Timeout | undefined;
  /** Slots waiting for the queue to have jobs. */
  private readonly sleepers = new Set<() => void>();

  constructor(
    private readonly boss: PgBoss,
    private readonly store: PgWorkStore,
    readonly queue: string,
    private readonly slots: number,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * The next job, asking the queue every `pollMs` while it has none; undefined
   * once `signal` aborts. A slot waiting here counts as free: the next fetch
   * brings a job for it, and jobs another slot's fetch brought wake it at once.
   */
  async next(signal: AbortSignal, pollMs: number): Promise<PgBoss.Job<T> | undefined> {
    this.waiting++;
    try {
      while (!signal.aborted) {
        const first = this.buffer.shift();
        if (first) return first.job;
        this.fetching ??= this.fetch().finally(() => (this.fetching = undefined));
        if ((await this.fetching) > 0 || this.buffer.length > 0) continue;
        await this.arrival(pollMs, signal);
      }
      return undefined;
    } finally {
      this.waiting--;
    }
  }

  /** Waits `ms`, or less when a fetch brings jobs or `signal` aborts. */
  private arrival(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.sleepers.add(done);
    });
  }

  /** A job of this queue took `ms`, from begin to its result stored. */
  took(ms: number): void {
    this.jobMs = this.jobMs === undefined ? ms : 0.8 * this.jobMs + 0.2 * ms;
  }

  /** Gives back every job fetched and not taken (the worker stops) or, with `before`, those fetched before it. */
  async giveBack(before = Infinity): Promise<void> {
    const keep = this.buffer.filter((b) => b.at >= before);
    const stale = this.buffer.filter((b) => b.at < before).map((b) => b.job);
    this.buffer.splice(0, this.buffer.length, ...keep);
    this.watch();
    if (stale.length === 0) return;
    const takes = stale.map(({ id, data }) => ({ jobId: data.jobId, index: 'index' in data ? data.index : undefined, queueJob: id }));
    await retrying(() => this.store.queueUnbegun(takes)).catch((err: unknown) =>
      this.log(`cannot give back ${stale.length} queue job(s) fetched ahead: ${errorMessage(err)}; they are delivered again when they expire`),
    );
  }

  private async fetch(): Promise<number> {
    const ahead = this.jobMs === undefined ? 0 : Math.min(MAX_AHEAD, Math.floor((AHEAD_MS * this.slots) / Math.max(this.jobMs, 0.1)));
    const jobs = await this.boss.fetch<T>(this.queue, { batchSize: this.waiting + ahead });
    const at = performance.now();
    this.buffer.push(...jobs.map((job) => ({ job, at })));
    this.watch();
    if (jobs.length > 0) for (const wake of [...this.sleepers]) wake();
    return jobs.length;
  }

  /** While jobs wait here, checks that none waits too long. */
  private watch(): void {
    if (this.buffer.length === 0) {
      clearTimeout(this.staleCheck);
      this.staleCheck = undefined;
    } else {
      this.staleCheck ??= setTimeout(() => {
        this.staleCheck = undefined;
        void this.giveBack(performance.now() - AHEAD_STALE_MS);
      }, AHEAD_STALE_MS);
    }
  }
}
