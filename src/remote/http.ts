/**
 * One HTTP exchange with a webjobs-compatible service, with the retry policy:
 * network errors, 429 and 502-504 are retried with exponential backoff and full
 * jitter (honouring Retry-After). A start (POST) is retried only where the
 * service surely did not act on it: the connection was refused, 429, 502, 503.
 * Any other failure becomes the typed error the local back end would throw, so
 * exit codes are the same in both modes.
 */
import {
  AuthError,
  DamagedRecordError,
  JobNotFoundError,
  NotResumableError,
  PlanError,
  RemoteError,
  SearchEngineError,
  StoreFullError,
  TooManyJobsError,
  UnsupportedError,
  UsageError,
  WebjobsError,
} from '../api/errors.js';

export interface HttpOptions {
  /** Base URL ending in /api, no trailing slash. */
  apiUrl: string;
  apiKey?: string;
  /** Attempts per request for transient failures (first try included). */
  attempts?: number;
  /** Milliseconds before the first retry; doubles up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** One request may take this long before it counts as a network failure. */
  requestTimeoutMs?: number;
}

export interface CallOptions {
  body?: unknown;
  query?: Record<string, number | undefined>;
  /** The job the call is about, to report a 404 as an unknown job. */
  jobId?: string;
  /**
   * Only a 404 with this code says the job is unknown; any other 404 is a RemoteError
   * with httpStatus 404 (a service without the route: serve's extensions).
   */
  noSuchJobCode?: string;
  /** This call may take this long (a search that scrapes its results), instead of the client's requestTimeoutMs. */
  timeoutMs?: number;
  /** Ends the call early (Ctrl-C): the service sees the connection close. */
  signal?: AbortSignal;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
/** Statuses after which a POST surely did not start a job, so retrying cannot duplicate it. */
const SAFE_POST_RETRY = new Set([429, 502, 503]);
/** Failures to connect at all: the request never reached the service. */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function causeCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: string; errors?: { code?: string }[] } })?.cause;
  return cause?.code ?? cause?.errors?.[0]?.code;
}

export class HttpClient {
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: HttpOptions) {
    this.attempts = options.attempts ?? 6;
    this.baseDelayMs = options.baseDelayMs ?? 250;
    this.maxDelayMs = options.maxDelayMs ?? 5_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  }

  get apiUrl(): string {
    return this.options.apiUrl;
  }

  private backoff(attempt: number, retryAfter: string | null): number {
    const seconds = retryAfter !== null ? Number(retryAfter) : NaN;
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 30_000);
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  private url(path: string, query: CallOptions['query']): string {
    const url = new URL(this.options.apiUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.href;
  }

  async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, options: CallOptions = {}): Promise<T> {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.attempts;
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers,
          body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
          signal: options.signal
            ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs ?? this.requestTimeoutMs)])
            : AbortSignal.timeout(options.timeoutMs ?? this.requestTimeoutMs),
        });
      } catch (err) {
        const retryable = method !== 'POST' || CONNECT_ERRORS.has(causeCode(err) ?? '');
        if (retryable && !last) {
          await sleep(this.backoff(attempt - 1, null));
          continue;
        }
        throw new RemoteError(`could not reach the webjobs service at ${this.options.apiUrl}: ${describeFetchError(err)}`);
      }
      if (response.ok) return (await response.json()) as T;
      const { message, code } = await serverMessage(response);
      if (code === DamagedRecordError.code) throw new DamagedRecordError(message);
      if (code === StoreFullError.code) throw new StoreFullError(message);
      if (code === NotResumableError.code) throw new NotResumableError(message);
      if (code === SearchEngineError.code) throw new SearchEngineError(`the webjobs service's search engine failed: ${message}`, response.status);
      const retryable = method === 'POST' ? SAFE_POST_RETRY.has(response.status) : RETRY_STATUSES.has(response.status);
      if (retryable && !last) {
        await sleep(this.backoff(attempt - 1, response.headers.get('retry-after')));
        continue;
      }
      const jobId = options.noSuchJobCode === undefined || code === options.noSuchJobCode ? options.jobId : undefined;
      throw this.errorFor(response.status, message, jobId);
    }
  }

  private errorFor(status: number, message: string, jobId: string | undefined): WebjobsError {
    switch (status) {
      case 400:
      case 413:
      case 422:
        return new UsageError(message);
      case 401:
        return new AuthError(`the webjobs service refused the request: ${message}${this.options.apiKey ? '' : ' (pass --api-key or set WEBJOBS_API_KEY)'}`);
      case 402:
        return new PlanError(message);
      case 404:
        return jobId !== undefined ? new JobNotFoundError(jobId) : new RemoteError(`${message} (is ${this.options.apiUrl} a webjobs service?)`, 404);
      case 429:
        return new TooManyJobsError(message);
      case 501:
        return new UnsupportedError(message);
      default:
        return new RemoteError(`the webjobs service answered HTTP ${status}: ${message}`, status >= 500 ? status : 502);
    }
  }
}

/** The service's {"message", "code"?}, or the status line when the body is not ours (a proxy's HTML page). */
async function serverMessage(response: Response): Promise<{ message: string; code?: string }> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { message?: unknown; error?: unknown; code?: unknown };
    const message = parsed.message ?? parsed.error;
    const code = typeof parsed.code === 'string' ? parsed.code : undefined;
    if (typeof message === 'string' && message !== '') return { message, code };
  } catch {
    // not JSON
  }
  return { message: `${response.status} ${response.statusText}`.trim() };
}

function describeFetchError(err: unknown): string {
  if ((err as Error)?.name === 'TimeoutError') return 'no answer in time';
  const code = causeCode(err);
  const cause = (err as { cause?: Error }).cause;
  if (code === 'ECONNREFUSED') return 'connection refused (is webjobs serve running there?)';
  if (code === 'ENOTFOUND') return 'host not found';
  return code ?? cause?.message ?? (err as Error)?.message ?? String(err);
}
