/**
 * The Brave Search API (api-dashboard.search.brave.com, "Web search"): GET
 * /res/v1/web/search with the key in X-Subscription-Token; `count` at most 20 a page,
 * `offset` the 0-based page (at most 9), `freshness` pd|pw|pm|py. Failures: 401/403
 * for the key or its plan, 422 for a parameter, 429 past the plan's rate.
 */
import { ConfigError, SearchEngineError, UsageError } from '../../api/errors.js';
import { SEARCH_ENV, type TimeRange } from '../../api/search.js';
import { getJson, detailOf, type ResultPage, type SearchBackend, type SearchQuery } from './backend.js';

interface BraveAnswer {
  query?: { more_results_available?: unknown };
  web?: { results?: { url?: unknown; title?: unknown; description?: unknown }[] };
}

const FRESHNESS: Record<TimeRange, string> = { day: 'pd', week: 'pw', month: 'pm', year: 'py' };
const MAX_COUNT = 20;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Brave marks the query's words in titles and descriptions (<strong>) and escapes entities: plain text here. */
function plain(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith('#')) {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** Brave's error body: {"type": "ErrorResponse", "error": {"code", "detail", ...}}. */
function braveDetail(body: string): string {
  try {
    const detail = (JSON.parse(body) as { error?: { detail?: unknown } }).error?.detail;
    if (typeof detail === 'string') return `: ${detail}`;
  } catch {
    // not JSON: the body's text
  }
  return detailOf(body);
}

export class BraveSearch implements SearchBackend {
  readonly name = 'brave';
  /** Brave's offset goes up to 9: ten pages. */
  readonly maxPages = 10;

  constructor(
    private readonly base: URL,
    private readonly key: string,
    private readonly timeout: number,
  ) {}

  async page(query: SearchQuery, page: number, wanted: number, signal: AbortSignal): Promise<ResultPage> {
    const url = new URL('res/v1/web/search', this.base);
    // One count for every page: offset counts pages of that size.
    const count = Math.min(MAX_COUNT, wanted);
    url.searchParams.set('q', query.query);
    url.searchParams.set('count', String(count));
    url.searchParams.set('offset', String(page));
    if (query.timeRange) url.searchParams.set('freshness', FRESHNESS[query.timeRange]);
    if (query.lang) url.searchParams.set('search_lang', query.lang.toLowerCase());
    if (query.country) url.searchParams.set('country', query.country.toUpperCase());
    const answer = (await getJson('Brave Search', url, { 'x-subscription-token': this.key }, this.timeout, signal, (status, body) => {
      if (status === 401) return new ConfigError(`Brave Search refused the key (HTTP 401${braveDetail(body)}): check ${SEARCH_ENV.braveKey}`);
      if (status === 403) return new ConfigError(`Brave Search refused the request (HTTP 403${braveDetail(body)}): the plan of ${SEARCH_ENV.braveKey} may not allow it`);
      if (status === 422) return new UsageError(`Brave Search refused the query (HTTP 422${braveDetail(body)})`);
      if (status === 429) return new SearchEngineError(`Brave Search's rate limit was reached (HTTP 429${braveDetail(body)}): try again later`);
      return undefined;
    })) as BraveAnswer | null;
    const results = answer?.web?.results ?? [];
    if (!Array.isArray(results)) throw new SearchEngineError('Brave Search answered a web.results that is not a list');
    const found = results
      .filter((r) => typeof r?.url === 'string')
      .map((r) => ({ url: r.url as string, title: plain(r.title), description: plain(r.description) }));
    return { results: found, more: answer?.query?.more_results_available === true && found.length > 0 };
  }
}
