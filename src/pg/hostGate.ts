/**
 * Politeness per host kept by all workers of a job together, on PostgreSQL: at
 * most `perHost` requests of the job to one host name at once, and with a delay
 * one at a time, each starting at least the delay after the previous one to that
 * host ended, whichever worker made it (as HostGate keeps them in one process).
 *
 * Each (job, host) has as many slot rows as requests it may get at once. A request
 * takes a free slot (one statement), waits until the slot's free_at (the previous
 * request's end plus its delay), runs, and frees the slot with free_at set to now
 * plus the delay. A slot is held on a lease its worker's heartbeat renews: a worker
 * that dies holding one frees it when the lease runs out, the delay counted from
 * then. All times are the database's, so workers' clocks need not agree.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { errorMessage } from '../api/errors.js';
import type { PoliteGate } from '../engine/crawl/hostGate.js';
import { retrying } from './connect.js';

/** One request's hold on a slot of (job, host). */
export interface HostSlot {
  jobId: string;
  host: string;
  slot: number;
  holder: string;
}

/** How long a request waits before it asks again for a slot when all were taken: from the first, doubling to the last. */
const RETRY_MS = [10, 20, 40, 80, 160, 250] as const;

/** The table of slots (src/pg/migrations.ts, version 3). */
export class HostSlots {
  constructor(
    private readonly pool: pg.Pool,
    private readonly leaseSeconds: number,
  ) {}

