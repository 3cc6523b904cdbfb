/**
 * Forward proxies on 127.0.0.1 for tests, behaving by default as real ones do:
 *
 * - startProxy: like Squid's default configuration. A plain `http://` request
 *   must come in absolute form (`GET http://host/path`; origin form is refused
 *   with 400, as Squid answers ERR_INVALID_URL) and is forwarded; `CONNECT` is
 *   allowed only to the SSL ports (443 unless `connectPorts` says otherwise, as
 *   Squid's SSL_ports acl is configurable) and answered 403 elsewhere. With
 *   credentials it wants Basic authentication: 407 with Proxy-Authenticate
 *   without them or with wrong ones, for plain requests and CONNECT alike.
 * - startSocksProxy: SOCKS5 (RFC 1928) without authentication, CONNECT by
 *   IPv4, IPv6 or name; a method it does not offer gets 0xFF, as real servers answer.
 * - startClosingProxy: accepts the connection and closes it on the first bytes.
 *
 * Each logs what it forwarded or refused.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TestProxy {
  url: string;
  port: number;
  /** Absolute URLs forwarded (plain requests) and host:port tunnelled (CONNECT, SOCKS), in order. */
  forwarded: string[];
  /** Requests refused for missing or wrong credentials (407). */
  refused: number;
  /** What was refused by rule: `CONNECT host:port` (403), or a request not in absolute form (400). */
  denied: string[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** Ports CONNECT may tunnel to (Squid's SSL_ports); default [443]. */
  connectPorts?: number[];
}

/** Squid's error pages are HTML; so are these. */
function errorPage(status: number, reason: string, extra: Record<string, string> = {}): string {
  const body = `<html><body><h1>${status} ${reason}</h1></body></html>`;
  const headers = { 'Content-Type': 'text/html', 'Content-Length': String(body.length), ...extra };
  return `HTTP/1.1 ${status} ${reason}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`;
}

const HOP_BY_HOP = ['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade'];

function tracked(server: net.Server): Set<net.Socket> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return sockets;
}

async function listen(server: net.Server, sockets: Set<net.Socket>): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export async function startProxy(credentials?: { username: string; password: string }, options: ProxyOptions = {}): Promise<TestProxy> {
  const connectPorts = options.connectPorts ?? [443];
  const expected = credentials ? 'Basic ' + Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64') : undefined;
  const state = { forwarded: [] as string[], refused: 0, denied: [] as string[] };
  const authorised = (req: http.IncomingMessage) => !expected || req.headers['proxy-authorization'] === expected;
  const challenge = { 'Proxy-Authenticate': 'Basic realm="Squid proxy-caching web server"' };

  const server = http.createServer((req, res) => {
    let target: URL | undefined;
    try {
      target = new URL(req.url ?? '');
    } catch {
      target = undefined;
    }
    if (!target || target.protocol !== 'http:') {
      state.denied.push(`${req.method} ${req.url}`);
      res.writeHead(400, { 'content-type': 'text/html', 'x-squid-error': 'ERR_INVALID_URL 0' }).end('<h1>Invalid URL</h1>');
      return;
    }
    if (!authorised(req)) {
      state.refused++;
      res.writeHead(407, { 'content-type': 'text/html', ...challenge }).end('<h1>Cache Access Denied</h1>');
      return;
    }
    state.forwarded.push(target.href);
    const headers: http.OutgoingHttpHeaders = { ...req.headers, via: '1.1 squid-standin' };
    for (const name of HOP_BY_HOP) delete headers[name];
    const upstream = http.request(
      { host: target.hostname, port: target.port || 80, path: target.pathname + target.search, method: req.method, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
    });
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on('error', () => client.destroy());
    if (!authorised(req)) {
      state.refused++;
      client.write(errorPage(407, 'Proxy Authentication Required', challenge));
      return;
    }
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    if (!match || !connectPorts.includes(Number(match[2]))) {
      // http_access deny CONNECT !SSL_ports
      state.denied.push(`CONNECT ${req.url}`);
      client.end(errorPage(403, 'Forbidden', { 'X-Squid-Error': 'ERR_ACCESS_DENIED 0' }));
      return;
    }
    state.forwarded.push(req.url ?? '');
    const upstream = net.connect(Number(match[2]), match[1]!.replace(/^\[|\]$/g, ''), () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  const { port, close } = await listen(server, tracked(server));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get forwarded() {
      return state.forwarded;
    },
    get refused() {
      return state.refused;
    },
    get denied() {
      return state.denied;
    },
    close,
  };
}

/** Reads exactly `n` bytes from `socket` (SOCKS messages are tiny; a stalled client is simply dropped at close). */
function readBytes(socket: net.Socket, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (data.length < n) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      if (data.length > n) socket.unshift(data.subarray(n));
      resolve(data.subarray(0, n));
    };
    const onClose = () => reject(new Error('closed'));
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.resume();
  });
}

export async function startSocksProxy(): Promise<TestProxy> {
  const state = { forwarded: [] as string[], denied: [] as string[] };
  const server = net.createServer((client) => {
    client.on('error', () => client.destroy());
    void (async () => {
      const [version, count] = await readBytes(client, 2);
      const methods = await readBytes(client, count!);
      if (version !== 5 || !methods.includes(0)) {
        state.denied.push('no acceptable method');
        client.end(Buffer.from([5, 0xff]));
        return;
      }
      client.write(Buffer.from([5, 0]));
      const [, command, , type] = await readBytes(client, 4);
      let host: string;
      if (type === 1) host = [...(await readBytes(client, 4))].join('.');
      else if (type === 4) host = `[${(await readBytes(client, 16)).toString('hex').match(/.{4}/g)!.join(':')}]`;
      else host = (await readBytes(client, (await readBytes(client, 1))[0]!)).toString('latin1');
      const port = (await readBytes(client, 2)).readUInt16BE(0);
      const reply = (code: number) => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
      if (command !== 1) {
        state.denied.push(`command ${command}`);
        client.end(reply(7));
        return;
      }
      state.forwarded.push(`${host}:${port}`);
      const upstream = net.connect(port, host.replace(/^\[|\]$/g, ''), () => {
        client.write(reply(0));
        upstream.pipe(client);
        client.pipe(upstream);
        client.resume();
      });
      upstream.on('error', () => client.end(reply(5)));
      client.on('close', () => upstream.destroy());
    })().catch(() => client.destroy());
  });
  const { port, close } = await listen(server, tracked(server));
  return {
    url: `socks5://127.0.0.1:${port}`,
    port,
    get forwarded() {
      return state.forwarded;
    },
    refused: 0,
    get denied() {
      return state.denied;
    },
    close,
  };
}

/** A proxy that takes the connection and closes it as soon as anything is said. */
export async function startClosingProxy(): Promise<{ url: string; port: number; connections: number; close(): Promise<void> }> {
  const state = { connections: 0 };
  const server = net.createServer((socket) => {
    state.connections++;
    socket.on('error', () => socket.destroy());
    socket.once('data', () => socket.destroy());
  });
  const { port, close } = await listen(server, tracked(server));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return state.connections;
    },
    close,
  };
}

/** A port on 127.0.0.1 where nothing listens: a proxy that is down. */
export async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
