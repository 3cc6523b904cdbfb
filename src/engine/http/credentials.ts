/**
 * A URL's user name and password (`http://alice:pw@host/`): fetch refuses a URL
 * that carries them, where a browser sends them as Basic authentication to that
 * URL's origin. They go as an Authorization header to that origin only, never
 * to a host a redirect leads to.
 */
export interface UrlCredentials {
  origin: string;
  authorization: string;
}

/** `url` without its user name and password, and those as a header for its origin (when it has any). */
export function splitCredentials(url: string): { url: string; credentials?: UrlCredentials } {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return { url };
  const pair = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, credentials: { origin: parsed.origin, authorization: `Basic ${Buffer.from(pair).toString('base64')}` } };
}

/** The Authorization header `credentials` give a request for `url`: none for another origin. */
export function authorizationFor(credentials: UrlCredentials | undefined, url: string): Record<string, string> {
  return credentials && new URL(url).origin === credentials.origin ? { authorization: credentials.authorization } : {};
}
