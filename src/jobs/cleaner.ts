/**
 * What a job stores carries none of the credentials its URLs hold, and its errors
 * none of its header and cookie values (a page may show its user's name, which is
 * no leak, so page content keeps them). Shared by every place that stores a job's
 * output: the local back end and the PostgreSQL worker.
 */
import { credentialRedactor, redactStrings, requestUrls, secretRedactor } from '../api/redact.js';
import type { JobRequest } from '../api/types.js';

export interface JobCleaner {
  clean<T>(value: T): T;
  cleanError(error: string): string;
}

export function jobCleaner(request: JobRequest): JobCleaner {
  const redact = credentialRedactor(requestUrls(request));
  const hide = secretRedactor(request);
  const clean = <T>(value: T): T => (redact ? redactStrings(value, redact) : value);
  return { clean, cleanError: (error) => clean(hide ? hide(error) : error) };
}
