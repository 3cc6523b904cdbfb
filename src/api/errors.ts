/**
 * Every failure webjobs reports is one of these classes. Each carries the exit
 * code the CLI uses and the HTTP status `serve` answers with, so the mapping
 * lives here once instead of at every place that catches an error.
 */
export const ExitCode = {
  ok: 0,
  jobFailed: 1,
  usage: 2,
  partial: 3,
  notFound: 4,
  waitTimeout: 5,
  environment: 6,
  remote: 7,
  damaged: 8,
  unsupported: 9,
  /** --exit-code: the job went well and a page changed since the last run (new, changed or, in a crawl, removed), as git diff --exit-code's 1. */
  changed: 10,
  /** `webjobs resume`: the job cannot go on (it completed, failed on its own, still runs, or is no batch or crawl). */
  notResumable: 11,
  /** `webjobs cancel` of a job that had already ended (completed, failed or stopped): nothing was cancelled. */
  alreadyEnded: 12,
  /** 128 + the signal's number, as shells report a process ended by a signal. */
  hangup: 129,
  interrupted: 130,
  /** stdout was closed by its reader (`| head`): 128 + SIGPIPE, what cat's death by SIGPIPE reports. */
  outputClosed: 141,
  terminated: 143,
} as const;

export abstract class WebjobsError extends Error {
  abstract readonly exitCode: number;
  abstract readonly httpStatus: number;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad input from the user: a flag, a URL, a schema, a request body. */
export class UsageError extends WebjobsError {
  readonly exitCode = ExitCode.usage;
  readonly httpStatus = 400;
}

/** A request that is well-formed but breaks a limit of the job API (docs/api.md#limits). */
export class LimitError extends UsageError {}

export class JobNotFoundError extends WebjobsError {
  readonly exitCode = ExitCode.notFound;
  readonly httpStatus = 404;
  constructor(readonly jobId: string) {
    super(`No job with id ${jobId}. List known jobs with: webjobs jobs`);
  }
}

/** The id is a job of another kind than the one asked for (a scrape id at a crawl endpoint, `--kind crawl`). */
export class WrongKindError extends JobNotFoundError {
  constructor(jobId: string, readonly actual: string, readonly asked: string) {
    super(jobId);
    this.message = `job ${jobId} is a ${actual} job, not a ${asked} job`;
  }
}

/**
 * A stored job whose record cannot be read (cut short by a crash or a full
 * disk): its state is unknown. Only that job is affected.
 */
export class DamagedRecordError extends WebjobsError {
  readonly exitCode = ExitCode.damaged;
  readonly httpStatus = 500;
  /** How `serve` names this error on the wire (`code` beside `message`), so a remote client can rethrow it. */
  static readonly code = 'damaged_record';

  static ofFile(jobId: string, file: string): DamagedRecordError {
    return new DamagedRecordError(`the record of job ${jobId} is damaged (${file} is not valid JSON); its state is unknown`);
  }

  /** A job folder that lacks one of the files every job has (removed by hand, or lost with the disk). */
  static missing(jobId: string, file: string): DamagedRecordError {
    return new DamagedRecordError(`the record of job ${jobId} is damaged (${file} is missing); its state is unknown`);
  }

  /** Something named like a job in the store that is not a job's folder (a plain file). */
  static notAFolder(jobId: string): DamagedRecordError {
    return new DamagedRecordError(`the record of job ${jobId} is damaged (jobs/${jobId} is a file, not a job's folder); its state is unknown`);
  }

