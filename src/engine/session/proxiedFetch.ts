/**
 * Node-side HTTP requests (pages read over HTTP, robots.txt, sitemaps, PDFs)
 * that take the same proxy as the browser, and the same way through it: an
 * http:// URL goes to an http:// proxy in absolute form (`GET http://host/path`),
 * everything else through a tunnel (CONNECT, or SOCKS5 for a socks5:// proxy).
 */
import type { Dispatcher } from 'undici';
import { PageError } from '../../api/errors.js';
import { timeoutSignal } from '../timeoutSignal.js';
import { asPlain, type PlainResponse } from '../crawl/fetchText.js';
import { directFetch } from './directFetch.js';
import type { ProxyConfig } from './proxy.js';
import { ProxyError, proxyAuthorization, refusalOf, sendsAbsoluteForm, tunnelThrough } from './proxyDial.js';

type Undici = typeof import('undici');

const dispatchers = new Map<string, Dispatcher>();

/**
 * Tunnels opened by proxyDial.ts, not by undici's ProxyAgent: when a proxy closes
 * the connection in answer to CONNECT, undici takes that for a socket error worth
 * another try and reconnects at once, without end (a core busy until the page's
 * timeout, and on after it). A ProxyError fails the request at once.
 */
function tunnelAgent(proxy: ProxyConfig, undici: Undici): Dispatcher {
  const secure = undici.buildConnector({});
  return new undici.Agent({
    connect: (options, callback) => {
      const port = Number(options.port || (options.protocol === 'https:' ? 443 : 80));
      tunnelThrough(proxy, options.hostname.replace(/^\[|\]$/g, ''), port).then(
        (socket) => (options.protocol === 'https:' ? secure({ ...options, httpSocket: socket }, callback) : callback(null, socket)),
        (err: Error) => callback(err, null),
      );
    },
  });
}

function dispatcherFor(proxy: ProxyConfig, undici: Undici): Dispatcher {
  let dispatcher = dispatchers.get(proxy.url);
  if (dispatcher) return dispatcher;
  const tunnel = tunnelAgent(proxy, undici);
  if (sendsAbsoluteForm(proxy, 'http:')) {
    const token = proxyAuthorization(proxy);
    const absolute = new undici.ProxyAgent({ uri: proxy.server, proxyTunnel: false, ...(token ? { token } : {}) });
    // http:// URLs to the proxy in absolute form, the rest through the tunnel.
    class ByScheme extends undici.Dispatcher {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        return (String(options.origin).startsWith('http:') ? absolute : tunnel).dispatch(options, handler);
      }
      override async close(): Promise<void> {
        await Promise.all([absolute.close(), tunnel.close()]);
      }
      override async destroy(): Promise<void> {
        await Promise.all([absolute.destroy(), tunnel.destroy()]);
      }
    }
    dispatcher = new ByScheme();
  } else {
    dispatcher = tunnel;
  }
  dispatchers.set(proxy.url, dispatcher);
  return dispatcher;
}

/** Loads undici, which requests through a proxy (and serve's egress proxy) use, ahead of the first (serve, before it listens). */
export async function loadProxyClient(): Promise<void> {
  await import('undici');
}

/** Why a request through the proxy failed, the proxy named without its credentials. */
function describeProxyFailure(err: unknown, url: string, proxy: ProxyConfig): string {
  type Failure = Error & { code?: string; cause?: unknown };
  const cause = ((err as Failure).cause ?? err) as Failure;
  // The egress guard of serve and mcp has no label: its port is nobody's business, and the failure is the site's.
  if (!proxy.label) return `could not fetch ${url}: ${cause instanceof ProxyError ? 'the connection failed' : cause.message}`;
  if (cause instanceof ProxyError) return cause.message;
  if (cause.name === 'TimeoutError') return `could not fetch ${url} through the proxy ${proxy.label}: ${cause.message}`;
  if (sendsAbsoluteForm(proxy, new URL(url).protocol)) {
    // The connection was to the proxy itself. undici's ProxyAgent turns the proxy's 407 into this error.
    if (/\(407\)/.test(cause.message)) return refusalOf(proxy, 407, url);
    if (cause.code === 'ECONNREFUSED') return `could not connect to the proxy ${proxy.label}: connection refused`;
    if (cause.code === 'UND_ERR_SOCKET' || cause.code === 'ECONNRESET') return `the proxy ${proxy.label} closed the connection (fetching ${url})`;
  }
  return `could not fetch ${url} through the proxy ${proxy.label}: ${cause.message}`;
}

export async function proxiedFetch(
  url: string,
  proxy: ProxyConfig | undefined,
  options: { timeoutMs: number; signal?: AbortSignal; headers?: Record<string, string> },
): Promise<PlainResponse> {
  // Not AbortSignal.any with the job's signal: that keeps a registration a request for as long as the job (timeoutSignal.ts).
  const signal = timeoutSignal(options.timeoutMs, options.signal);
  // Redirects are the caller's to follow, hop by hop (see Engine.fetch).
  const init = { headers: options.headers, signal, redirect: 'manual' as const };
  // Without a proxy: over node:http(s) (directFetch.ts), which costs half what fetch does a request.
  if (!proxy) return /^https?:/i.test(url) ? directFetch(url, init) : asPlain(await fetch(url, init));
  let response: PlainResponse;
  try {
    // undici's package takes ~0.15 s to load; a request without a proxy never loads it (above).
    const undici = await import('undici');
    response = asPlain((await undici.fetch(url, { ...init, dispatcher: dispatcherFor(proxy, undici) })) as unknown as Response);
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new PageError(describeProxyFailure(err, url, proxy));
  }
  if (response.status === 407 && sendsAbsoluteForm(proxy, new URL(url).protocol)) {
    // The proxy's answer, not the site's.
    await response.body?.cancel();
    throw new PageError(refusalOf(proxy, 407, url));
  }
  return response;
}
