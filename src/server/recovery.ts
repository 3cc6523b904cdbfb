/**
 * What a starting server does with the jobs a previous server left unfinished
 * in the same WEBJOBS_HOME (after a crash, a kill or a graceful stop):
 *   pending  nothing was done yet: resumed, queued again in submission order
 *   running  half done: failed, with an error that says why
 * It runs before the store's own dead-owner check could fail pending jobs, and
 * it also covers what that check cannot see: a container restart where the new
 * server has the old one's pid (often 1) or another host name.
 */
import os from 'node:os';
import { isProcessAlive } from '../api/processes.js';
import type { JobMeta, JobStore } from '../store/jobStore.js';

export const INTERRUPTED_MESSAGE =
  'interrupted: webjobs serve stopped while this job was running (crash, kill or restart); start the job again';

/** A detached `webjobs scrape --no-wait` worker still at work: not ours to touch. */
function ownedByAnotherLiveProcess(meta: JobMeta): boolean {
  return meta.owner.host === os.hostname() && meta.owner.pid !== process.pid && isProcessAlive(meta.owner.pid);
}

export interface Recovered {
  resumed: string[];
  failed: string[];
}

/**
 * Goes by ids and updates each job under its lock, because reading through the
 * store would already mark every orphaned pending job failed.
 */
export async function recoverJobs(store: JobStore, enqueue: (jobId: string) => void): Promise<Recovered> {
  const names = await store.ids();
  const toResume: { jobId: string; createdAt: string }[] = [];
  const failed: string[] = [];
  for (const jobId of names) {
    // A finished job needs nothing: its header says so without reading (or rewriting) a large record.
    const header = await store.storedHeader(jobId).catch(() => undefined);
    if (header && header.status !== 'pending' && header.status !== 'running') continue;
    await store
      .update(jobId, (record, meta) => {
        if (record.status !== 'pending' && record.status !== 'running') return;
        if (ownedByAnotherLiveProcess(meta)) return;
        meta.owner = { pid: process.pid, host: os.hostname() };
        if (record.status === 'running') {
          record.status = 'failed';
          record.error = INTERRUPTED_MESSAGE;
          failed.push(jobId);
        } else {
          toResume.push({ jobId, createdAt: meta.createdAt });
        }
      })
      .catch(() => undefined);
  }
  toResume.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  for (const { jobId } of toResume) enqueue(jobId);
  return { resumed: toResume.map((j) => j.jobId), failed };
}
