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

/**
 * A sitemap's `<lastmod>` (W3C Datetime: a date, or a date and time with a zone) as
 * milliseconds since the epoch; undefined when it is none of those. A date alone is
 * the end of that day (UTC): the page may have changed any time that day, so only an
 * entry stored after it is known to be no older.
 */
export function parseLastmod(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const value = text.trim();
  if (/^\d{4}-\d\d-\d\d$/.test(value)) {
    const day = Date.parse(`${value}T00:00:00Z`);
    return Number.isNaN(day) ? undefined : day + 24 * 3600 * 1000 - 1;
  }
  // A time without a zone says nothing exact: not trusted.
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}
