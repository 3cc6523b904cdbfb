/**
 * The browser's only way out when a guard is set (`webjobs serve`): a forward
 * proxy on 127.0.0.1 in front of Chromium. Every connection the browser makes on a
 * job's behalf goes through it — plain HTTP requests, and CONNECT tunnels for
 * HTTPS and WebSockets — whichever tab, popup, frame or worker makes it, and
 * preconnects too. Request interception only sees what a tab we prepared asks for;
 * this holds below all of that.
 *
 * For each connection the proxy resolves the host itself, has the guard check the
 * addresses, and dials an address it checked: a name that resolves elsewhere a
 * moment later (DNS rebinding) gains nothing, since Chromium never resolves it.
 *
 * With an upstream proxy (useProxy), connections are chained through it (CONNECT
 * for http:// and https:// upstreams, SOCKS5 for socks5://), after the same check
 * of the name; the upstream then resolves the name in its own network. Plain
 * http:// requests go to an http:// upstream in absolute form instead, as browsers
 * send them: proxies such as Squid tunnel CONNECT only to port 443.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { ProxyConfig } from '../session/proxy.js';
import { authorityOf, connected, dialProxy, proxyAuthorization, refusalOf, sendsAbsoluteForm, tunnelThrough } from '../session/proxyDial.js';

// Not an ES import of node:http: that loads undici, ~15 ms of every CLI run's start (session/directFetch.ts).
const http = process.getBuiltinModule('node:http');

/** Where a connection to host:port may go: the checked addresses to dial, or why it may not. */
export type EgressDecision = { addresses: string[] } | { refusal: string };
export type EgressGuard = (host: string, port: number) => Promise<EgressDecision>;

/**
 * Header of the proxy's own answer to a plain-HTTP request it refused (403) or
 * could not connect (502): why, for the scrape to report instead of reading the answer.
 */
export const EGRESS_ERROR_HEADER = 'x-webjobs-egress-error';

/** Recent reasons kept for tunnels, whose failure Chromium reports only as ERR_TUNNEL_CONNECTION_FAILED. */
const MAX_FAILURES_KEPT = 256;

export interface EgressProxy {
  /** http://127.0.0.1:PORT, for Chromium's --proxy-server and Node's own fetches. */
  url: string;
  /** Why the last connection to host:port was refused or failed; undefined once one succeeded. */
  failure(host: string, port: number): string | undefined;
  close(): Promise<void>;
}

/** Chromium flags that send every connection through the egress proxy, loopback included. */
export function egressLaunchArgs(proxyUrl: string): string[] {
  return [
    `--proxy-server=${proxyUrl}`,
    // Chromium sends loopback addresses around a proxy unless told not to.
    '--proxy-bypass-list=<-loopback>',
    // WebRTC would otherwise open UDP (and TCP) connections of its own, around any proxy.
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  ];
}

/** The bare host of a URL's hostname: no IPv6 brackets, no trailing dot of a fully qualified name. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** host and port of a CONNECT target: "example.com:443", "[::1]:80". */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority);
  const port = Number(match?.[3]);
  if (!match || !(port > 0 && port < 65536)) return undefined;
  return { host: (match[1] ?? match[2]!).replace(/\.$/, ''), port };
}

/** Header values must be one line of visible Latin-1. */
const headerSafe = (text: string) => text.replace(/[^\x20-\x7e]/g, '?');

/** Connects to the first of `addresses` that answers. */
async function dialDirect(addresses: string[], port: number): Promise<net.Socket> {
  let last: Error = new Error('no address to connect to');
  for (const address of addresses) {
    try {
      return await connected(net.connect({ host: address, port }));
    } catch (err) {
      last = err as Error;
    }
  }
  throw last;
}

/** A failed connection, worded like the browser's own errors. */
function describeDialError(err: NodeJS.ErrnoException, target: string, upstream: ProxyConfig | undefined): string {
  if (upstream) return err.message;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `connection refused: nothing is listening at ${target}`;
    case 'ECONNRESET':
      return `the connection to ${target} was reset`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `the address of ${target} is unreachable`;
    default:
      return `could not connect to ${target}: ${err.message}`;
  }
}

interface Refused {
  /** 403: the guard refused; 502: the connection failed. */
  status: 403 | 502;
  reason: string;
}

/**
 * Opens a connection for host:port, if the guard allows it: to a checked address,
 * through a tunnel of the upstream, or (`toProxy`, a plain http:// request the
 * upstream takes in absolute form) to the upstream itself.
 */
async function open(guard: EgressGuard, upstream: ProxyConfig | undefined, host: string, port: number, toProxy: boolean): Promise<net.Socket | Refused> {
  const target = authorityOf(host, port);
  const decision = await guard(host, port).catch((err: Error) => ({ refusal: `refused to connect to ${target}: ${err.message}` }));
  if ('refusal' in decision) return { status: 403, reason: decision.refusal };
  try {
    if (!upstream) return await dialDirect(decision.addresses, port);
    return toProxy ? await dialProxy(upstream) : await tunnelThrough(upstream, host, port);
  } catch (err) {
    return { status: 502, reason: describeDialError(err as NodeJS.ErrnoException, target, upstream) };
  }
}

/** Opens connections and remembers why the last one to each host:port did not open. */
class Dialer {
  private readonly failures = new Map<string, string>();
  /** The upstream that takes plain http:// requests in absolute form (an http:// proxy), if any. */
  readonly absoluteVia: ProxyConfig | undefined;

