/**
 * webjobs search (issue 55): a question answered by a search engine (SearXNG or
 * Brave), each result optionally scraped as batch scrapes a page. The request and
 * result types, and their validation, shared by the CLI, serve and MCP.
 */
import { LimitError, UsageError } from './errors.js';
import type { ScrapeOptions, SessionOptions } from './types.js';
import { validateScrapeOptions, validateSessionOptions } from './validate.js';
import { expectObject, isObject, optInteger, optStringArray, rejectUnknown } from './validateFields.js';
import { quoted } from './quote.js';

export const SEARCH_BACKENDS = ['searxng', 'brave'] as const;
export type SearchBackendName = (typeof SEARCH_BACKENDS)[number];

export const TIME_RANGES = ['day', 'week', 'month', 'year'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];

export const SEARCH_LIMITS = { defaultLimit: 10, maxLimit: 100, maxQueryLength: 400, maxDomains: 50 } as const;

/** The environment variables that configure the search engines, named in every message about them. */
export const SEARCH_ENV = {
  searxngUrl: 'WEBJOBS_SEARXNG_URL',
  braveKey: 'WEBJOBS_BRAVE_API_KEY',
  braveUrl: 'WEBJOBS_BRAVE_URL',
} as const;

export interface SearchRequest {
  query: string;
  /** Results wanted, 1..100 (default 10); fewer when the engine has fewer. */
  limit?: number;
  /** When it names formats, each result is scraped in them (a batch job); otherwise nothing is scraped. */
  scrapeOptions?: ScrapeOptions;
  sessionOptions?: SessionOptions;
  /** Only results on these hosts (or their subdomains). */
  includeDomains?: string[];
  /** Never results on these hosts (or their subdomains). */
  excludeDomains?: string[];
  timeRange?: TimeRange;
  /** The results' language, as the engine names it (en, de, fr-CH...). */
  lang?: string;
  /** Two letters (us, de): where the results are for, on engines that take it (Brave). */
  country?: string;
  /** Which engine answers; default the one configured (SearXNG first). */
  searchBackend?: SearchBackendName;
}

/** One result: what the engine said of it, then, when scraped, the page's data (batch's entry fields). */
export interface SearchHit {
  url: string;
  title: string;
  description: string;
  /** 1-based rank among the results given. */
  position: number;
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  screenshot?: string;
  structuredData?: Record<string, unknown>[];
  json?: unknown;
  metadata?: Record<string, string>;
  /** Scraped results only: why this one was not scraped or failed. */
  error?: string;
}

/** Firecrawl v2's data of a search: the web results. */
export interface SearchResult {
  web: SearchHit[];
}

const FIELDS = ['query', 'limit', 'scrapeOptions', 'sessionOptions', 'includeDomains', 'excludeDomains', 'timeRange', 'lang', 'country', 'searchBackend'];

/** A host name as a domain filter takes it: "example.com", lower case, no scheme, path or port. */
function domainOf(value: string, field: string): string {
  const text = value.trim().toLowerCase().replace(/^\*\./, '');
  const host = URL.canParse(`https://${text}`) ? new URL(`https://${text}`).hostname : '';
  if (host === '' || host !== text.replace(/\.$/, '')) throw new UsageError(`${field}: ${quoted(value)} is not a domain (write it as example.com)`);
  return host;
}

function optDomains(obj: Record<string, unknown>, key: string): string[] | undefined {
  const list = optStringArray(obj, key, 'request');
  if (list === undefined) return undefined;
  if (list.length > SEARCH_LIMITS.maxDomains) throw new LimitError(`request.${key} names ${list.length} domains, the limit is ${SEARCH_LIMITS.maxDomains}`);
  return list.map((domain) => domainOf(domain, `request.${key}`));
}

function optChoice<T extends string>(obj: Record<string, unknown>, key: string, choices: readonly T[]): T | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !choices.includes(value as T)) throw new UsageError(`request.${key} must be one of ${choices.join(', ')}`);
  return value as T;
}

