/**
 * Owners of jobs and their leases, as every job store sees them: a job names the
 * process responsible for moving it forward, which holds a lease it renews while
 * it lives (the file store: store/leases.ts; PostgreSQL leases each job and page
 * it takes: pg/workStore.ts). An owner whose lease ran out is gone, and its work is
 * free to take over.
 *
 * The model is Crawlee's RequestQueueClient (listAndLockHead, prolongRequestLock,
 * deleteRequestLock): the lease is part of the store's contract, not of a
 * process's life, so that work outlives whoever held it.
 */
import { ConfigError } from '../api/errors.js';

/** The process responsible for moving a job forward. */
export interface JobOwner {
  pid: number;
  host: string;
  /** The id of the owner's lease; absent in records older than leases. */
  lease?: string;
}

/** The part of a job store that says who owns jobs and whether they still live. */
export interface OwnerLeases {
  /** This process as an owner; its lease is taken on first call and renewed until release(). */
  self(): Promise<JobOwner>;
  /** Whether `owner` may still move its jobs forward. */
  isAlive(owner: JobOwner): Promise<boolean>;
  /** Gives the lease up: this process's unfinished jobs are free to take over at once. */
  release(): Promise<void>;
}

export const DEFAULT_LEASE_MS = 30_000;

/** WEBJOBS_LEASE_SECONDS (also the lease of a PostgreSQL worker's pages), in ms. */
export function leaseMs(env: NodeJS.ProcessEnv = process.env): number {
  if (env.WEBJOBS_LEASE_SECONDS === undefined) return DEFAULT_LEASE_MS;
  const seconds = Number(env.WEBJOBS_LEASE_SECONDS);
  if (!Number.isInteger(seconds) || seconds < 2) throw new ConfigError('WEBJOBS_LEASE_SECONDS must be a whole number of seconds, at least 2');
  return seconds * 1000;
}

/** A piece of work held on a lease: page `index` of a batch or crawl, or a whole scrape/extract job (no index), at one attempt. */
export interface Held {
  jobId: string;
  index?: number;
  /** Deliveries so far: a write by an earlier attempt, whose lease was taken back, is fenced off. */
  attempt: number;
}

/**
 * The leases of work a store hands out page by page (PostgreSQL: PgJobStore, whose beginPage and beginJob take
 * work on a lease). The file store runs a job's pages in the process that owns the job, on that process's lease
 * (OwnerLeases); its page-by-page implementation is still to come.
 */
export interface WorkLeases {
  /** Extends the leases of work still held by its attempt (prolongRequestLock); one taken back meanwhile stays taken. */
  renew(held: readonly Held[]): Promise<void>;
  /** Hands held work back at once, as an expired lease would be (deleteRequestLock); `reason` is kept for the error if its attempts run out. */
  requeue(held: Held, reason: string): Promise<void>;
  /** Takes back work whose lease ran out (its holder died, froze or was cut off) so it runs again; returns how many. */
  reapExpired(): Promise<number>;
}
