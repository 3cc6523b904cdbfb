/**
 * Owners of jobs and their leases, as every job store sees them: a job names the
 * process responsible for moving it forward, which holds a lease it renews while
 * it lives (the file store: store/leases.ts, OwnerLeases below; PostgreSQL leases
 * each page and job it hands out instead: Held in pg/workStore.ts). An owner whose lease ran out is gone, and its work is
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
