/**
 * Stand-ins for the two search engines `webjobs search` asks, on 127.0.0.1, each
 * answering as its documentation says, failures included, whatever webjobs sends:
 * - SearXNG (docs.searxng.org, "Search API"): GET / or /search with q, format,
 *   pageno, time_range, language; ten results a page, no count parameter; a format
 *   not listed under search.formats in settings.yml (by default only html) is a
 *   403; JSON {query, number_of_results, results, answers, corrections, infoboxes,
 *   suggestions, unresponsive_engines}.
 * - Brave Search API (api-dashboard.search.brave.com, "Web search"): GET
 *   /res/v1/web/search with X-Subscription-Token; q, count (1-20, default 20),
 *   offset (0-9, in pages of count), freshness pd|pw|pm|py, search_lang, country;
 *   401 for a wrong key, 422 for a parameter out of range, 429 past the plan's rate;
 *   JSON {type: "search", query: {original, more_results_available}, web: {results}}
 *   (no `web` when nothing is found); titles and descriptions mark the query's words with <strong>.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page the engines know of: where, what it says, and how many days old it is. */
export interface IndexedPage {
  url: string;
  title: string;
  text: string;
  ageDays?: number;
}

export interface StandIn {
  url: string;
  /** The query string of every search asked, in order. */
  asked: URLSearchParams[];
  close(): Promise<void>;
}

const DAYS: Record<string, number> = { day: 1, week: 7, month: 31, year: 366 };

/** Pages holding every word of the query (case-insensitive), in index order; the age limit in days when given. */
function matching(index: readonly IndexedPage[], query: string, maxAgeDays?: number): IndexedPage[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return index.filter(
    (page) => words.every((word) => `${page.title} ${page.text} ${page.url}`.toLowerCase().includes(word)) && (maxAgeDays === undefined || (page.ageDays ?? 0) <= maxAgeDays),
  );
}

async function listen(handler: (req: http.IncomingMessage, res: http.ServerResponse, params: URLSearchParams, path: string) => void): Promise<StandIn> {
  const asked: URLSearchParams[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    asked.push(url.searchParams);
    handler(req, res, url.searchParams, url.pathname);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export interface SearxngSettings {
  /** settings.yml's search.formats; SearXNG's default lists html only. */
  formats?: string[];
}

export async function startSearxng(index: readonly IndexedPage[], settings: SearxngSettings = {}): Promise<StandIn> {
  const formats = settings.formats ?? ['html'];
  const PAGE = 10;
  return listen((_req, res, params, path) => {
    if (path !== '/' && path !== '/search') {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<h1>Not Found</h1>');
    }
    const format = params.get('format') ?? 'html';
    if (!formats.includes(format)) {
      res.writeHead(403, { 'content-type': 'text/html; charset=utf-8' });
      return res.end('<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1><p>You don\'t have the permission to access the requested resource.</p>');
    }
    const q = params.get('q') ?? '';
    const timeRange = params.get('time_range');
    if (timeRange && !(timeRange in DAYS)) return json(res, 400, { error: 'Invalid value "time_range"' });
    const pageno = Number(params.get('pageno') ?? '1');
    if (!Number.isInteger(pageno) || pageno < 1) return json(res, 400, { error: 'Invalid value "pageno"' });
    if (format !== 'json') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(`<title>${q} - SearXNG</title>`);
    }
    const found = q.trim() === '' ? [] : matching(index, q, timeRange ? DAYS[timeRange] : undefined);
    const page = found.slice((pageno - 1) * PAGE, pageno * PAGE);
    json(res, 200, {
      query: q,
      number_of_results: 0,
      results: page.map((p, i) => ({
        url: p.url,
        title: p.title,
        content: p.text,
        engine: 'duckduckgo',
        engines: ['duckduckgo', 'brave'],
        positions: [(pageno - 1) * PAGE + i + 1],
        score: 1 / (i + 1),
        category: 'general',
        template: 'default.html',
        parsed_url: ['http', new URL(p.url).host, new URL(p.url).pathname, '', '', ''],
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    });
  });
}

const FRESHNESS: Record<string, number> = { pd: 1, pw: 7, pm: 31, py: 366 };

function braveError(res: http.ServerResponse, status: number, code: string, detail: string): void {
  json(res, status, { type: 'ErrorResponse', error: { id: '2f1b8b4e-0000-4000-8000-000000000000', status, code, detail, meta: { component: 'api' } }, time: Math.floor(Date.now() / 1000) });
}

const strong = (text: string, query: string) =>
  query
    .split(/\s+/)
    .filter(Boolean)
    .reduce((out, word) => out.replace(new RegExp(`(${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})`, 'gi'), '<strong>$1</strong>'), text.replace(/&/g, '&amp;'));

export interface BraveSettings {
  key: string;
  /** Requests the plan allows in all; the next ones are answered 429. */
  rateLimit?: number;
}

export async function startBrave(index: readonly IndexedPage[], settings: BraveSettings): Promise<StandIn> {
  let served = 0;
  return listen((req, res, params, path) => {
    if (path !== '/res/v1/web/search') return braveError(res, 404, 'RESOURCE_NOT_FOUND', 'Resource not found.');
    if (req.headers['x-subscription-token'] !== settings.key) return braveError(res, 401, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.');
    if (settings.rateLimit !== undefined && served >= settings.rateLimit) return braveError(res, 429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.');
    served++;
    const q = params.get('q') ?? '';
    const count = Number(params.get('count') ?? '20');
    const offset = Number(params.get('offset') ?? '0');
    const freshness = params.get('freshness');
    if (q.trim() === '' || q.length > 400 || !Number.isInteger(count) || count < 1 || count > 20 || !Number.isInteger(offset) || offset < 0 || offset > 9 || (freshness !== null && !(freshness in FRESHNESS))) {
      return braveError(res, 422, 'VALIDATION', 'Unable to validate request parameter(s)');
    }
    const found = matching(index, q, freshness ? FRESHNESS[freshness] : undefined);
    const page = found.slice(offset * count, (offset + 1) * count);
    json(res, 200, {
      type: 'search',
      query: { original: q, show_strict_warning: false, is_navigational: false, country: (params.get('country') ?? 'us').toLowerCase(), more_results_available: found.length > (offset + 1) * count },
      mixed: { type: 'mixed', main: page.map((_, i) => ({ type: 'web', index: i, all: false })), top: [], side: [] },
      ...(page.length > 0
        ? {
            web: {
              type: 'search',
              family_friendly: true,
              results: page.map((p) => ({
                type: 'search_result',
                subtype: 'generic',
                title: strong(p.title, q),
                url: p.url,
                description: strong(p.text, q),
                is_source_local: false,
                is_source_both: false,
                language: 'en',
                family_friendly: true,
                profile: { name: new URL(p.url).hostname, url: p.url, long_name: new URL(p.url).hostname },
                meta_url: { scheme: 'http', netloc: new URL(p.url).host, hostname: new URL(p.url).hostname, path: new URL(p.url).pathname },
                ...(p.ageDays !== undefined ? { page_age: new Date(Date.now() - p.ageDays * 86_400_000).toISOString() } : {}),
              })),
            },
          }
        : {}),
    });
  });
}
