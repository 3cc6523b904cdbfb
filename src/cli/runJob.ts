/** Start a job, wait for it with progress on stderr, and hand back the back end to read the result. */
import type { JobBackend, JobProgress, StartOptions, WaitOptions } from '../api/backend.js';
import { errorMessage, InterruptedError, JobFailedError, OutputClosedError, UsageError } from '../api/errors.js';
import type { JobHandle, JobKind, JobRecordByKind, JobRequestByKind, JobStatus } from '../api/types.js';
import { withBackend } from './backendFactory.js';
import type { RunFlags } from './options.js';
import { resolveOutput, writeOutput } from './output.js';
import { exitCodeOf, watchSignals, type StopReason } from './interrupt.js';
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
  /** After an interrupt stopped the job: what was done, e.g. "43 of 200 pages done". */
  describeStopped?: (backend: JobBackend, jobId: string) => Promise<string>;
  /** After an interrupt stopped the job, before the command ends: write what is done (--output-dir's index). */
  onStopped?: (job: FinishedJob) => Promise<void>;
  /** Once the job exists, before it is waited for (batch and crawl keep their output options for a resume). */
  onStarted?: (jobId: string) => Promise<void>;
  /** How the job starts, when it is not a new one of `request` (webjobs resume: an old job goes on). */
  start?: (backend: JobBackend, options: StartOptions) => Promise<JobHandle>;
}

/**
 * Runs a job to its end and calls `render` with the finished job. With --no-wait
 * it prints the job id instead. The back end is closed however this ends.
 *
 * A first Ctrl-C/SIGTERM/SIGHUP while the job runs cancels it (locally and on
 * the service alike: it ends `stopped`, pages done kept) and ends the command
 * with InterruptedError (exit 130/143/129) saying how to read what was done.
 */
export async function runJob<K extends JobKind>(
  kind: K,
  request: JobRequestByKind[K],
  flags: RunFlags,
  options: RunJobOptions,
  render: (job: FinishedJob) => Promise<number>,
): Promise<number> {
  if (!flags.wait && flags.output) throw new UsageError('--no-wait prints only the job id, so -o/--output would get nothing: drop one of them');
  // A bad -o fails now, not after the job ran.
  await resolveOutput(flags.output);
  return withBackend(flags, async (backend) => {
    const signals = watchSignals();
    try {
      // With --wait-timeout the job must outlive this process when the wait runs out, so locally it runs in a worker.
      const detach = !flags.wait || flags.waitTimeout !== undefined;
      let jobId: string | undefined;
      const canceller = new Canceller(backend, kind);
      signals.setStop(() => {
        if (jobId !== undefined) canceller.cancel(jobId);
      });
      jobId = (await (options.start ? options.start(backend, { detach }) : backend.start(kind, request, { detach }))).jobId;
      await options.onStarted?.(jobId);
      if (!flags.wait) {
        signals.setStop(undefined);
        await writeOutput(flags.json ? JSON.stringify({ jobId }) : jobId);
        return 0;
      }
      if (signals.received) canceller.cancel(jobId);
      const status = await waitWithProgress(backend, kind, jobId, flags, options, canceller.failed);
      signals.setStop(undefined);
      const job = { backend, jobId, status };
      if (signals.received) {
        const cancelError = await canceller.outcome;
        await options.onStopped?.(job);
        // A reader that closed stdout wants nothing more: no message, as cat.
        if (signals.received === 'stdout-closed') throw new OutputClosedError();
        throw await interrupted(job, kind, flags, signals.received, cancelError, options.describeStopped);
      }
      return await render(job);
    } finally {
      signals.dispose();
    }
  });
}

/** Cancels the job once, however many times asked, and tells how that went. */
class Canceller {
  /** Resolves with the error of a failed cancel, undefined after a good one; unset until asked. */
  outcome: Promise<unknown> | undefined;
  private fail!: () => void;
  /** Resolves if the cancel failed (service unreachable): the wait must not go on for ever then. */
  readonly failed = new Promise<void>((resolve) => (this.fail = resolve));

