/**
 * What every HTTP front end of `webjobs serve` (the spec's /api, the
 * Firecrawl-compatible /v1 and /v2) does the same way: find the API key,
 * check a request against the spec's validation, the key's plan, the private
 * address refusal and the per-key limit of active jobs, start the job, record
 * its owner, and refuse another key's job as unknown.
 */
import type { JobBackend } from '../api/backend.js';
import { AuthError, JobNotFoundError, UnsupportedError, UsageError } from '../api/errors.js';
import { requestUrls } from '../api/redact.js';
import type { JobKind, JobRequestByKind, JobStatusObject, MapResult } from '../api/types.js';
import { validateJobId, validateMapRequest, validateRequest } from '../api/validate.js';
import type { ApiKey, KeyRing } from './keys.js';
import type { Admission } from './admission.js';
import { checkKindAllowed, checkRequestAllowed } from './plans.js';
import { createEgressGuard, literalRefusal, refusePrivateUrls, type AllowList } from '../engine/net/ssrf.js';
import type { EgressGuard } from '../engine/net/egress.js';
import { validateSearchRequest, type SearchResult } from '../api/search.js';

export interface GateOptions {
  backend: JobBackend;
  keys: KeyRing;
  /** Who owns which job, and the per-key limit: one serve's files, or PostgreSQL shared by many. */
  admission: Admission;
  allowPrivate: boolean;
  allowHosts?: AllowList;
  maxActiveJobsPerKey: number;
}

export class JobGate {
  /** The address guard of webhook URLs, resolving names as the deliveries will (none with --allow-private). */
  private readonly webhookGuard: EgressGuard | undefined;

  constructor(private readonly options: GateOptions) {
    this.webhookGuard = options.allowPrivate ? undefined : createEgressGuard({ allow: options.allowHosts, cacheMs: 0 });
  }

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
    await this.refuseWebhook(request);
    const { jobId } = await this.options.admission.start(key.id, this.options.maxActiveJobsPerKey, kind, request);
    return { jobId, request };
  }

  /** Resumes the key's stopped or interrupted job, within the key's limit of active jobs (it becomes one again). */
  resume(key: ApiKey, jobId: string, kind: JobKind): Promise<JobStatusObject> {
    return this.options.admission.resume(key.id, this.options.maxActiveJobsPerKey, jobId, kind);
  }

  /** The job id `raw`, if it names a job of this key; unknown ids and other keys' jobs look the same: 404. */
  async ownedJobId(key: ApiKey, raw: string, kind?: JobKind): Promise<string> {
    if (kind) checkKindAllowed(kind, key.plan);
    const jobId = validateJobId(raw);
    if (!(await this.options.admission.owns(key.id, jobId))) throw new JobNotFoundError(jobId);
    return jobId;
  }

  /** This key's jobs, oldest first. */
  jobsOf(key: ApiKey): Promise<readonly string[]> {
    return this.options.admission.jobs(key.id);
  }

  /**
   * The webjobs map of `body` (in the spec's names, after any front end's renaming),
   * answered at once; a client that hangs up (`connection` closes) stops the reading of the site.
   */
  async map(body: () => unknown, connection: { on(event: 'close', listener: () => void): unknown }): Promise<MapResult> {
    const { backend } = this.options;
    if (!backend.map) throw UnsupportedError.of('map', 'this server');
    const request = validateMapRequest(body());
    this.refusePrivateUrls([request.url]);
    const hungUp = new AbortController();
    connection.on('close', () => hungUp.abort(new Error('the client closed the request')));
    return backend.map(request, hungUp.signal);
  }

  /**
   * A webhook URL is checked as a page URL is, and its name resolved too: one the address guard refuses fails the
   * request before the job exists (a name that cannot be resolved now is let through: its deliveries fail and
   * are retried). Every delivery is checked again (jobs/webhooks/send.ts).
   */
  private async refuseWebhook(request: JobRequestByKind[JobKind]): Promise<void> {
    const webhook = 'webhook' in request ? request.webhook : undefined;
    if (!webhook || !this.webhookGuard) return;
    const url = new URL(webhook.url);
    const literal = literalRefusal(webhook.url, this.options.allowHosts);
    const decision = literal ? { refusal: literal } : await this.webhookGuard(url.hostname, Number(url.port) || (url.protocol === 'https:' ? 443 : 80));
    if ('refusal' in decision && !decision.refusal.startsWith('DNS lookup failed')) {
      throw new UsageError(`request.webhook.url: the address guard refused it (serve --allow-private or --allow-host allow it): ${decision.refusal}`);
    }
  }

  /**
   * A search of `body` (the spec's names, after any front end's renaming), answered in the request. Results
   * the address guard refuses are listed, never scraped; the scraping batch is the key's job, within its
   * plan and limits. A client that hangs up stops the search and its batch.
   */
  async search(key: ApiKey, body: () => unknown, connection: { on(event: 'close', listener: () => void): unknown }): Promise<SearchResult> {
    const { backend, allowPrivate, allowHosts } = this.options;
    if (!backend.search) throw UnsupportedError.of('search', 'this server');
    const request = validateSearchRequest(body());
    // Scraped results are a batch job of the key: its plan must allow one before the engine is asked.
    if (request.scrapeOptions) {
      checkKindAllowed('batch', key.plan);
      checkRequestAllowed({ urls: [], scrapeOptions: request.scrapeOptions, ...(request.sessionOptions ? { sessionOptions: request.sessionOptions } : {}) }, key.plan);
    }
    const hungUp = new AbortController();
    connection.on('close', () => hungUp.abort(new Error('the client closed the request')));
    return backend.search(request, {
      signal: hungUp.signal,
      tenant: key.id,
      ...(allowPrivate ? {} : { refuse: (url: string) => literalRefusal(url, allowHosts) }),
      startBatch: async (batch) => (await this.start(key, 'batch', batch)).jobId,
    });
  }

  /** Refuses loopback, private, link-local and metadata URLs, unless the server allows them. */
  refusePrivateUrls(urls: readonly string[]): void {
    if (!this.options.allowPrivate) refusePrivateUrls(urls, this.options.allowHosts);
  }
}