  /** Makes sure (job, host) has slots 0 … count - 1. */
  async add(jobId: string, host: string, count: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO webjobs_host_slots (job_id, host, slot) SELECT $1, $2, generate_series(0, $3 - 1) ON CONFLICT DO NOTHING`,
      [jobId, host, count],
    );
  }

  /**
   * Takes the free slot (of the first `limit`) that was freed first, for a request keeping `delayMs` after it;
   * undefined when all are held. `waitMs`: how long the request must wait still before it starts.
   */
  async take(jobId: string, host: string, limit: number, delayMs: number): Promise<{ held: HostSlot; waitMs: number } | undefined> {
    const holder = randomUUID();
    const { rows } = await this.pool.query<{ slot: number; wait_ms: number }>({
      name: 'webjobs-take-host-slot',
      text: `WITH free AS (
         SELECT slot, free_at FROM webjobs_host_slots
         WHERE job_id = $1 AND host = $2 AND slot < $3 AND (lease_until IS NULL OR lease_until < now())
         ORDER BY free_at, slot LIMIT 1 FOR UPDATE SKIP LOCKED)
       -- Held, the slot's next request may start no sooner than its lease's end plus the delay: what a holder that dies leaves.
       UPDATE webjobs_host_slots s SET holder = $4, delay_ms = $5::int, lease_until = now() + make_interval(secs => $6::float8),
         free_at = now() + make_interval(secs => $6::float8 + $5::int / 1000.0)
       FROM free WHERE s.job_id = $1 AND s.host = $2 AND s.slot = free.slot
       RETURNING s.slot, greatest(0, extract(epoch FROM free.free_at - now()) * 1000)::float8 AS wait_ms`,
      values: [jobId, host, limit, holder, delayMs, this.leaseSeconds],
    });
    const taken = rows[0];
    return taken && { held: { jobId, host, slot: taken.slot, holder }, waitMs: taken.wait_ms };
  }

  /** Frees a slot this request still holds; its next request may start after its delay, from now. */
  async free({ jobId, host, slot, holder }: HostSlot): Promise<void> {
    await this.pool.query({
      name: 'webjobs-free-host-slot',
      text: `UPDATE webjobs_host_slots SET holder = NULL, lease_until = NULL, free_at = now() + make_interval(secs => delay_ms / 1000.0)
       WHERE job_id = $1 AND host = $2 AND slot = $3 AND holder = $4`,
      values: [jobId, host, slot, holder],
    });
  }

  /** Renews the leases of slots still held by these requests. */
  async renew(held: readonly HostSlot[]): Promise<void> {
    if (held.length === 0) return;
    await this.pool.query(
      `UPDATE webjobs_host_slots s SET lease_until = now() + make_interval(secs => $5::float8),
         free_at = now() + make_interval(secs => $5::float8 + s.delay_ms / 1000.0)
       FROM unnest($1::uuid[], $2::text[], $3::int[], $4::uuid[]) AS h (job_id, host, slot, holder)
       WHERE s.job_id = h.job_id AND s.host = h.host AND s.slot = h.slot AND s.holder = h.holder`,
      [held.map((h) => h.jobId), held.map((h) => h.host), held.map((h) => h.slot), held.map((h) => h.holder), this.leaseSeconds],
    );
  }
}

/**
 * With no delay, a slot stays this worker's after a request, for its next request to the host: while it is used
 * again within KEEP_IDLE_MS, and up to KEEP_MS from when it was taken. A page then costs no statement here, only
 * each slot taken and freed once in KEEP_MS; other workers' requests wait for it at most that long.
 */
const KEEP_MS = 1_000;
const KEEP_IDLE_MS = 50;

interface Taken {
  held: HostSlot;
  at: number;
  idle?: NodeJS.Timeout;
}

/** One job's politeness on one worker, kept with every other worker of the job through HostSlots. */
export class PgHostGate implements PoliteGate {
  /** Hosts whose slots (this many) are known to exist. */
  private readonly ready = new Map<string, number>();
  /** Slots held for the next request to their host (no delay). */
  private readonly kept = new Map<string, Taken[]>();

  constructor(
    private readonly slots: HostSlots,
    private readonly jobId: string,
    private readonly perHost: number,
    private readonly signal: AbortSignal,
    /** The slots this worker holds now: its heartbeat renews them. */
    private readonly holding: Set<HostSlot>,
    private readonly log: (line: string) => void,
  ) {}

  async run<T>(url: string, delayMs: number, task: () => Promise<T>): Promise<T> {
    const host = new URL(url).hostname;
    let taken = delayMs > 0 ? undefined : this.kept.get(host)?.pop();
    if (taken) clearTimeout(taken.idle);
    else taken = { held: await this.take(host, delayMs > 0 ? 1 : this.perHost, delayMs), at: performance.now() };
    try {
      return await task();
    } finally {
      if (delayMs === 0 && !this.signal.aborted && performance.now() - taken.at < KEEP_MS) this.keep(host, taken);
      else await this.free(taken.held);
    }
  }

  /** Frees the slots kept for next requests (the job ended here). */
  async close(): Promise<void> {
    const kept = [...this.kept.values()].flat();
    this.kept.clear();
    for (const taken of kept) clearTimeout(taken.idle);
    await Promise.all(kept.map((taken) => this.free(taken.held)));
  }

  private keep(host: string, taken: Taken): void {
    const kept = this.kept.get(host) ?? [];
    this.kept.set(host, kept);
    kept.push(taken);
    taken.idle = setTimeout(() => {
      const at = kept.indexOf(taken);
      if (at < 0) return;
      kept.splice(at, 1);
      void this.free(taken.held);
    }, KEEP_IDLE_MS);
  }

  private async free(held: HostSlot): Promise<void> {
    this.holding.delete(held);
    // Not freed (the database gone for long): the slot frees itself when its lease runs out.
    await retrying(() => this.slots.free(held)).catch((err: unknown) => this.log(`cannot free a slot of ${held.host}: ${errorMessage(err)}; it frees itself when its lease runs out`));
  }

  private async take(host: string, limit: number, delayMs: number): Promise<HostSlot> {
    if ((this.ready.get(host) ?? 0) < limit) {
      await retrying(() => this.slots.add(this.jobId, host, limit));
      this.ready.set(host, limit);
    }
    for (let tries = 0; ; tries++) {
      this.signal.throwIfAborted();
      const taken = await retrying(() => this.slots.take(this.jobId, host, limit, delayMs));
      if (taken) {
        this.holding.add(taken.held);
        try {
          if (taken.waitMs > 0) await sleep(Math.ceil(taken.waitMs), undefined, { signal: this.signal });
          return taken.held;
        } catch (err) {
          await this.free(taken.held);
          throw err;
        }
      }
      // Held by other requests, here or on other workers: asked again soon, then less often.
      await sleep(RETRY_MS[Math.min(tries, RETRY_MS.length - 1)], undefined, { signal: this.signal });
    }
  }
}
