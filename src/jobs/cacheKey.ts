/**
 * The key of a page in the page cache of `maxAge`, the same in every back end's
 * cache (store/pageCache.ts, pg/pageCache.ts): a SHA-256 of the URL (normalised)
 * and of every option that shapes the output, the URL's credentials and the
 * tenant (serve: the API key) included, so a result is only ever reused for a
 * request that would have produced the same one, and no credential is stored in clear.
 */
import { createHash } from 'node:crypto';
import { normalizeUrl } from '../api/normalizeUrl.js';
import type { CachedScrape } from './contracts.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A digest of the URL's user name and password (the engines send them as Basic authentication); null without. */
function urlCredentials(url: string): string | null {
  try {
    const { username, password } = new URL(url);
    return username || password ? sha256(`${username}:${password}`) : null;
  } catch {
    return null;
  }
}

/** What shapes a scrape's output: everything but how long it may take and how old a cached copy may be. */
export function cacheKey({ url, scrapeOptions = {}, sessionOptions = {}, tenant, history }: CachedScrape): string {
  const { timeout: _timeout, maxAge: _maxAge, ...shaping } = scrapeOptions;
  const sorted = (value: unknown): unknown =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, sorted(v)]))
      : Array.isArray(value)
        ? value.map(sorted)
        : value;
  const formats = [...(shaping.formats ?? ['markdown'])].sort();
  const key = JSON.stringify(
    sorted({
      url: normalizeUrl(url) ?? url,
      credentials: urlCredentials(url),
      tenant: tenant ?? null,
      ...shaping,
      formats,
      proxyCountry: sessionOptions.proxyCountry ?? null,
      useProxy: Boolean(sessionOptions.useProxy),
      // Only a change-tracking history has one: its entries never answer a maxAge request.
      ...(history !== undefined ? { changeTrackingHistory: history } : {}),
    }),
  );
  return sha256(key);
}
