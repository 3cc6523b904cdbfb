/** Start a job, wait for it with progress on stderr, and hand back the back end to read the result. */
import type { JobBackend, JobProgress, WaitOptions } from '../api/backend.js';
import { JobFailedError } from '../api/errors.js';
import type { JobKind, JobRecordByKind, JobRequestByKind, JobStatus } from '../api/types.js';
import { withBackend } from './backendFactory.js';
import type { RunFlags } from './options.js';
import { writeOutput } from './output.js';
import { startProgress } from './terminal.js';

export interface FinishedJob {
  backend: JobBackend;
  jobId: string;
  status: JobStatus;
}

export interface RunJobOptions {
  /** What the spinner says while the job runs. */
  label: string;
  describeProgress?: (progress: JobProgress, elapsedMs: number) => string;
  onPage?: WaitOptions['onPage'];
}

/**
 * Runs a job to its end and calls `render` with the finished job. With --no-wait
 * it prints the job id instead. The back end is closed however this ends.
 */
export async function runJob<K extends JobKind>(
  kind: K,
  request: JobRequestByKind[K],
  flags: RunFlags,
  options: RunJobOptions,
  render: (job: FinishedJob) => Promise<number>,
): Promise<number> {
  return withBackend(flags, async (backend) => {
    // With --wait-timeout the job must outlive this process when the wait runs out, so locally it runs in a worker.
    const detach = !flags.wait || flags.waitTimeout !== undefined;
    const { jobId } = await backend.start(kind, request, { detach });
    if (!flags.wait) {
      await writeOutput(jobId);
      return 0;
    }
    const progress = await startProgress(options.label);
    const started = Date.now();
    let status: JobStatus;
    try {
      status = await backend.wait(kind, jobId, {
        timeoutMs: flags.waitTimeout !== undefined ? flags.waitTimeout * 1000 : undefined,
        onProgress: options.describeProgress
          ? (p) => progress.update(options.describeProgress!(p, Date.now() - started))
          : undefined,
        onPage: options.onPage,
      });
    } finally {
      progress.stop();
    }
    return render({ backend, jobId, status });
  });
}

/**
 * How a one-record job (scrape, extract) ends on the CLI: with --json the record
 * as it is, failed or not; otherwise `text(record)` of a completed job. A job that
 * did not complete fails the command after its record was printed.
 */
export function renderRecord<K extends 'scrape' | 'extract'>(
  kind: K,
  flags: Pick<RunFlags, 'json' | 'output'>,
  what: (jobId: string) => string,
  text: (record: JobRecordByKind[K]) => string,
): (job: FinishedJob) => Promise<number> {
  return async ({ backend, jobId }) => {
    const record = await backend.result(kind, jobId);
    if (flags.json) await writeOutput(JSON.stringify(record, null, 2), flags.output);
    if (record.status !== 'completed') throw new JobFailedError(`${what(jobId)} ${record.status}: ${record.error ?? 'no reason given'}`);
    if (!flags.json) await writeOutput(text(record), flags.output);
    return 0;
  };
}
