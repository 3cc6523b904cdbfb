/**
 * What every HTTP front end of `webjobs serve` (the spec's /api, the
 * Firecrawl-compatible /v1 and /v2) does the same way: find the API key,
 * check a request against the spec's validation, the key's plan, the private
 * address refusal and the per-key limit of active jobs, start the job, record
 * its owner, and refuse another key's job as unknown.
 */
import type { JobBackend } from '../api/backend.js';
import { AuthError, JobNotFoundError, TooManyJobsError, UsageError } from '../api/errors.js';
import { requestUrls } from '../api/redact.js';
import { isFinal, type JobKind, type JobRequestByKind } from '../api/types.js';
import { validateJobId, validateRequest } from '../api/validate.js';
import type { ApiKey, KeyRing } from './keys.js';
import type { JobOwners } from './owners.js';
import { checkKindAllowed, checkRequestAllowed } from './plans.js';
import { literalRefusal, type AllowList } from './ssrf.js';

export interface GateOptions {
  backend: JobBackend;
  keys: KeyRing;
  owners: JobOwners;
  allowPrivate: boolean;
  allowHosts?: AllowList;
  maxActiveJobsPerKey: number;
}

export class JobGate {
  private readonly startLocks = new Map<string, Promise<unknown>>();
  /** Jobs known to have ended: never counted again. */
  private readonly finished = new Set<string>();

  constructor(private readonly options: GateOptions) {}

  /** The key `presented`, or an AuthError saying what is wrong; `where` tells a client how to send it. */
  authenticate(presented: string | undefined, where: string): ApiKey {
    const key = this.options.keys.find(presented);
    if (!key) throw new AuthError(presented ? 'invalid API key' : `missing API key: send it in ${where}`);
    return key;
  }

  /**
   * Validates `body` as a request of `kind` (the spec's names), checks it against
   * the key's plan, the private address refusal and the active-jobs limit, and
   * starts it. Any refusal throws before a job exists.
   */
  async start<K extends JobKind>(key: ApiKey, kind: K, body: unknown): Promise<{ jobId: string; request: JobRequestByKind[K] }> {
    checkKindAllowed(kind, key.plan);
    const request = validateRequest(kind, body);
    checkRequestAllowed(request, key.plan);
    this.refusePrivateUrls(requestUrls(request));
    return this.oneAtATime(key.id, async () => {
      const max = this.options.maxActiveJobsPerKey;
      if ((await this.activeJobs(key.id)) >= max) {
        throw new TooManyJobsError(`too many jobs at once: this API key has ${max} pending or running; wait for one to finish`);
      }
      const { jobId } = await this.options.backend.start(kind, request);
      await this.options.owners.add(jobId, key.id);
      return { jobId, request };
    });
  }

  /** The job id `raw`, if it names a job of this key; unknown ids and other keys' jobs look the same: 404. */
  ownedJobId(key: ApiKey, raw: string, kind?: JobKind): string {
    if (kind) checkKindAllowed(kind, key.plan);
    const jobId = validateJobId(raw);
    if (!this.options.owners.owns(key.id, jobId)) throw new JobNotFoundError(jobId);
    return jobId;
  }

  /** This key's jobs, oldest first. */
  jobsOf(key: ApiKey): readonly string[] {
    return this.options.owners.jobs(key.id);
  }

  /** Starts of one key run one at a time, so two at once cannot both slip under the 429 limit. */
  private oneAtATime<T>(keyId: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.startLocks.get(keyId) ?? Promise.resolve()).then(fn, fn);
    this.startLocks.set(keyId, next.catch(() => undefined));
    return next;
  }

  private async activeJobs(keyId: string): Promise<number> {
    let active = 0;
    for (const jobId of this.options.owners.jobs(keyId)) {
      if (this.finished.has(jobId)) continue;
      const status = await this.options.backend.status(jobId).then((s) => s.status, () => 'failed' as const);
      if (isFinal(status)) this.finished.add(jobId);
      else active++;
    }
    return active;
  }

  /** Refuses loopback, private, link-local and metadata URLs, unless the server allows them. */
  refusePrivateUrls(urls: readonly string[]): void {
    if (this.options.allowPrivate) return;
    const refusals = urls.map((url) => literalRefusal(url, this.options.allowHosts)).filter((r): r is string => r !== undefined);
    if (refusals.length > 0) {
      const more = refusals.length > 3 ? ` (and ${refusals.length - 3} more)` : '';
      throw new UsageError(`${refusals.slice(0, 3).join('; ')}${more}`);
    }
  }
}
