/**
 * Which search engine answers, and the paging through its results up to a
 * request's limit: no duplicates, nothing outside the request's domains.
 */
import { ConfigError } from '../../api/errors.js';
import { SEARCH_ENV, withinDomains, type SearchBackendName, type SearchHit, type SearchRequest } from '../../api/search.js';
import type { SearchBackend, SearchQuery } from './backend.js';
import { BraveSearch } from './brave.js';
import { SearxngSearch } from './searxng.js';

/** Seconds a search engine has to answer one page (WEBJOBS_SEARCH_TIMEOUT overrides). */
const DEFAULT_TIMEOUT_SECONDS = 20;

function timeoutMs(env: NodeJS.ProcessEnv): number {
  const raw = env.WEBJOBS_SEARCH_TIMEOUT;
  if (raw === undefined || raw === '') return DEFAULT_TIMEOUT_SECONDS * 1000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new ConfigError(`WEBJOBS_SEARCH_TIMEOUT must be a number of seconds above 0 (got "${raw}")`);
  return seconds * 1000;
}

function baseUrl(raw: string, variable: string): URL {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new ConfigError(`${variable} must be an http(s) URL (got "${raw}")`);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** The back end `name` asks for, else the one configured (SearXNG first); a ConfigError (exit 2) naming the variables when none is. */
export function searchBackendFor(env: NodeJS.ProcessEnv, name?: SearchBackendName): SearchBackend {
  const searxng = env[SEARCH_ENV.searxngUrl] || undefined;
  const braveKey = env[SEARCH_ENV.braveKey] || undefined;
  const timeout = timeoutMs(env);
  const pick = name ?? (searxng ? 'searxng' : braveKey ? 'brave' : undefined);
  if (pick === 'searxng') {
    if (!searxng) throw new ConfigError(`the searxng search back end needs ${SEARCH_ENV.searxngUrl}: the base URL of a SearXNG instance with the json format enabled`);
    return new SearxngSearch(baseUrl(searxng, SEARCH_ENV.searxngUrl), timeout);
  }
  if (pick === 'brave') {
    if (!braveKey) throw new ConfigError(`the brave search back end needs ${SEARCH_ENV.braveKey}: a Brave Search API key`);
    return new BraveSearch(baseUrl(env[SEARCH_ENV.braveUrl] || 'https://api.search.brave.com/', SEARCH_ENV.braveUrl), braveKey, timeout);
  }
  throw new ConfigError(
    `no search back end configured: set ${SEARCH_ENV.searxngUrl} to a SearXNG instance's URL (with the json format enabled) or ${SEARCH_ENV.braveKey} to a Brave Search API key`,
  );
}

/** A result URL as compared for duplicates: without its fragment. */
function sameKey(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

function webUrl(raw: string): string | undefined {
  if (!URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}

/**
 * Up to `request.limit` results, in the engine's order: pages are asked for until
 * the limit, the engine's last page, a page that adds nothing new, or maxPages.
 */
export async function searchResults(backend: SearchBackend, request: SearchRequest & { limit: number }, signal: AbortSignal): Promise<SearchHit[]> {
  const query: SearchQuery = {
    query: request.query,
    ...(request.timeRange ? { timeRange: request.timeRange } : {}),
    ...(request.lang ? { lang: request.lang } : {}),
    ...(request.country ? { country: request.country } : {}),
  };
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  for (let page = 0; page < backend.maxPages && hits.length < request.limit; page++) {
    signal.throwIfAborted();
    const { results, more } = await backend.page(query, page, request.limit, signal);
    let fresh = 0;
    for (const result of results) {
      const url = webUrl(result.url);
      if (url === undefined || seen.has(sameKey(url))) continue;
      seen.add(sameKey(url));
      fresh++;
      if (hits.length < request.limit && withinDomains(url, request)) {
        hits.push({ url, title: result.title, description: result.description, position: hits.length + 1 });
      }
    }
    if (!more || fresh === 0) break;
  }
  return hits;
}

