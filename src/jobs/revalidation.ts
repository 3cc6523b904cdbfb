/**
 * How the job's cache (jobEngine.ts) treats a stored page it may not return as
 * it is (older than maxAge, or asked for with change tracking), before any
 * request:
 *
 * - `conditional`: the entry came with validators (ETag, Last-Modified): the
 *   engine sends If-None-Match / If-Modified-Since; a 304 keeps the entry
 *   (renewed), anything else replaces it.
 * - `vouched`: a crawl found the page in a sitemap with a `lastmod` no newer than
 *   the entry, and the entry has no validators: the sitemap is its validator, and
 *   the entry stands with no request at all (renewed). With validators the server
 *   is asked all the same (`conditional`): its answer is worth more than a
 *   sitemap's date, which many sites set to the time the sitemap was built.
 * - `fetch`: no entry; or one without validators and without a sitemap's word for
 *   it; or the sitemap's lastmod is newer than the entry (the page changed: asking
 *   whether it did would save nothing): the page is scraped in full.
 */
import type { CacheEntry } from './contracts.js';
import { hasValidators } from '../engine/validators.js';

export type RevalidationPlan = 'conditional' | 'vouched' | 'fetch';

export function revalidationPlan(entry: CacheEntry | undefined, sitemapLastmod: number | undefined): RevalidationPlan {
  if (!entry) return 'fetch';
  const newer = sitemapLastmod !== undefined && sitemapLastmod > entry.storedAt;
  if (newer) return 'fetch';
  if (hasValidators(entry.validators)) return 'conditional';
  return sitemapLastmod !== undefined ? 'vouched' : 'fetch';
}
