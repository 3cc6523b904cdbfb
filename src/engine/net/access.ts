/**
 * What a job sends to reach pages behind a login: its headers, cookies and
 * user-agent, and the rule for where each goes.
 *
 * - Cookies go only to their own domain, as a browser sends them: a cookie with
 *   a domain to that host (and its subdomains with includeSubdomains), one without
 *   to the host of each URL the request names; path and secure are honoured.
 * - Headers go only to the job's own origins: the scheme, host and port of each
 *   URL the request names. A redirect, frame, script or link to another origin
 *   never gets them (nor does http:// when the request named https://).
 * The job's user-agent is carried here, but which User-Agent a request gets is
 * decided in userAgent.ts.
 */
import type { Cookie, ScrapeOptions } from '../../api/types.js';

export interface SiteAccess {
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Each with a domain: the request's host-only cookies are made one per host. */
  cookies: ScopedCookie[];
  userAgent?: string;
  /** Origins the headers go to. */
  origins: Set<string>;
}

export interface ScopedCookie extends Cookie {
  domain: string;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The access of a job that names `urls`; undefined when it sends nothing of its own. */
export function siteAccess(urls: readonly string[], options: ScrapeOptions | undefined): SiteAccess | undefined {
  const headers = options?.headers ?? {};
  const given = options?.cookies ?? [];
  if (Object.keys(headers).length === 0 && given.length === 0 && !options?.userAgent) return undefined;
  const origins = new Set(urls.map(originOf).filter((origin): origin is string => origin !== undefined));
  const hosts = new Set([...origins].map((origin) => new URL(origin).hostname));
  const cookies = given.flatMap((cookie): ScopedCookie[] =>
    cookie.domain !== undefined ? [{ ...cookie, domain: cookie.domain }] : [...hosts].map((host) => ({ ...cookie, domain: host, includeSubdomains: false })),
  );
  return { headers, cookies, origins, ...(options?.userAgent ? { userAgent: options.userAgent } : {}) };
}

/** Whether `cookie` goes with a request to `url` (RFC 6265 domain and path matching). */
export function cookieMatches(cookie: ScopedCookie, url: URL): boolean {
  const host = url.hostname.toLowerCase();
  const domain = cookie.domain.toLowerCase();
  const domainOk = host === domain || (cookie.includeSubdomains === true && host.endsWith(`.${domain}`));
  if (!domainOk) return false;
  if (cookie.secure && url.protocol !== 'https:') return false;
  if (cookie.expires && cookie.expires * 1000 < Date.now()) return false;
  const path = cookie.path ?? '/';
  return url.pathname === path || (url.pathname.startsWith(path) && (path.endsWith('/') || url.pathname[path.length] === '/'));
}

/** The job's headers for a request to `url`: its own headers on its own origins, and the matching cookies. */
export function accessHeaders(access: SiteAccess | undefined, url: string): Record<string, string> {
  if (!access) return {};
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  const out: Record<string, string> = access.origins.has(parsed.origin) ? { ...access.headers } : {};
  const cookies = access.cookies.filter((cookie) => cookieMatches(cookie, parsed));
  if (cookies.length > 0) out.cookie = cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
  return out;
}
