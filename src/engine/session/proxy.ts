/**
 * Which proxy a session uses. webjobs has no proxies of its own: the user
 * configures theirs in the environment, and `useProxy`/`proxyCountry` pick one.
 *
 *   WEBJOBS_PROXY_URL        http://user:pass@host:port, https://… or socks5://host:port
 *   WEBJOBS_PROXY_URL_<CC>   a proxy for one country (CC: two uppercase letters)
 *   {country} / {COUNTRY}    in WEBJOBS_PROXY_URL: replaced by the country code in lower or
 *                            upper case, for providers that encode it in the user name
 */
import { ConfigError } from '../../api/errors.js';
import type { SessionOptions } from '../../api/types.js';

export interface ProxyConfig {
  /** What Chromium's --proxy-server takes: scheme://host:port, no credentials. */
  server: string;
  username?: string;
  password?: string;
  /** The full URL, credentials included, for plain HTTP fetches. */
  url: string;
  /** Safe to show: the proxy without its credentials; empty for webjobs' own egress proxy, which is never named. */
  label: string;
}

const TEMPLATE = /\{country\}|\{COUNTRY\}/;
const SCHEMES = ['http:', 'https:', 'socks5:'];

function parseProxy(raw: string, variable: string): ProxyConfig {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${variable} is not a URL (expected e.g. http://user:pass@proxy.example:8080)`);
  }
  if (!SCHEMES.includes(url.protocol)) {
    throw new ConfigError(`${variable} must be an http://, https:// or socks5:// URL, not ${url.protocol}`);
  }
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  if (url.protocol === 'socks5:' && username) {
    throw new ConfigError(`${variable}: Chromium cannot authenticate to a SOCKS5 proxy; use an http:// proxy for user:password`);
  }
  const server = `${url.protocol}//${url.host}`;
  return { server, username, password, url: raw, label: server };
}

/** The proxy a job with these session options uses, undefined when it uses none. Throws ConfigError. */
export function resolveProxy(sessionOptions: SessionOptions | undefined, env: NodeJS.ProcessEnv): ProxyConfig | undefined {
  const country = sessionOptions?.proxyCountry;
  if (!sessionOptions?.useProxy && !country) return undefined;
  if (country) {
    const own = env[`WEBJOBS_PROXY_URL_${country}`];
    if (own) return parseProxy(own, `WEBJOBS_PROXY_URL_${country}`);
  }
  const shared = env.WEBJOBS_PROXY_URL;
  if (!shared) {
    throw new ConfigError(
      'a proxy was asked for (--use-proxy), but none is configured: set WEBJOBS_PROXY_URL=http://user:pass@host:port' +
        (country ? ` or WEBJOBS_PROXY_URL_${country}` : ''),
    );
  }
  if (TEMPLATE.test(shared)) {
    if (!country) throw new ConfigError('WEBJOBS_PROXY_URL has a {country} placeholder: give --proxy-country CC');
    return parseProxy(shared.replaceAll('{country}', country.toLowerCase()).replaceAll('{COUNTRY}', country), 'WEBJOBS_PROXY_URL');
  }
  if (country) {
    throw new ConfigError(
      `no proxy for country ${country}: set WEBJOBS_PROXY_URL_${country}, or put {country} in WEBJOBS_PROXY_URL`,
    );
  }
  return parseProxy(shared, 'WEBJOBS_PROXY_URL');
}

/**
 * Chromium flags for a proxied browser. Chromium never proxies loopback by default;
 * `<-loopback>` lifts that, so that a proxy really carries every request.
 */
export function proxyLaunchArgs(proxy: ProxyConfig): string[] {
  return [`--proxy-server=${proxy.server}`, '--proxy-bypass-list=<-loopback>'];
}