function optWord(obj: Record<string, unknown>, key: string, pattern: RegExp, example: string): string | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !pattern.test(value)) throw new UsageError(`request.${key} must be a code such as ${example}`);
  return value;
}

/**
 * A search scrapes its results only when scrapeOptions names formats (Firecrawl v2's rule: by default
 * nothing is scraped); scrapeOptions without formats, or with none, are checked and dropped.
 */
function scrapeOptionsOf(value: unknown): ScrapeOptions | undefined {
  if (value === undefined) return undefined;
  const obj = expectObject(value, 'request.scrapeOptions');
  const formats = obj.formats;
  const scrapes = !(formats === undefined || (Array.isArray(formats) && formats.length === 0));
  const { formats: _formats, ...rest } = obj;
  const validated = validateScrapeOptions(scrapes ? obj : rest, 'request.scrapeOptions');
  return scrapes ? validated : undefined;
}

/** The request with its defaults, or a UsageError naming the field at fault. */
export function validateSearchRequest(value: unknown): SearchRequest & { limit: number } {
  if (!isObject(value)) throw new UsageError('the request must be a JSON object');
  if (Object.prototype.hasOwnProperty.call(value, '__proto__')) throw new UsageError('request: the key "__proto__" is not allowed');
  rejectUnknown(value, FIELDS, 'request');
  const { query } = value;
  if (typeof query !== 'string' || query.trim() === '') throw new UsageError('request.query must be a non-empty string: what to search for');
  if (query.length > SEARCH_LIMITS.maxQueryLength) throw new LimitError(`request.query has ${query.length} characters, the limit is ${SEARCH_LIMITS.maxQueryLength}`);
  const limit = optInteger(value, 'limit', 'request', 1, SEARCH_LIMITS.maxLimit) ?? SEARCH_LIMITS.defaultLimit;
  const scrapeOptions = scrapeOptionsOf(value.scrapeOptions);
  const sessionOptions = value.sessionOptions === undefined ? undefined : validateSessionOptions(value.sessionOptions);
  const includeDomains = optDomains(value, 'includeDomains');
  const excludeDomains = optDomains(value, 'excludeDomains');
  const timeRange = optChoice(value, 'timeRange', TIME_RANGES);
  const searchBackend = optChoice(value, 'searchBackend', SEARCH_BACKENDS);
  const lang = optWord(value, 'lang', /^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, 'en or fr-CH');
  const country = optWord(value, 'country', /^[A-Za-z]{2}$/, 'us or de');
  return {
    query: query.trim(),
    limit,
    ...(scrapeOptions ? { scrapeOptions } : {}),
    ...(sessionOptions ? { sessionOptions } : {}),
    ...(includeDomains ? { includeDomains } : {}),
    ...(excludeDomains ? { excludeDomains } : {}),
    ...(timeRange ? { timeRange } : {}),
    ...(lang ? { lang } : {}),
    ...(country ? { country: country.toLowerCase() } : {}),
    ...(searchBackend ? { searchBackend } : {}),
  };
}

/** Whether `url`'s host is `domain` or one of its subdomains. */
export function onDomain(url: string, domain: string): boolean {
  const host = URL.canParse(url) ? new URL(url).hostname.toLowerCase().replace(/\.$/, '') : '';
  return host === domain || host.endsWith(`.${domain}`);
}

/** Whether a result may appear: on an included domain (when any are named), on no excluded one. */
export function withinDomains(url: string, request: Pick<SearchRequest, 'includeDomains' | 'excludeDomains'>): boolean {
  const { includeDomains, excludeDomains } = request;
  if (includeDomains && includeDomains.length > 0 && !includeDomains.some((domain) => onDomain(url, domain))) return false;
  return !(excludeDomains ?? []).some((domain) => onDomain(url, domain));
}
