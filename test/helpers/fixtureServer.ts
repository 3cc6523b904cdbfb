/**
 * A real HTTP server on 127.0.0.1 for tests. Routes are plain functions; unknown
 * paths answer 404. Every test page must only reference 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export interface FixtureServer {
  url: string;
  /** Absolute URL of a path on this server. */
  at(path: string): string;
  /** Requests seen, as "METHOD path". */
  requests: string[];
  /** Requests seen with the headers they came with (cookie and user-agent among them). */
  received: ReceivedRequest[];
  close(): Promise<void>;
}

export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: http.IncomingHttpHeaders;
}

export function html(body: string, { title = 'Test page', head = '', lang = 'en' } = {}): string {
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;
}

export function sendHtml(res: http.ServerResponse, content: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(content);
}

/**
 * `fallback` answers paths no route names (default: a 404 page). `host`: another
 * loopback address (127.0.0.2) stands for a second site, as cookies ignore ports.
 */
export async function startFixtureServer(routes: Record<string, Handler>, fallback?: Handler, host = '127.0.0.1'): Promise<FixtureServer> {
  const requests: string[] = [];
  const received: ReceivedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(async (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    received.push({ method: req.method ?? '', path: req.url ?? '/', headers: req.headers });
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const handler = routes[req.url ?? '/'] ?? routes[path];
    try {
      if (handler) await handler(req, res);
      else if (fallback) await fallback(req, res);
      else sendHtml(res, html('<h1>Not found</h1><p>No such page.</p>', { title: 'Not found' }), 404);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    at: (path) => new URL(path, url).href,
    requests,
    received,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A long article body, so that Readability recognises the main content. */
export function articleText(topic: string, paragraphs = 6): string {
  return Array.from(
    { length: paragraphs },
    (_, i) =>
      `<p>Paragraph ${i + 1} about ${topic}. It has enough words to look like the body of a real article, ` +
      `with commas, clauses and sentences that go on for a while, so that extraction keeps it.</p>`,
  ).join('\n');
}
