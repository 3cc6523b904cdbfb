/**
 * A webhook receiver on 127.0.0.1, as a real one behaves: it answers each POST as the test says (2xx, an error
 * status, late, or never), keeps each delivery's raw body and headers, and counts the connections made to it
 * (the address guard's tests: a refused address never gets one).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Received {
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: http.IncomingHttpHeaders;
  path: string;
}

/** How the receiver answers one delivery: a status now, or `hold` (answered when the test releases it, or never). */
export type Answer = number | 'hold';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  connections(): number;
  /** How each delivery is answered (default 200). */
  answer: (delivery: Received, index: number) => Answer;
  /** Deliveries being answered at once, at most, so far. */
  maxInFlight(): number;
  /** Answers the held deliveries with `status`. */
  release(status?: number): void;
  /** Resolves once `count` deliveries (attempts) have come. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const held: http.ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const waiters: { count: number; resolve: () => void }[] = [];
  let connections = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const delivery: Received = { raw, body: raw ? JSON.parse(raw) : undefined, headers: req.headers, path: req.url ?? '/' };
      received.push(delivery);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.on('close', () => inFlight--);
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const answer = receiver.answer(delivery, received.length - 1);
      if (answer === 'hold') held.push(res);
      else res.writeHead(answer).end();
    });
  });
  server.on('connection', (socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    connections: () => connections,
    answer: () => 200,
    maxInFlight: () => maxInFlight,
    release: (status = 200) => {
      for (const res of held.splice(0)) if (!res.writableEnded && !res.destroyed) res.writeHead(status).end();
    },
    waitFor: (count) => (received.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** What a receiver does with X-Firecrawl-Signature: the HMAC of the raw body, compared in constant time. */
export function signatureValid(secret: string, raw: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
