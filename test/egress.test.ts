/**
 * The egress proxy of `webjobs serve` (src/engine/net/egress.ts) with the server's
 * guard (createEgressGuard), in process, driven by plain HTTP clients: it dials
 * the address its own resolver checked, so what the system resolver (or a DNS
 * server changing its answer) says later does not matter.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEgressProxy, EGRESS_ERROR_HEADER, type EgressProxy } from '../src/engine/net/egress.js';
import { createEgressGuard } from '../src/engine/net/ssrf.js';

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

/** A self-signed certificate for 127.0.0.1, made for this run (openssl), and where it lies. */
function selfSignedCertificate(): { key: string; cert: string; certFile: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-egress-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'), certFile: path.join(dir, 'cert.pem') };
}

/** An https:// proxy standing for the user's: TLS to it, then CONNECT, which it dials on 127.0.0.1 whatever the name; logs what it was asked. */
async function startHttpsProxy(tlsOptions: { key: string; cert: string }): Promise<{ port: number; asked: string[]; close(): Promise<void> }> {
  const askedOf: string[] = [];
  const server = tls.createServer(tlsOptions, (client) => {
    client.on('error', () => client.destroy());
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const authority = /^CONNECT (\S+) HTTP/.exec(head)?.[1] ?? '';
      askedOf.push(authority);
      const upstream = net.connect(Number(authority.split(':').at(-1)), '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    asked: askedOf,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The egress proxy chained to `upstream`, in a child process of the built code: Node 20
 * trusts a certificate authority of a test only through NODE_EXTRA_CA_CERTS, read at start.
 * Resolves with GET `url` through it: the status and the egress error header.
 */
function throughChildEgress(upstream: string, url: string, env: NodeJS.ProcessEnv): Promise<{ status: number; error?: string }> {
  const dist = (file: string) => JSON.stringify(fileURLToPath(new URL(`../dist/${file}`, import.meta.url)));
  const script = `
    const { startEgressProxy } = await import(${dist('engine/net/egress.js')});
    const { createEgressGuard } = await import(${dist('engine/net/ssrf.js')});
    const lookup = async (host) => (host === 'pinned.test' || host === 'rebind.test' ? ['127.0.0.1'] : []);
    const guard = createEgressGuard({ allow: new Set(['pinned.test:${sitePort}']), lookup });
    const proxy = await startEgressProxy(guard, { server: ${JSON.stringify(upstream)}, url: ${JSON.stringify(upstream)}, label: ${JSON.stringify(upstream)} });
    const target = new URL(proxy.url);
    const http = await import('node:http');
    http.request({ host: target.hostname, port: target.port, path: ${JSON.stringify(url)} }, (res) => {
      res.resume();
      res.on('end', () => { console.log(JSON.stringify({ status: res.statusCode, error: res.headers[${JSON.stringify(EGRESS_ERROR_HEADER)}] })); proxy.close().then(() => process.exit(0)); });
    }).end();`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env } }, (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout) as { status: number; error?: string }),
    );
  });
}

describe('egress proxy chained to an https:// proxy', () => {
  it('speaks TLS to the proxy, verifies its certificate, and CONNECTs only to names the guard allowed', async () => {
    const certificate = selfSignedCertificate();
    const proxy = await startHttpsProxy(certificate);
    const upstream = `https://127.0.0.1:${proxy.port}`;
    try {
      const trusted = { NODE_EXTRA_CA_CERTS: certificate.certFile };
      expect(await throughChildEgress(upstream, `http://pinned.test:${sitePort}/`, trusted)).toMatchObject({ status: 200 });
      expect(await throughChildEgress(upstream, `http://rebind.test:${sitePort}/`, trusted)).toMatchObject({ status: 403 });
      expect(proxy.asked).toEqual([`pinned.test:${sitePort}`]);
      // A proxy whose certificate is not trusted is never talked to in clear: the page fails (502).
      const untrusted = await throughChildEgress(upstream, `http://pinned.test:${sitePort}/`, {});
      expect(untrusted.status).toBe(502);
      expect(untrusted.error).toMatch(/self[- ]signed/i);
      expect(proxy.asked).toEqual([`pinned.test:${sitePort}`]);
    } finally {
      await proxy.close();
      rmSync(path.dirname(certificate.certFile), { recursive: true, force: true });
    }
  });
});
