/**
 * A forward HTTP proxy on 127.0.0.1 for tests: plain requests and CONNECT
 * tunnels, optional Basic authentication, and a log of what it forwarded.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TestProxy {
  url: string;
  port: number;
  /** Target URLs (or host:port for CONNECT) forwarded, in order. */
  forwarded: string[];
  /** Requests refused for missing or wrong credentials. */
  refused: number;
  close(): Promise<void>;
}

export async function startProxy(credentials?: { username: string; password: string }): Promise<TestProxy> {
  const expected = credentials ? 'Basic ' + Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64') : undefined;
  const sockets = new Set<net.Socket>();
  const state = { forwarded: [] as string[], refused: 0 };
  const authorised = (req: http.IncomingMessage) => !expected || req.headers['proxy-authorization'] === expected;

  const server = http.createServer((req, res) => {
    if (!authorised(req)) {
      state.refused++;
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' });
      res.end();
      return;
    }
    state.forwarded.push(req.url ?? '');
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request(
      { host: target.hostname, port: target.port || 80, path: target.pathname + target.search, method: req.method, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connect', (req, client, head) => {
    if (!authorised(req)) {
      state.refused++;
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
      return;
    }
    state.forwarded.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get forwarded() {
      return state.forwarded;
    },
    get refused() {
      return state.refused;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
