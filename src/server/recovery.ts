/**
 * What a starting server does with the jobs a previous server left unfinished
 * in the same WEBJOBS_HOME (after a crash, a kill or a graceful stop):
 *   pending  nothing was done yet: resumed, queued again in submission order
 *   running  half done: failed, with an error that says why, and marked
 *            interrupted: a batch or crawl goes on with `webjobs resume`
 * A job is taken over when its owner's lease (store/leases.ts) has run out or
 * was given up, whatever its old process id still answers (a zombie, a pid
 * reused by another program, a container restart where the new server has the
 * old one's pid). A job whose owner still holds its lease (a detached
 * `webjobs scrape --no-wait` worker at work, or a server killed a moment ago on
 * another machine) is not ours: it is looked at again while its lease could
 * run out (watchOrphans). This runs before the store's own dead-owner check
 * could fail pending jobs.
 */
import type { JobKind } from '../api/types.js';
import type { OwnedJobStore } from '../jobs/jobStore.js';
import { interruptedError } from '../jobs/resume.js';

/** Why a job serve ran is failed after serve went away with it (a batch or crawl may go on with webjobs resume). */
export const interruptedByServe = (kind: JobKind, jobId: string): string =>
  interruptedError('webjobs serve stopped while this job was running (crash, kill or restart)', kind, jobId);

export interface Recovered {
  resumed: string[];
  failed: string[];
  /** Unfinished jobs whose owner still holds its lease. */
  waiting: string[];
}

/**
 * Goes by ids and updates each job under its lock, because reading through the
 * store would already mark every orphaned pending job failed.
 */
export async function recoverJobs(store: OwnedJobStore, enqueue: (jobId: string) => void, ids?: readonly string[]): Promise<Recovered> {
  const names = ids ?? (await store.ids());
  const self = await store.self();
  const toResume: { jobId: string; createdAt: string }[] = [];
  const failed: string[] = [];
  const waiting: string[] = [];
  for (const jobId of names) {
    // A finished job needs nothing: its header says so without reading (or rewriting) a large record.
    const header = await store.storedHeader(jobId).catch(() => undefined);
    if (!header || (header.status !== 'pending' && header.status !== 'running')) continue;
    if (header.owner.lease === self.lease) continue;
    // Records older than leases name only a process: one with our pid is a previous incarnation of this server.
    const legacyOurs = header.owner.lease === undefined && header.owner.host === self.host && header.owner.pid === self.pid;
    if (!legacyOurs && (await store.ownerAlive(header.owner))) {
      waiting.push(jobId);
      continue;
    }
    const judged = header.owner;
    await store
      .update(jobId, (record, meta) => {
        if (record.status !== 'pending' && record.status !== 'running') return;
        // Another server may have taken it meanwhile: only the owner judged gone is replaced.
        if (meta.owner.pid !== judged.pid || meta.owner.lease !== judged.lease) return;
        meta.owner = self;
        if (record.status === 'running') {
          record.status = 'failed';
          record.error = interruptedByServe(meta.kind, jobId);
          meta.interrupted = true;
          failed.push(jobId);
        } else {
          toResume.push({ jobId, createdAt: meta.createdAt });
        }
      })
      .catch(() => undefined);
  }
  toResume.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  for (const { jobId } of toResume) enqueue(jobId);
  return { resumed: toResume.map((j) => j.jobId), failed, waiting };
}

/**
 * Looks again, every `everyMs`, at the jobs recovery left to an owner still
 * holding its lease, and takes over those whose lease has run out since.
 * Returns the stop of the watch.
 */
export function watchOrphans(
  store: OwnedJobStore,
  waiting: readonly string[],
  enqueue: (jobId: string) => void,
  everyMs: number,
  log: (line: string) => void,
): () => void {
  let left = [...waiting];
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void recoverJobs(store, enqueue, left)
      .then((recovered) => {
        left = recovered.waiting;
        if (recovered.resumed.length + recovered.failed.length > 0) {
          log(`took over jobs whose owner's lease ran out: ${recovered.resumed.length} pending resumed, ${recovered.failed.length} interrupted marked failed`);
        }
        if (left.length === 0) clearInterval(timer);
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

