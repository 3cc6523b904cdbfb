/**
 * A URL's user name and password are for fetching it, never for showing or
 * storing. Listings carry each job's URL without them, and a job's record,
 * page entries and errors carry none of the credentials its request gave,
 * wherever the browser repeated them (a page's links resolve against an
 * address that has them). The request kept in meta.json keeps them, as the
 * job needs them to run; the API never returns it. The same goes for the
 * header and cookie values of a request: errors never show them.
 */
import type { JobRequest } from './types.js';

/**
 * The header and cookie values a request gives (for pages behind a login): never
 * shown in an error. Values shorter than 4 characters are left alone, as hiding
 * them would garble ordinary words of a message and hide nothing worth hiding.
 */
export function secretRedactor(request: JobRequest): Redact | undefined {
  const options = 'scrapeOptions' in request ? request.scrapeOptions : undefined;
  const secrets = [...Object.values(options?.headers ?? {}), ...(options?.cookies ?? []).map((cookie) => cookie.value)]
    .filter((value) => value.length >= 4)
    // Longest first: a value that contains another is hidden whole.
    .sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return undefined;
  return (text) => secrets.reduce((out, secret) => (out.includes(secret) ? out.split(secret).join('[hidden]') : out), text);
}

/** Every URL a request names. */
export function requestUrls(request: JobRequest): string[] {
  return 'urls' in request ? request.urls : [request.url];
}

/** `url` without its user name and password; text that is no URL is returned unchanged. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}

export type Redact = (text: string) => string;

/**
 * Removes the "user:password@" of each of `urls` from any text, by plain
 * substring search (no pattern to backtrack); undefined when no URL has any.
 */
export function credentialRedactor(urls: readonly string[]): Redact | undefined {
  const secrets = new Set<string>();
  for (const url of urls) {
    try {
      const { username, password } = new URL(url);
      if (username || password) secrets.add(`${username}${password ? `:${password}` : ''}@`);
    } catch {
      // not a URL: nothing to hide
    }
  }
  if (secrets.size === 0) return undefined;
  return (text) => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join('');
    return out;
  };
}

/** `value` with `redact` applied to every string in it, however deep. */
export function redactStrings<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactStrings(item, redact)])) as T;
  }
  return value;
}