  /** A job's folder replaced by a symbolic link: what it points at is not ours to read or write. */
  static symlinked(jobId: string): DamagedRecordError {
    return new DamagedRecordError(`the record of job ${jobId} is damaged (jobs/${jobId} is a symbolic link, not a job's folder); it is neither read nor written through`);
  }
}

/**
 * A batch's or crawl's page entries that cannot be read (store/pageLog.ts: pages.jsonl cut short or gone,
 * pages.idx emptied, garbled or pointing at the wrong bytes): the job's record is sound, so `webjobs resume`
 * mends the store and redoes the entries lost, and `webjobs retry` runs them again.
 */
export class DamagedPagesError extends DamagedRecordError {
  /** `file` (pages.jsonl or pages.idx) and what is wrong with it (`why`, said after the file's name). */
  static of(jobId: string, file: string, why: string): DamagedPagesError {
    return new DamagedPagesError(
      `the record of job ${jobId} is damaged (${file} ${why}); webjobs resume ${jobId} redoes the entries that cannot be read`,
    );
  }
}

/** Why the disk refused a write, for the error codes that mean there is no room. */
const NO_ROOM: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
};

/**
 * The job store could not be written because its disk has no room left (ENOSPC,
 * EDQUOT). The job that hit it fails with this message; what was half written is
 * removed; the rest of the store stays readable. HTTP 507 Insufficient Storage.
 */
export class StoreFullError extends WebjobsError {
  readonly exitCode = ExitCode.jobFailed;
  readonly httpStatus = 507;
  /** How `serve` names this error on the wire, so a remote client can rethrow it. */
  static readonly code = 'store_full';

  /** `err` as a StoreFullError when it says the disk has no room; undefined for any other error. */
  static of(err: unknown, file: string): StoreFullError | undefined {
    if (err instanceof StoreFullError) return err;
    const why = NO_ROOM[(err as NodeJS.ErrnoException | undefined)?.code ?? ''];
    return why ? new StoreFullError(`could not write ${file}: ${why}; free some space (webjobs prune deletes old jobs)`) : undefined;
  }
}

/**
 * `webjobs resume` of a job that cannot go on: it completed, failed on its own
 * (not by an interruption), still runs, or is a scrape or extract. Nothing changed.
 * 409 Conflict: the job's state, not the request, is in the way.
 */
export class NotResumableError extends WebjobsError {
  readonly exitCode = ExitCode.notResumable;
  readonly httpStatus = 409;
  /** How `serve` names this error on the wire, so a remote client can rethrow it. */
  static readonly code = 'not_resumable';
}

/** `webjobs cancel` of a job that had already ended: nothing to stop, nothing changed (the CLI's own check). */
export class JobEndedError extends WebjobsError {
  readonly exitCode = ExitCode.alreadyEnded;
  readonly httpStatus = 409;
}

/** The job ran and ended as failed; the message is the job's own error. */
export class JobFailedError extends WebjobsError {
  readonly exitCode = ExitCode.jobFailed;
  readonly httpStatus = 500;
}

/** Something on this machine is missing or misconfigured: a browser, an API key, a proxy. */
export class EnvironmentError extends WebjobsError {
  readonly exitCode = ExitCode.environment;
  readonly httpStatus = 500;
}

/** A required setting (API key, proxy URL, solver) is absent: the job cannot start. */
export class ConfigError extends WebjobsError {
  readonly exitCode = ExitCode.usage;
  readonly httpStatus = 400;
}

export class WaitTimeoutError extends WebjobsError {
  readonly exitCode = ExitCode.waitTimeout;
  readonly httpStatus = 504;
  constructor(readonly jobId: string, waitedMs: number) {
    super(`Stopped waiting after ${Math.round(waitedMs / 1000)}s; job ${jobId} goes on. Read it later with: webjobs result ${jobId}`);
  }
}

/** The remote service answered with an error, or could not be reached. */
export class RemoteError extends WebjobsError {
  readonly exitCode = ExitCode.remote;
  constructor(message: string, readonly httpStatus: number = 502) {
    super(message);
  }
}

/**
 * The search engine `webjobs search` asks (SearXNG, Brave) failed, could not be reached or did not answer in
 * time: exit 7, as a remote service. serve answers 502 (504 for time) with this code, which a remote client
 * reports at once instead of retrying as it retries a 502 of a proxy.
 */
