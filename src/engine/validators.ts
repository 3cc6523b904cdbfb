/**
 * HTTP validators (RFC 9110 §8.8): the `ETag` and `Last-Modified` a page came
 * with, kept beside a stored result (jobs/jobEngine.ts), and the conditional
 * request headers (`If-None-Match`, `If-Modified-Since`) that revalidate it: a
 * 304 answer says the stored result still stands, and nothing is downloaded or
 * extracted again.
 *
 * The engine reports a page's validators, and sends a conditional request, only
 * when a scrape asks (`EngineScrapeOptions.revalidate`): only the job layer's
 * cache does, so nothing of this reaches a result.
 */

export interface Validators {
  etag?: string;
  lastModified?: string;
}

/** What a scrape asks of the engine about validators. */
export interface Revalidation {
  /** The stored page's validators: the request is conditional; a 304 answers `notModified`. */
  validators?: Validators;
}

/** The engine's answer besides the page: its validators (when asked), or that the stored page stands. */
export interface RevalidationResult {
  /** The validators the page came with (a 2xx answer that sent any). */
  validators?: Validators;
  /** The server answered 304 Not Modified to the conditional request: the stored result stands. */
  notModified?: true;
}

/** An ETag or HTTP date is a short token; anything longer (or with a line break) is not sent back. */
const MAX_VALIDATOR_LENGTH = 512;
const usable = (value: string | undefined): string | undefined =>
  value !== undefined && value.length > 0 && value.length <= MAX_VALIDATOR_LENGTH && !/[\r\n]/.test(value) ? value : undefined;

/** The validators among response headers (lower-case names); undefined when the page sent none. */
export function validatorsOf(headers: Record<string, string>, status: number): Validators | undefined {
  if (status < 200 || status > 299) return undefined;
  const etag = usable(headers.etag);
  const lastModified = usable(headers['last-modified']);
  if (!etag && !lastModified) return undefined;
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}

/** The conditional request headers for stored validators (none: an unconditional request). */
export function conditionalHeaders(validators: Validators | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (validators?.etag) headers['if-none-match'] = validators.etag;
  // As browsers do, both when both are known; a server that checks the ETag ignores the date (RFC 9110 §13.1.3).
  if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
  return headers;
}

export const hasValidators = (validators: Validators | undefined): validators is Validators => Boolean(validators?.etag || validators?.lastModified);
