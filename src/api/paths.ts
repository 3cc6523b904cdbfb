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