export class SearchEngineError extends RemoteError {
  static readonly code = 'search_engine';
}

export class AuthError extends WebjobsError {
  readonly exitCode = ExitCode.usage;
  readonly httpStatus = 401;
}

export class PlanError extends WebjobsError {
  readonly exitCode = ExitCode.usage;
  readonly httpStatus = 402;
}

/**
 * A feature this back end lacks (map on PostgreSQL, say), named: refused
 * before anything starts, never silently ignored. 501: the request is right, the
 * server cannot do it; another back end (the file store) can.
 */
export class UnsupportedError extends WebjobsError {
  readonly exitCode = ExitCode.unsupported;
  readonly httpStatus = 501;

  /** `feature` is not available on `backend` ("PostgreSQL (serve --database)"). */
  static of(feature: string, backend: string): UnsupportedError {
    return new UnsupportedError(`${feature} is not supported on ${backend}`);
  }
}

export class TooManyJobsError extends WebjobsError {
  readonly exitCode = ExitCode.remote;
  readonly httpStatus = 429;
  /** Seconds a client should wait before trying again (the Retry-After header). */
  constructor(message: string, readonly retryAfterSeconds = 5) {
    super(message);
  }

  /** The answer to a key that already has `maxActive` jobs pending or running (serve on either store). */
  static forKey(maxActive: number): TooManyJobsError {
    return new TooManyJobsError(`too many jobs at once: this API key has ${maxActive} pending or running; wait for one to finish`);
  }
}

/**
 * The job database (`serve --database`) cannot be reached: down, restarting or
 * cut off. Answered 503 with Retry-After, which `--remote` clients retry.
 */
export class DatabaseUnavailableError extends WebjobsError {
  readonly exitCode = ExitCode.environment;
  readonly httpStatus = 503;
  /** Seconds a client should wait before trying again (the Retry-After header). */
  readonly retryAfterSeconds = 5;
}

/**
 * `webjobs serve` shut down while a request waited on a job (a Firecrawl
 * scrape, answered in the request). A CLI in remote mode sees the 503.
 */
export class ServeShutDownError extends WebjobsError {
  readonly exitCode = ExitCode.remote;
  readonly httpStatus = 503;
  constructor(jobId: string) {
    super(`webjobs serve shut down while this request waited for job ${jobId}`);
  }
}

/**
 * The CLI was stopped by a signal (Ctrl-C, SIGTERM, SIGHUP) while it waited for
 * a job; the job was cancelled. Only the CLI raises it: it never reaches `serve`.
 */
export class InterruptedError extends WebjobsError {
  /** 499: nginx's "client closed request", the nearest thing HTTP has. */
  readonly httpStatus = 499;
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

/**
 * Whoever read stdout closed it (`webjobs batch … | head -2`). Not a failure to
 * report: the CLI ends quietly, as cat does.
 */
export class OutputClosedError extends WebjobsError {
  readonly exitCode = ExitCode.outputClosed;
  readonly httpStatus = 499;
  constructor() {
    super('stdout was closed');
  }
}

/**
 * The CLI could not write its output (-o to a full disk, /dev/full, a file in
 * /proc, --output-dir's files): the job ran, its result is kept in the store.
 */
export class OutputWriteError extends WebjobsError {
  readonly exitCode = ExitCode.jobFailed;
  readonly httpStatus = 500;

  /** "cannot write out.md: no space left on device (ENOSPC)", from a Node error. */
  static of(name: string, err: unknown): OutputWriteError {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    // Node's message is "ENOSPC: no space left on device, write": the reason alone, then its code.
    const reason = /^[A-Z]+: ([^,]+)/.exec(errorMessage(err))?.[1] ?? errorMessage(err);
    return new OutputWriteError(`cannot write ${name}: ${reason}${code ? ` (${code})` : ''}`);
  }
}

/** A failure while fetching or processing one page; it ends up in that page's `error`. */
export class PageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PageError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
