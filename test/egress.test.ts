/**
 * The egress proxy of `webjobs serve` (src/engine/egress.ts) with the server's
 * guard (createEgressGuard), in process, driven by plain HTTP clients: it dials
 * the address its own resolver checked, so what the system resolver (or a DNS
 * server changing its answer) says later does not matter.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEgressProxy, EGRESS_ERROR_HEADER, type EgressProxy } from '../src/engine/egress.js';
import { createEgressGuard } from '../src/server/ssrf.js';

let site: http.Server;
let sitePort: number;
let connections = 0;
const hosts: string[] = [];
let egress: EgressProxy;
/** What the guard's resolver is asked, in order. */
const asked: string[] = [];

beforeAll(async () => {
  site = http.createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' }).end('site');
  });
  site.on('connection', () => connections++);
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as AddressInfo).port;
  // `.test` names never resolve on this machine: only the guard's answer can be dialed.
  const lookup = async (host: string) => {
    asked.push(host);
    if (host === 'pinned.test' || host === 'rebind.test') return ['127.0.0.1'];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };
  egress = await startEgressProxy(createEgressGuard({ allow: new Set([`pinned.test:${sitePort}`]), lookup, cacheMs: 0 }));
});

afterAll(async () => {
  await egress?.close();
  await new Promise((resolve) => site?.close(resolve));
});

/** A plain-HTTP request through the proxy (absolute URL), as Chromium sends it. */
function viaProxy(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const proxy = new URL(egress.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: proxy.hostname, port: proxy.port, path: url, headers: { host: new URL(url).host } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A CONNECT through the proxy; resolves with the status line. */
function connectVia(authority: string): Promise<string> {
  const proxy = new URL(egress.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(proxy.port), proxy.hostname, () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk;
      if (head.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(head);
      }
    });
    socket.on('error', reject);
  });
}

describe('egress proxy', () => {
  it("dials the address the guard's resolver checked, keeping the Host the page asked for", async () => {
    const answer = await viaProxy(`http://pinned.test:${sitePort}/`);
    expect(answer).toMatchObject({ status: 200, body: 'site' });
    expect(hosts.at(-1)).toBe(`pinned.test:${sitePort}`);
    expect(asked).toContain('pinned.test');
  });

  it('refuses a name that resolves to a refused address, for plain HTTP and for tunnels, without connecting', async () => {
    const before = connections;
    const plain = await viaProxy(`http://rebind.test:${sitePort}/`);
    expect(plain.status).toBe(403);
    expect(plain.headers[EGRESS_ERROR_HEADER]).toMatch(/^refused to connect to rebind\.test:\d+: rebind\.test \(127\.0\.0\.1\) is a loopback/);
    expect(await connectVia(`rebind.test:${sitePort}`)).toMatch(/^HTTP\/1\.1 403/);
    expect(await connectVia(`[::1]:${sitePort}`)).toMatch(/^HTTP\/1\.1 403/);
    expect(egress.failure('::1', sitePort)).toMatch(/^refused to connect to \[::1\]:\d+/);
    expect(connections - before).toBe(0);
  });

  it('a name the resolver cannot resolve is refused, never left to another resolver', async () => {
    const answer = await viaProxy(`http://elsewhere.test:${sitePort}/`);
    expect(answer.status).toBe(403);
    expect(answer.headers[EGRESS_ERROR_HEADER]).toMatch(/^DNS lookup failed/);
  });
});

/** A SOCKS5 proxy without authentication, standing for the user's: it resolves every name to 127.0.0.1 and logs what it was asked. */
async function startSocks(): Promise<{ port: number; asked: string[]; close(): Promise<void> }> {
  const askedOf: string[] = [];
  const server = net.createServer((client) => {
    client.on('error', () => client.destroy());
    client.once('data', () => {
      client.write(Buffer.from([5, 0]));
      client.once('data', (request: Buffer) => {
        const name = request.subarray(5, 5 + request[4]!).toString();
        const port = request.readUInt16BE(5 + request[4]!);
        askedOf.push(`${name}:${port}`);
        const upstream = net.connect(port, '127.0.0.1', () => {
          client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, port >> 8, port & 255]));
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    asked: askedOf,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('egress proxy chained to a SOCKS5 proxy', () => {
  it('checks the name here, then has the SOCKS5 proxy connect to it by name; a refused name never reaches it', async () => {
    const socks = await startSocks();
    const lookup = async (host: string) => (host === 'pinned.test' || host === 'rebind.test' ? ['127.0.0.1'] : []);
    const upstream = { server: `socks5://127.0.0.1:${socks.port}`, url: `socks5://127.0.0.1:${socks.port}`, label: 'socks5://127.0.0.1' };
    const chained = await startEgressProxy(createEgressGuard({ allow: new Set([`pinned.test:${sitePort}`]), lookup }), upstream);
    try {
      const through = (url: string) =>
        new Promise<number>((resolve, reject) => {
          const proxy = new URL(chained.url);
          const req = http.request({ host: proxy.hostname, port: proxy.port, path: url }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
          req.end();
        });
      expect(await through(`http://pinned.test:${sitePort}/`)).toBe(200);
      expect(await through(`http://rebind.test:${sitePort}/`)).toBe(403);
      expect(socks.asked).toEqual([`pinned.test:${sitePort}`]);
    } finally {
      await chained.close();
      await socks.close();
    }
  });
});
