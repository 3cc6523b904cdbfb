/**
 * SearXNG's JSON API (docs.searxng.org, "Search API"): GET /search?q=…&format=json&pageno=N,
 * about ten results a page and no count parameter. An instance answers 403 to format=json
 * unless its settings.yml lists json under search.formats (the default lists only html).
 */
import { ConfigError, SearchEngineError } from '../../api/errors.js';
import { SEARCH_ENV } from '../../api/search.js';
import { getJson, type FoundResult, type ResultPage, type SearchBackend, type SearchQuery } from './backend.js';

interface SearxngAnswer {
  results?: { url?: unknown; title?: unknown; content?: unknown }[];
}

const text = (value: unknown): string => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '');

export class SearxngSearch implements SearchBackend {
  readonly name = 'searxng';
  /** Ten pages of about ten: a limit of 100 with room for duplicates and filtered domains. */
  readonly maxPages = 12;

  constructor(
    private readonly base: URL,
    private readonly timeout: number,
  ) {}

  async page(query: SearchQuery, page: number, _wanted: number, signal: AbortSignal): Promise<ResultPage> {
    const url = new URL('search', this.base);
    url.searchParams.set('q', query.query);
    url.searchParams.set('format', 'json');
    url.searchParams.set('pageno', String(page + 1));
    if (query.timeRange) url.searchParams.set('time_range', query.timeRange);
    // SearXNG's language codes take a region: fr-CH. A country alone has no parameter of its own.
    if (query.lang) url.searchParams.set('language', query.country ? `${query.lang.split('-')[0]}-${query.country.toUpperCase()}` : query.lang);
    const answer = await getJson('SearXNG', url, {}, this.timeout, signal, (status) =>
      status === 403
        ? new ConfigError(
            `SearXNG at ${this.base.origin} refused format=json (HTTP 403): enable the json format in its settings.yml, under search: formats: [html, json] (${SEARCH_ENV.searxngUrl})`,
          )
        : undefined,
    );
    const results = (answer as SearxngAnswer | null)?.results;
    if (!Array.isArray(results)) throw new SearchEngineError(`SearXNG at ${this.base.origin} answered JSON without a results list`);
    const found: FoundResult[] = results
      .filter((r) => typeof r?.url === 'string')
      .map((r) => ({ url: r.url as string, title: text(r.title), description: text(r.content) }));
    return { results: found, more: found.length > 0 };
  }
}
