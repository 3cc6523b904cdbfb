/**
 * Firecrawl's search (POST /v1/search, /v2/search) on webjobs serve: the request
 * as webjobs' search request (api/search.ts), the answer in each version's shape:
 * v2 {success, data: {web: [...]}}, v1 {success, data: [...]}, each result a
 * document when the request asked for formats.
 */
import { UsageError } from '../../api/errors.js';
import type { SearchHit, SearchResult } from '../../api/search.js';
import { refuse, unmapped, type Obj, type Unmapped } from './fields.js';
import { LABELS, mapScrapeOptions, type FirecrawlVersion } from './request.js';

/** Firecrawl's tbs (Google's time filter): past hour/day/week/month/year; webjobs has the last four. */
const TBS: Record<string, string> = { 'qdr:d': 'day', 'qdr:w': 'week', 'qdr:m': 'month', 'qdr:y': 'year' };

const SEARCH_NEUTRAL: Unmapped['neutral'] = {
  highlights: [false, 'results carry the engine\'s snippet as description, no highlights'],
};

const SEARCH_WHY_NOT: Record<string, string> = {
  location: 'there is no location; country and lang narrow the results on engines that take them',
  filter: 'there is no filter; use includeDomains and excludeDomains',
  enterprise: 'there are no enterprise options',
  categories: 'there are no categories: ordinary web results',
};

/** Fields that only bound or label the request: accepted, changing nothing (the engine's own timeout applies; invalid URLs are always left out). */
const ACCEPTED = [...LABELS, 'timeout', 'ignoreInvalidURLs'];

function mapSources(value: unknown): void {
  if (!Array.isArray(value)) throw new UsageError('sources must be an array, such as ["web"]');
  for (const source of value) {
    const type = typeof source === 'string' ? source : (source as { type?: unknown } | null)?.type;
    if (type !== 'web') refuse('', `sources: ${JSON.stringify(type ?? source)}`, 'only web results (news and images are not searched)');
  }
}

/** A Firecrawl search request as webjobs' (validated by validateSearchRequest). */
export function mapSearch(body: Obj, version: FirecrawlVersion): Obj {
  const out: Obj = {};
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (value === undefined || ACCEPTED.includes(key)) continue;
    if (key === 'query' || key === 'limit' || key === 'lang' || key === 'country') out[key] = value;
    else if ((key === 'includeDomains' || key === 'excludeDomains') && version === 'v2') out[key] = value;
    else if (key === 'sources' && version === 'v2') mapSources(value);
    else if (key === 'categories' && Array.isArray(value) && value.length === 0) continue;
    else if (key === 'tbs') {
      const timeRange = typeof value === 'string' ? TBS[value] : undefined;
      if (!timeRange) refuse('', `tbs ${JSON.stringify(value)}`, `only ${Object.keys(TBS).join(', ')} (past day, week, month, year)`);
      out.timeRange = timeRange;
    } else if (key === 'scrapeOptions') {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('scrapeOptions must be an object');
      out.scrapeOptions = mapScrapeOptions(value as Obj, 'scrapeOptions.', [], version);
    } else unmapped(body, key, '', { neutral: SEARCH_NEUTRAL, whyNot: SEARCH_WHY_NOT });
  }
  return out;
}

/** A result in Firecrawl's shape: url, title, description, position, then the page's formats and metadata when scraped. */
function firecrawlResult(hit: SearchHit): Obj {
  const { error, metadata, ...rest } = hit;
  const scraped = metadata !== undefined || error !== undefined;
  if (!scraped) return rest;
  const statusCode = Number(metadata?.statusCode);
  return {
    ...rest,
    metadata: {
      sourceURL: hit.url,
      ...(metadata ?? {}),
      ...(Number.isInteger(statusCode) ? { statusCode } : {}),
      ...(error ? { error } : {}),
    },
  };
}

export function searchAnswer(result: SearchResult, version: FirecrawlVersion): Obj {
  const web = result.web.map(firecrawlResult);
  return version === 'v2' ? { success: true, data: { web } } : { success: true, data: web };
}
