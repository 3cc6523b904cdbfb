import type { JobKind } from './types.js';

/**
 * Where each job kind lives under the service's /api prefix, as the real service
 * has it: POST to start, GET .../{jobId}/status, GET .../{jobId} for the record.
 * Shared by `serve` and the remote client so that they cannot drift apart.
 */
export const KIND_PATHS: Record<JobKind, string> = {
  scrape: '/scrape',
  batch: '/scrape/batch',
  crawl: '/crawl',
  extract: '/extract',
};

/**
 * webjobs serve's extension (docs/api.md#routes): GET {JOB_PATH}/{jobId} answers
 * {jobId, kind, status} of any job of the key, so that a client holding only an
 * id asks once instead of trying the status endpoint of each kind.
 */
export const JOB_PATH = '/jobs';
/** The code of that route's 404 for an id no job of the key has: a service without the route answers 404 without it. */
export const NO_SUCH_JOB_CODE = 'no_such_job';
