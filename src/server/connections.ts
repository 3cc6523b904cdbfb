/**
 * serve's connections: how many, from whom, and how long one may sit idle. A
 * connection costs a file descriptor before it sends a byte or shows a key, so
 * without bounds anyone who can reach the port can use them all up (issue 43:
 * 21,000 idle TCP connections, and /healthz was refused).
 *   - `maxConnections`: every connection over it is closed at once (Node's own
 *     net.Server.maxConnections), so descriptors are left for jobs and files.
 *   - `maxConnectionsPerAddress`: one client address may hold no more; its next
 *     connection is told 503 with Retry-After and closed. Behind a reverse proxy
 *     every client has the proxy's address: raise it, or 0 for no such cap.
 *   - `headersTimeout`: a connection must send a request's headers this soon
 *     after it opens (or after its last answer's keep-alive ends): a silent one
 *     is closed (408), and so is one that trickles its headers.
 *   - `keepAliveTimeout`: an idle connection between two requests is closed after it.
 * A request whose answer takes long (a Firecrawl scrape waiting for its job) is
 * not idle: none of these end it.
 */
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  maxConnections: number;
  /** 0: no cap per address. */
  maxConnectionsPerAddress: number;
  headersTimeout: number;
  keepAliveTimeout: number;
}

/** Longest a whole request (headers and a body of up to --body-limit) may take to arrive. */
const REQUEST_TIMEOUT_MS = 60_000;

/** How often Node looks for connections past headersTimeout or the request timeout (its default: 30 s). */
const CHECK_INTERVAL_MS = 1_000;

/** What a connection over its address's cap is told before it is closed; --remote and most clients retry a 503. */
const OVER_CAP_BODY = JSON.stringify({ message: 'too many connections from this address; retry' });
const OVER_CAP =
  'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: application/json\r\n' +
  `Content-Length: ${Buffer.byteLength(OVER_CAP_BODY)}\r\n\r\n${OVER_CAP_BODY}`;

/** The options of http.createServer that bound a connection's idle time (Fastify's `http` option). */
export function httpServerOptions(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeout,
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, limits.headersTimeout),
    keepAliveTimeout: limits.keepAliveTimeout,
    connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, limits.headersTimeout),
  };
}

/** `::ffff:10.0.0.1` (an IPv4 client of a server on `::`) counts as 10.0.0.1. */
function addressOf(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** Caps `server`'s connections, in total and per client address. Call before it listens. */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  server.maxConnections = limits.maxConnections;
  if (limits.maxConnectionsPerAddress <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = addressOf(socket);
    const count = (open.get(address) ?? 0) + 1;
    if (count > limits.maxConnectionsPerAddress) {
      // Closed once the answer is handed to the kernel: a client that never reads cannot keep it open.
      socket.end(OVER_CAP, () => socket.destroy());
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