  constructor(
    private readonly guard: EgressGuard,
    private readonly upstream: ProxyConfig | undefined,
  ) {
    this.absoluteVia = upstream && sendsAbsoluteForm(upstream, 'http:') ? upstream : undefined;
  }

  async open(host: string, port: number, toProxy = false): Promise<net.Socket | Refused> {
    const key = authorityOf(host.toLowerCase(), port);
    const opened = await open(this.guard, this.upstream, host, port, toProxy);
    this.failures.delete(key);
    if (opened instanceof net.Socket) return opened;
    if (this.failures.size >= MAX_FAILURES_KEPT) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(key, opened.reason);
    return opened;
  }

  failure(host: string, port: number): string | undefined {
    return this.failures.get(authorityOf(host.toLowerCase(), port));
  }
}

/** Ends two sockets together: when either side closes or fails, so does the other. */
function joinSockets(a: net.Socket, b: net.Socket): void {
  const end = () => {
    a.destroy();
    b.destroy();
  };
  for (const socket of [a, b]) {
    socket.on('error', end);
    socket.on('close', end);
  }
  a.pipe(b);
  b.pipe(a);
  a.resume();
  b.resume();
}

/** Hop-by-hop headers, which concern one connection and are not forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function forwardedHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

async function forwardRequest(dialer: Dialer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let target: URL;
  try {
    target = new URL(req.url ?? '');
  } catch {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('this is a forward proxy: absolute URLs only');
    return;
  }
  if (target.protocol !== 'http:') {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('only http:// is forwarded; use CONNECT for the rest');
    return;
  }
  const host = bareHost(target.hostname);
  // Through an http:// proxy, the request goes to it as it came here, in absolute form (proxies
  // such as Squid tunnel CONNECT only to port 443); else to the site, directly or through a tunnel.
  const via = dialer.absoluteVia;
  const socket = await dialer.open(host, Number(target.port || 80), via !== undefined);
  if (!(socket instanceof net.Socket)) {
    res.writeHead(socket.status, { 'content-type': 'text/plain', [EGRESS_ERROR_HEADER]: headerSafe(socket.reason) }).end(socket.reason);
    return;
  }
  // An unhandled 'error' would take the whole server down: every stream here gets a listener.
  socket.on('error', () => socket.destroy());
  if (req.socket.destroyed) {
    socket.destroy(); // the browser left while we were connecting
    return;
  }
  const authorization = via && proxyAuthorization(via);
  const headers = [...forwardedHeaders(req.rawHeaders), 'connection', 'close', ...(authorization ? ['proxy-authorization', authorization] : [])];
  const path = via ? target.href : `${target.pathname}${target.search}`;
  // Resumed: a tunnel through an upstream proxy comes paused after its handshake.
  const outgoing = http.request({ method: req.method, path, headers, createConnection: () => socket.resume() });
  outgoing.on('response', (answer) => {
    answer.on('error', () => res.destroy());
    if (via && answer.statusCode === 407) {
      // The upstream's own refusal: said as ours, so that Chromium never asks this proxy for credentials.
      answer.resume();
      const reason = refusalOf(via, 407, target.href);
      res.writeHead(502, { 'content-type': 'text/plain', [EGRESS_ERROR_HEADER]: headerSafe(reason) }).end(reason);
      return;
    }
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedHeaders(answer.rawHeaders));
    answer.pipe(res);
  });
  outgoing.on('error', (err: NodeJS.ErrnoException) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // Marked as ours, so that the scrape fails saying why instead of reading this answer as the page.
    const reason = via ? `the proxy ${via.label} gave no answer for ${target.href}: ${err.message}` : describeDialError(err, target.host, undefined);
    res.writeHead(502, { 'content-type': 'text/plain', [EGRESS_ERROR_HEADER]: headerSafe(reason) }).end(reason);
  });
  req.on('error', () => outgoing.destroy());
  res.on('error', () => socket.destroy());
  // The browser gave up on the request (its tab was closed): so does the site's connection.
  res.on('close', () => {
    if (!res.writableFinished) socket.destroy();
  });
  req.pipe(outgoing);
}

async function tunnel(dialer: Dialer, req: IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
  client.on('error', () => client.destroy());
  const target = parseAuthority(req.url ?? '');
  if (!target) {
    client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  const socket = await dialer.open(target.host, target.port);
  if (client.destroyed) {
    if (socket instanceof net.Socket) socket.destroy();
    return;
  }
  if (!(socket instanceof net.Socket)) {
    const status = socket.status === 403 ? '403 Forbidden' : '502 Bad Gateway';
    client.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\n${EGRESS_ERROR_HEADER}: ${headerSafe(socket.reason)}\r\n\r\n`);
    return;
  }
  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length > 0) socket.write(head);
  joinSockets(client, socket);
}

export async function startEgressProxy(guard: EgressGuard, upstream?: ProxyConfig): Promise<EgressProxy> {
  const sockets = new Set<net.Socket>();
  const dialer = new Dialer(guard, upstream);
  const server = http.createServer((req, res) => void forwardRequest(dialer, req, res));
  server.on('connect', (req: IncomingMessage, client: net.Socket, head: Buffer) => void tunnel(dialer, req, client, head));
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // No 'upgrade' listener: Node closes such connections. Chromium tunnels WebSockets with CONNECT.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    failure: (host, port) => dialer.failure(host, port),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
