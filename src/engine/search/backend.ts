/**
 * The search engines `webjobs search` asks (issue 55), behind one small interface:
 * a back end answers one page of results; searchResults() pages through them until
 * the request's limit, without duplicates and never outside its domains. Another
 * engine is one file beside searxng.ts and brave.ts, named in searchBackendFor() (find.ts).
 */
import { SearchEngineError } from '../../api/errors.js';
import type { SearchBackendName, TimeRange } from '../../api/search.js';

/** What a back end is asked: the request's words and filters, not its limit or scraping. */
export interface SearchQuery {
  query: string;
  timeRange?: TimeRange;
  lang?: string;
  country?: string;
}

/** One result as an engine gives it. */
export interface FoundResult {
  url: string;
  title: string;
  description: string;
}

export interface ResultPage {
  results: FoundResult[];
  /** False when the engine said this is its last page. */
  more: boolean;
}

export interface SearchBackend {
  readonly name: SearchBackendName;
  /** Most pages asked for one search (the engine's own limit, or a bound on what paging may cost). */
  readonly maxPages: number;
  /** Page `page` (0-based) of the results; `wanted` is how many results the search wants in all (an engine with a count parameter uses it). */
  page(query: SearchQuery, page: number, wanted: number, signal: AbortSignal): Promise<ResultPage>;
}

/**
 * GET `url` as JSON within `timeout` ms (or `signal`): a SearchEngineError (exit 7) when
 * the engine cannot be reached, does not answer in time, or answers no JSON;
 * `refusal` turns an error status into the engine's own message first.
 */
export async function getJson(
  engine: string,
  url: URL,
  headers: Record<string, string>,
  timeout: number,
  signal: AbortSignal,
  refusal: (status: number, body: string) => Error | undefined,
): Promise<unknown> {
  const where = `${engine} at ${url.origin}`;
  let response: Response;
  let body: string;
  const deadline = AbortSignal.timeout(timeout);
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.any([signal, deadline]), redirect: 'follow' });
    body = await response.text();
  } catch (err) {
    signal.throwIfAborted();
    if (deadline.aborted) throw new SearchEngineError(`${where} did not answer within ${timeout / 1000}s`, 504);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new SearchEngineError(`could not reach ${where}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  if (!response.ok) {
    throw refusal(response.status, body) ?? new SearchEngineError(`${where} answered HTTP ${response.status}${detailOf(body)}`);
  }
  try {
    return JSON.parse(body);
  } catch {
    throw new SearchEngineError(`${where} answered something that is not JSON (${response.headers.get('content-type') ?? 'no content-type'})`);
  }
}

/** ": the reason" from a short error body, or nothing. */
export function detailOf(body: string): string {
  const text = body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text === '' ? '' : `: ${text.slice(0, 200)}`;
}