  constructor(private readonly backend: JobBackend, private readonly kind: JobKind) {}

  cancel(jobId: string): void {
    this.outcome ??= this.backend.cancel(jobId, this.kind).then(
      () => undefined,
      (err: unknown) => {
        this.fail();
        return err;
      },
    );
  }
}

/** Waits for the job's end with a spinner, or until `stopWaiting` resolves (then the status is unknown: 'running'). */
async function waitWithProgress(
  backend: JobBackend,
  kind: JobKind,
  jobId: string,
  flags: RunFlags,
  options: RunJobOptions,
  stopWaiting: Promise<void>,
): Promise<JobStatus> {
  const progress = await startProgress(options.label, flags);
  const started = Date.now();
  const waiting = backend.wait(kind, jobId, {
    timeoutMs: flags.waitTimeout !== undefined ? flags.waitTimeout * 1000 : undefined,
    onProgress: options.describeProgress ? (p) => progress.update(options.describeProgress!(p, Date.now() - started)) : undefined,
    onPage: options.onPage,
  });
  waiting.catch(() => undefined); // when stopWaiting wins, a later rejection has nobody to hear it
  try {
    return await Promise.race([waiting, stopWaiting.then((): JobStatus => 'running')]);
  } finally {
    progress.stop();
  }
}

async function interrupted(
  { backend, jobId, status }: FinishedJob,
  kind: JobKind,
  flags: RunFlags,
  signal: StopReason,
  cancelError: unknown,
  describe?: RunJobOptions['describeStopped'],
): Promise<InterruptedError> {
  const remote = flags.remote ? ` --remote ${flags.remote}` : '';
  const code = exitCodeOf(signal);
  if (cancelError !== undefined) {
    return new InterruptedError(
      `interrupted (${signal}); could not cancel ${kind} job ${jobId} (${errorMessage(cancelError)}), it may go on: webjobs cancel ${jobId}${remote}`,
      code,
    );
  }
  const done = describe ? `, ${await describe(backend, jobId).catch(() => 'pages done unknown')}` : '';
  const resume = kind === 'batch' || kind === 'crawl' ? ` or go on with: webjobs resume ${jobId}${remote}` : '';
  return new InterruptedError(`interrupted (${signal}): ${kind} job ${jobId} ${status}${done}; read it with: webjobs result ${jobId}${remote}${resume}`, code);
}

/**
 * How a one-record job (scrape, extract) ends on the CLI: with --json the record
 * as it is, failed or not; otherwise `text(record)` of a completed job (text, or
 * bytes written as they are: a screenshot). A job that did not complete fails the
 * command after its record was printed. `check` sees a completed record first: it
 * warns on stderr, throws to write nothing (--fail), or answers 'keep' to leave -o's file as it is.
 */
export function renderRecord<K extends 'scrape' | 'extract'>(
  kind: K,
  flags: Pick<RunFlags, 'json' | 'output'>,
  what: (jobId: string) => string,
  text: (record: JobRecordByKind[K]) => string | Promise<string | Uint8Array>,
  check?: (record: JobRecordByKind[K]) => void | 'keep',
): (job: FinishedJob) => Promise<number> {
  return async ({ backend, jobId }) => {
    const record = await backend.result(kind, jobId);
    // 'keep': -o's file stays as it is (an error page never replaces it); the check said why.
    if (record.status === 'completed' && check?.(record) === 'keep' && !flags.json) return 0;
    if (flags.json) await writeOutput(JSON.stringify(record, null, 2), flags.output);
    if (record.status !== 'completed') throw new JobFailedError(`${what(jobId)} ${record.status}: ${record.error ?? 'no reason given'}`);
    if (flags.json) return 0;
    await writeOutput(await text(record), flags.output);
    return 0;
  };
}
