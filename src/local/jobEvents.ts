/**
 * How a waiter learns of a local job's progress: the events of the jobs this
 * process runs (JobEvents), and, for a job another process runs (a detached
 * worker), the store watched until the job ends (waitByPolling).
 */
import { EventEmitter } from 'node:events';
import type { JobProgress, WaitOptions } from '../api/backend.js';
import { WaitTimeoutError } from '../api/errors.js';
import { isFinal, type JobKind, type JobStatus, type PageEntry } from '../api/types.js';
import type { OwnedJobStore, StoredJob } from '../jobs/jobStore.js';
import { entryCount } from './records.js';

/** How often a job run by another process is read again from the store. */
const POLL_MS = 200;
/** Entries read at once when a finished job's pages are told to a waiter. */
const REPLAY_BATCH = 100;

/** The events of the jobs this process runs: each page stored, the pages found, the job's status. */
export class JobEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  page(jobId: string, entry: PageEntry, index: number): void {
    this.emitter.emit(`page:${jobId}`, entry, index);
  }

  discovered(jobId: string, count: number): void {
    this.emitter.emit(`discovered:${jobId}`, count);
  }

  progress(jobId: string, progress: JobProgress): void {
    this.emitter.emit(`progress:${jobId}`, progress);
  }

  /** Resolves with the job's final status, telling `options` each page and count on the way. */
  wait(jobId: string, options: WaitOptions): Promise<JobStatus> {
    return new Promise((resolve, reject) => {
      let done = 0;
      let failed = 0;
      let discovered: number | undefined;
      const onPage = (entry: PageEntry, index: number) => {
        done++;
        if (entry.status === 'failed') failed++;
        options.onPage?.(entry, index);
        options.onProgress?.({ status: 'running', done, failed, discovered });
      };
      const onProgress = (progress: JobProgress) => {
        options.onProgress?.({ ...progress, done: Math.max(done, progress.done), failed, discovered });
        if (isFinal(progress.status)) finish(() => resolve(progress.status));
      };
      const onDiscovered = (count: number) => {
        if (count === discovered) return;
        discovered = count;
        options.onProgress?.({ status: 'running', done, failed, discovered });
      };
      const timer =
        options.timeoutMs !== undefined
          ? setTimeout(() => finish(() => reject(new WaitTimeoutError(jobId, options.timeoutMs!))), options.timeoutMs)
          : undefined;
      const finish = (then: () => void) => {
        if (timer) clearTimeout(timer);
        this.emitter.off(`page:${jobId}`, onPage);
        this.emitter.off(`progress:${jobId}`, onProgress);
        this.emitter.off(`discovered:${jobId}`, onDiscovered);
        then();
      };
      this.emitter.on(`page:${jobId}`, onPage);
      this.emitter.on(`progress:${jobId}`, onProgress);
      this.emitter.on(`discovered:${jobId}`, onDiscovered);
    });
  }
}

/** For a job another process runs (a detached worker): watch the store until it ends. */
export async function waitByPolling(store: OwnedJobStore, kind: JobKind, jobId: string, options: WaitOptions): Promise<JobStatus> {
  const started = Date.now();
  for (;;) {
    const job = await store.read(jobId);
    const status = job.record.status;
    options.onProgress?.({ status, done: entryCount(job), failed: 0 });
    if (isFinal(status)) {
      if (options.onPage && (kind === 'batch' || kind === 'crawl')) await replayPages(store, job, options.onPage);
      return status;
    }
    if (options.timeoutMs !== undefined && Date.now() - started >= options.timeoutMs) {
      throw new WaitTimeoutError(jobId, options.timeoutMs);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function replayPages(store: OwnedJobStore, job: StoredJob, onPage: NonNullable<WaitOptions['onPage']>): Promise<void> {
  const total = entryCount(job);
  for (let start = 0; start < total; start += REPLAY_BATCH) {
    const entries = await store.readPages(job.meta.jobId, start, Math.min(REPLAY_BATCH, total - start));
    entries.forEach((entry, i) => {
      if (entry) onPage(entry, start + i);
    });
  }
}
