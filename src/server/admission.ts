/**
 * Which API key may see which job, and whether a key may start one more: the
 * part of `serve` that differs between one machine (owners.jsonl and starts of
 * a key taken one at a time in this process) and many (PostgreSQL, where the
 * count and the insert share one transaction under a per-key lock).
 */
import type { JobBackend } from '../api/backend.js';
import { TooManyJobsError, UnsupportedError } from '../api/errors.js';
import { isFinal, type JobHandle, type JobKind, type JobRequestByKind, type JobStatusObject } from '../api/types.js';
import type { PgBackend } from '../pg/backend.js';
import type { JobOwners } from './owners.js';

export interface Admission {
  owns(keyId: string, jobId: string): Promise<boolean>;
  jobs(keyId: string): Promise<readonly string[]>;
  /** Starts the job for the key, or throws TooManyJobsError when it has `maxActive` pending or running. */
  start<K extends JobKind>(keyId: string, maxActive: number, kind: K, request: JobRequestByKind[K]): Promise<JobHandle>;
  /** Resumes the key's job (webjobs resume), or throws TooManyJobsError as start does: it is active again. */
  resume(keyId: string, maxActive: number, jobId: string, kind: JobKind): Promise<JobStatusObject>;
}

/** One serve on the file store. */
export class FileAdmission implements Admission {
  private readonly startLocks = new Map<string, Promise<unknown>>();
  private readonly finished = new Set<string>();

  constructor(
    private readonly owners: JobOwners,
    private readonly backend: JobBackend,
  ) {}

  async owns(keyId: string, jobId: string): Promise<boolean> {
    return this.owners.owns(keyId, jobId);
  }

  async jobs(keyId: string): Promise<readonly string[]> {
    return this.owners.jobs(keyId);
  }

  /** Starts of one key run one at a time, so two at once cannot both slip under the 429 limit. */
  start<K extends JobKind>(keyId: string, maxActive: number, kind: K, request: JobRequestByKind[K]): Promise<JobHandle> {
    return this.inTurn(keyId, async () => {
      if ((await this.activeJobs(keyId)) >= maxActive) throw TooManyJobsError.forKey(maxActive);
      const handle = await this.backend.start(kind, request, { tenant: keyId });
      await this.owners.add(handle.jobId, keyId);
      return handle;
    });
  }

  resume(keyId: string, maxActive: number, jobId: string, kind: JobKind): Promise<JobStatusObject> {
    return this.inTurn(keyId, async () => {
      if (!this.backend.resume) throw UnsupportedError.of('resume', 'this server');
      if ((await this.activeJobs(keyId)) >= maxActive) throw TooManyJobsError.forKey(maxActive);
      const resumed = await this.backend.resume(jobId, kind, { tenant: keyId });
      this.finished.delete(jobId);
      return resumed;
    });
  }

  private inTurn<T>(keyId: string, run: () => Promise<T>): Promise<T> {
    const next = (this.startLocks.get(keyId) ?? Promise.resolve()).then(run, run);
    this.startLocks.set(keyId, next.catch(() => undefined));
    return next;
  }

  private async activeJobs(keyId: string): Promise<number> {
    let active = 0;
    for (const jobId of this.owners.jobs(keyId)) {
      if (this.finished.has(jobId)) continue;
      const status = await this.backend.status(jobId).then((s) => s.status, () => 'failed' as const);
      if (isFinal(status)) this.finished.add(jobId);
      else active++;
    }
    return active;
  }
}

/** Any number of serve nodes on one PostgreSQL. */
export class PgAdmission implements Admission {
  constructor(private readonly backend: PgBackend) {}

  owns(keyId: string, jobId: string): Promise<boolean> {
    return this.backend.owns(keyId, jobId);
  }

  jobs(keyId: string): Promise<readonly string[]> {
    return this.backend.jobsOf(keyId);
  }

  start<K extends JobKind>(keyId: string, maxActive: number, kind: K, request: JobRequestByKind[K]): Promise<JobHandle> {
    return this.backend.startOwned(kind, request, { key: keyId, maxActive });
  }

  resume(keyId: string, maxActive: number, jobId: string, kind: JobKind): Promise<JobStatusObject> {
    return this.backend.resumeOwned(jobId, kind, { key: keyId, maxActive });
  }
}
