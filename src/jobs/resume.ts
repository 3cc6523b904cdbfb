/**
 * Which jobs `webjobs resume` may continue, on every back end: a batch or crawl
 * that was stopped (Ctrl-C, SIGTERM, a cancel) or interrupted (its process was
 * killed, crashed, or the machine rebooted). A job that completed, failed on its
 * own, or still runs is refused, and so is a scrape or extract (one page: run it
 * again with webjobs retry). Compare Scrapy's JOBDIR.
 */
import { NotResumableError } from '../api/errors.js';
import { isFinal, type JobKind, type JobStatus } from '../api/types.js';

export const RESUMABLE_KINDS: readonly JobKind[] = ['batch', 'crawl'];

/** What a job says when its process went away: why (`what`), and how to go on. */
export function interruptedError(what: string, kind: JobKind, jobId: string): string {
  const next = RESUMABLE_KINDS.includes(kind) ? `go on with: webjobs resume ${jobId}` : 'start it again';
  return `interrupted: ${what}; ${next}`;
}

/**
 * Refuses with NotResumableError unless a job of `kind` in `status` may resume. `interrupted`: it failed by an
 * interruption, or (pending) its process went away before it began. `damaged`: entries of its store cannot be
 * read (DamagedPagesError), which a resume redoes.
 */
export function checkResumable(jobId: string, kind: JobKind, status: JobStatus, interrupted: boolean, damaged = false): void {
  if (!RESUMABLE_KINDS.includes(kind)) {
    throw new NotResumableError(`job ${jobId} is a ${kind} job; only batch and crawl jobs resume (run it again with: webjobs retry ${jobId})`);
  }
  if (status === 'stopped' || ((status === 'failed' || status === 'pending') && interrupted)) return;
  // Entries its store cannot read (DamagedPagesError) are redone, whatever the job's end.
  if (damaged && isFinal(status)) return;
  if (status === 'completed') throw new NotResumableError(`${kind} job ${jobId} completed; there is nothing to resume`);
  if (status === 'failed') throw new NotResumableError(`${kind} job ${jobId} failed on its own, not by an interruption; start it again (webjobs retry ${jobId} runs its failed pages)`);
  throw new NotResumableError(`${kind} job ${jobId} is still ${status}; wait for it (webjobs wait ${jobId}) or cancel it first`);
}
