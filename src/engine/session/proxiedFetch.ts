/** Node-side HTTP requests (robots.txt, sitemaps) that take the same proxy as the browser. */
import type { Dispatcher } from 'undici';
import { PageError } from '../../api/errors.js';
import { timeoutSignal } from '../timeoutSignal.js';
import type { ProxyConfig } from './proxy.js';

const dispatchers = new Map<string, Dispatcher>();

function dispatcherFor(proxy: ProxyConfig, { ProxyAgent, Socks5ProxyAgent }: typeof import('undici')): Dispatcher {
  let dispatcher = dispatchers.get(proxy.url);
  if (!dispatcher) {
    dispatcher = proxy.url.startsWith('socks5:') ? new Socks5ProxyAgent(proxy.url) : new ProxyAgent(proxy.url);
    dispatchers.set(proxy.url, dispatcher);
  }
  return dispatcher;
}

export async function proxiedFetch(
  url: string,
  proxy: ProxyConfig | undefined,
  options: { timeoutMs: number; signal?: AbortSignal; headers?: Record<string, string> },
): Promise<Response> {
  const signal = AbortSignal.any([timeoutSignal(options.timeoutMs), ...(options.signal ? [options.signal] : [])]);
  // Redirects are the caller's to follow, hop by hop (see Engine.fetch).
  const init = { headers: options.headers, signal, redirect: 'manual' as const };
  if (!proxy) return fetch(url, init);
  try {
    // undici's package takes ~0.15 s to load; without a proxy Node's own fetch does (above).
    const undici = await import('undici');
    return (await undici.fetch(url, { ...init, dispatcher: dispatcherFor(proxy, undici) })) as unknown as Response;
  } catch (err) {
    const cause = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
    throw new PageError(`could not fetch ${url}${proxy.label ? ` through the proxy ${proxy.label}` : ''}: ${cause}`);
  }
}
