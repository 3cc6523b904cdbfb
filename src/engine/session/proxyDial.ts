/**
 * Connections through the user's proxy, for Node's own requests (proxiedFetch)
 * and the egress proxy of `webjobs serve` (egress.ts): a tunnel to host:port
 * (CONNECT to an http:// or https:// proxy, SOCKS5 to a socks5:// one), or a
 * connection to the proxy itself for a plain http:// request in absolute form.
 *
 * Every failure is a ProxyError at once, saying what the proxy did and naming it
 * without its credentials: a proxy that is down, closes the connection, refuses
 * the credentials (407) or the tunnel (403: Squid tunnels only to port 443 by
 * default) never turns into a wait for the page's timeout.
 */
import net from 'node:net';
import tls from 'node:tls';
import type { ProxyConfig } from './proxy.js';

/** A connection to the proxy, or its answer to the handshake, that takes longer than this fails. */
export const PROXY_CONNECT_TIMEOUT_MS = 15_000;

/** What went wrong with the proxy; the message names it by its label, never with credentials. */
export class ProxyError extends Error {
  override name = 'ProxyError';
}

export const authorityOf = (host: string, port: number) => (net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`);

/** Resolves when `socket` has connected (or finished its TLS handshake); destroys it on failure. */
export function connected<S extends net.Socket>(socket: S, event: 'connect' | 'secureConnect' = 'connect'): Promise<S> {
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.setTimeout(PROXY_CONNECT_TIMEOUT_MS, () => fail(new Error('connection timed out')));
    socket.once('error', fail);
    socket.once(event, () => {
      socket.setTimeout(0);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

/** Reads from `socket` until `complete` says how many bytes form the answer; unread bytes are put back. */
function readAnswer(socket: net.Socket, label: string, complete: (data: Buffer) => number | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const cleanup = () => {
      socket.setTimeout(0);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const length = complete(data);
      if (length === undefined) return;
      cleanup();
      socket.pause();
      if (data.length > length) socket.unshift(data.subarray(length));
      resolve(data.subarray(0, length));
    };
    const onError = (err: Error) => {
      cleanup();
      socket.destroy();
      reject(err instanceof ProxyError ? err : new ProxyError(`the proxy ${label} failed: ${err.message}`));
    };
    const onClose = () => onError(new ProxyError(`the proxy ${label} closed the connection`));
    socket.on('data', onData);
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.setTimeout(PROXY_CONNECT_TIMEOUT_MS, () => onError(new ProxyError(`the proxy ${label} did not answer within ${PROXY_CONNECT_TIMEOUT_MS / 1000} s`)));
    // Paused by the previous answer of a handshake, if there was one.
    socket.resume();
  });
}

function describeConnectError(err: NodeJS.ErrnoException, label: string): ProxyError {
  if (err.code === 'ECONNREFUSED') return new ProxyError(`could not connect to the proxy ${label}: connection refused`);
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return new ProxyError(`could not connect to the proxy ${label}: its host name could not be resolved`);
  return new ProxyError(`could not connect to the proxy ${label}: ${err.message}`);
}

/** A connection to the proxy itself (TLS for an https:// proxy, its certificate verified). */
export async function dialProxy(upstream: ProxyConfig): Promise<net.Socket> {
  const proxy = new URL(upstream.server);
  const secure = proxy.protocol === 'https:';
  const host = proxy.hostname.replace(/^\[|\]$/g, '');
  const port = Number(proxy.port || (secure ? 443 : proxy.protocol === 'socks5:' ? 1080 : 80));
  try {
    return secure
      ? await connected(tls.connect({ host, port, servername: net.isIP(host) ? undefined : host }), 'secureConnect')
      : await connected(net.connect({ host, port }));
  } catch (err) {
    throw describeConnectError(err as NodeJS.ErrnoException, upstream.label);
  }
}

/** Proxy-Authorization for an HTTP proxy with credentials, else undefined. */
export function proxyAuthorization(upstream: ProxyConfig): string | undefined {
  if (!upstream.username) return undefined;
  return `Basic ${Buffer.from(`${upstream.username}:${upstream.password ?? ''}`).toString('base64')}`;
}

/** Whether a request for `protocol` (http:, https:, ws:...) goes to this proxy in absolute form rather than through a tunnel. */
export function sendsAbsoluteForm(upstream: ProxyConfig, protocol: string): boolean {
  return upstream.server.startsWith('http:') && protocol === 'http:';
}

/** Why an HTTP proxy answered `status` instead of carrying the request. */
export function refusalOf(upstream: ProxyConfig, status: number, what: string): string {
  if (status === 407) {
    return upstream.username
      ? `the proxy ${upstream.label} refused the credentials (HTTP 407) for ${what}`
      : `the proxy ${upstream.label} asks for credentials (HTTP 407) for ${what}: put user:password in its URL`;
  }
  return `the proxy ${upstream.label} refused ${what} (${status ? `HTTP ${status}` : 'with an answer that is not HTTP'})`;
}

async function tunnelHttp(upstream: ProxyConfig, host: string, port: number): Promise<net.Socket> {
  const socket = await dialProxy(upstream);
  const authority = authorityOf(host, port);
  const authorization = proxyAuthorization(upstream);
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n` + (authorization ? `Proxy-Authorization: ${authorization}\r\n` : '') + '\r\n');
  const head = await readAnswer(socket, upstream.label, (data) => {
    const end = data.indexOf('\r\n\r\n');
    return end < 0 ? undefined : end + 4;
  });
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.toString('latin1'))?.[1]);
  if (status !== 200) {
    socket.destroy();
    throw new ProxyError(refusalOf(upstream, status, `CONNECT ${authority}`));
  }
  return socket;
}

const SOCKS_REPLIES: Record<number, string> = {
  1: 'general failure',
  2: 'not allowed by its rules',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

async function tunnelSocks(upstream: ProxyConfig, host: string, port: number): Promise<net.Socket> {
  const socket = await dialProxy(upstream);
  const exact = (n: number) => (data: Buffer) => (data.length >= n ? n : undefined);
  socket.write(Buffer.from([5, 1, 0]));
  const greeting = await readAnswer(socket, upstream.label, exact(2));
  if (greeting[0] !== 5 || greeting[1] !== 0) {
    socket.destroy();
    throw new ProxyError(`the SOCKS5 proxy ${upstream.label} asks for an authentication webjobs does not speak`);
  }
  const name = Buffer.from(host);
  socket.write(Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, Buffer.from([port >> 8, port & 255])]));
  const reply = await readAnswer(socket, upstream.label, (data) => {
    if (data.length < 5) return undefined;
    const addressLength = data[3] === 1 ? 4 : data[3] === 4 ? 16 : data[4]! + 1;
    const length = 4 + addressLength + 2;
    return data.length >= length ? length : undefined;
  });
  if (reply[1] !== 0) {
    socket.destroy();
    throw new ProxyError(`the SOCKS5 proxy ${upstream.label} could not connect to ${authorityOf(host, port)}: ${SOCKS_REPLIES[reply[1]!] ?? `code ${reply[1]}`}`);
  }
  return socket;
}

/** A tunnel to host:port through the proxy, ready for the site's bytes (paused). Rejects with ProxyError. */
export function tunnelThrough(upstream: ProxyConfig, host: string, port: number): Promise<net.Socket> {
  return upstream.server.startsWith('socks5:') ? tunnelSocks(upstream, host, port) : tunnelHttp(upstream, host, port);
}
