/**
 * directFetch (engine/session/directFetch.ts): the requests without a proxy go over
 * node:http, answered and failing as Node's fetch answers and fails. Each answer of
 * a real server on 127.0.0.1 is read both ways and compared.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asPlain, type PlainResponse } from '../src/engine/crawl/fetchText.js';
import { directFetch } from '../src/engine/session/directFetch.js';
import { timeoutSignal } from '../src/engine/timeoutSignal.js';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml } from './helpers/fixtureServer.js';

const TEXT = `<p>${'Rivers run to the sea. '.repeat(400)}</p>`;
let server: http.Server;
let base: string;
/** The headers of the last request to /echo. */
let echoed: http.IncomingHttpHeaders = {};
/** Resolves when /partial's connection closed. */
let partialClosed: Promise<void> = Promise.resolve();

const encoded: Record<string, [string, Buffer]> = {
  '/gzip': ['gzip', zlib.gzipSync(TEXT)],
  '/x-gzip': ['x-gzip', zlib.gzipSync(TEXT)],
  '/deflate': ['deflate', zlib.deflateSync(TEXT)],
  '/deflate-raw': ['deflate', zlib.deflateRawSync(TEXT)],
  '/br': ['br', zlib.brotliCompressSync(TEXT)],
  '/gzip-br': ['gzip, br', zlib.brotliCompressSync(zlib.gzipSync(TEXT))],
  '/unknown': ['compress', Buffer.from(TEXT)],
  '/identity': ['identity', Buffer.from(TEXT)],
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const coded = encoded[url];
    if (coded) return void res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': coded[0] }).end(coded[1]);
    if (url === '/echo') {
      echoed = req.headers;
      return void res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] }).end('echo');
    }
    if (url === '/not-modified') return void res.writeHead(304, { etag: '"v1"' }).end();
    if (url === '/redirect') return void res.writeHead(302, { location: '/echo' }).end('moved');
    if (url === '/hang') return;
    if (url === '/partial') {
      partialClosed = new Promise((resolve) => res.on('close', () => resolve()));
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' });
      return void res.write('<p>part');
    }
    if (url === '/reset') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' });
      res.write('<p>part', () => req.socket.destroy());
      return;
    }
    res.writeHead(404, 'Not Here').end('missing');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const init = { headers: { 'user-agent': 'webjobs-test' }, redirect: 'manual' as const };

/** The body's text, read as the engine's readers read it. */
async function textOf(response: PlainResponse): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response.body ?? []) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** What a caller reads of an answer: everything but the date, which differs between two requests. */
async function read(response: PlainResponse) {
  return {
    status: response.status,
    ok: response.ok,
    url: response.url,
    headers: [...response.headers.entries()].filter(([name]) => name !== 'date'),
    contentType: response.headers.get('Content-Type'),
    cookies: response.headers.get('set-cookie'),
    body: response.body ? await textOf(response) : null,
  };
}

describe('directFetch answers as fetch does', () => {
  it.each([...Object.keys(encoded), '/echo', '/not-modified', '/redirect', '/missing#fragment'])('%s', async (path) => {
    const ours = await read(await directFetch(`${base}${path}`, init));
    const fetched = await read(asPlain(await fetch(`${base}${path}`, init)));
    expect(ours).toEqual(fetched);
    if (encoded[path] && path !== '/unknown') expect(ours.body).toBe(TEXT);
  });

  it('sends the headers fetch adds when the caller did not set them, and keeps the ones it did', async () => {
    await textOf(await directFetch(`${base}/echo`, init));
    expect(echoed).toMatchObject({ 'user-agent': 'webjobs-test', accept: '*/*', 'accept-language': '*', 'accept-encoding': 'gzip, deflate' });
    await textOf(await directFetch(`${base}/echo`, { headers: { Accept: 'text/html', 'If-None-Match': '"v1"' } }));
    expect(echoed).toMatchObject({ accept: 'text/html', 'if-none-match': '"v1"' });
  });
});

describe('directFetch fails as fetch does', () => {
  it('refuses a port browsers refuse', async () => {
    const err = await directFetch('http://127.0.0.1:25/').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toBe('fetch failed');
    expect(((err as Error).cause as Error).message).toBe('bad port');
  });

  it('takes http and https URLs only', async () => {
    const err = await directFetch('ftp://127.0.0.1/file').catch((e: unknown) => e);
    expect((err as Error).message).toBe('fetch failed');
  });

  it('a refused connection: fetch failed, the system error its cause', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await directFetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect((err as Error).message).toBe('fetch failed');
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('a timeout before the answer rejects with the TimeoutError; one while the body comes fails reading it', async () => {
    const before = await directFetch(`${base}/hang`, { signal: timeoutSignal(100) }).catch((e: unknown) => e);
    expect((before as Error).name).toBe('TimeoutError');
    const response = await directFetch(`${base}/partial`, { signal: timeoutSignal(300) });
    expect(response.status).toBe(200);
    const during = await textOf(response).catch((e: unknown) => e);
    expect((during as Error).name).toBe('TimeoutError');
    // The connection is closed, not left to the server.
    await partialClosed;
  });

  it('a connection the server closes before the end of the body: "terminated", the reset its cause', async () => {
    const response = await directFetch(`${base}/reset`);
    const err = await textOf(response).catch((e: unknown) => e);
    expect((err as Error).message).toBe('terminated');
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
  });

  it('cancelling the body closes the connection', async () => {
    const response = await directFetch(`${base}/partial`);
    await response.body!.cancel();
    await partialClosed;
  });
});

describe('directFetch over https', () => {
  it('reads a page whose certificate Node trusts (NODE_EXTRA_CA_CERTS, through the CLI); one it does not trust fails as fetch fails', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-direct-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const page = html(`<article><h1>Over TLS</h1>${articleText('secure')}</article>`, { title: 'Over TLS' });
    const server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (_req, res) => sendHtml(res, page));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/secure`;
    try {
      const ours = await directFetch(url).catch((e: unknown) => e);
      const fetched = await fetch(url).catch((e: unknown) => e);
      expect((ours as Error).message).toBe('fetch failed');
      expect(((ours as Error).cause as NodeJS.ErrnoException).code).toBe(((fetched as Error).cause as NodeJS.ErrnoException).code);
      const env = { WEBJOBS_HOME: tempHome(), NODE_EXTRA_CA_CERTS: path.join(dir, 'cert.pem') };
      const { code, stdout, stderr } = await runCli(['scrape', url, '--engine', 'http'], { env });
      expect(code, stderr).toBe(0);
      expect(stdout).toContain('Over TLS');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('directFetch on a kept-alive connection the server closes', () => {
  it('a GET the server closed its kept-alive connection on is sent again, once, on a new connection; a new connection closed fails', async () => {
    // Answers the first request of each connection, kept alive, and closes the connection on the second, unanswered:
    // what a server whose idle timeout meets the client's reuse of the connection does. /never: closed at once.
    const requests: string[][] = [];
    const server = net.createServer((socket) => {
      const seen: string[] = [];
      requests.push(seen);
      socket.on('data', (chunk: Buffer) => {
        for (const [, target] of chunk.toString('latin1').matchAll(/^GET (\S+) HTTP/gm)) {
          seen.push(target!);
          if (seen.length > 1 || target === '/never') return void socket.end();
          socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${target!.length}\r\nconnection: keep-alive\r\n\r\n${target}`);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await textOf(await directFetch(`${origin}/first`))).toBe('/first');
      expect(await textOf(await directFetch(`${origin}/second`))).toBe('/second');
      expect(requests).toEqual([['/first', '/second'], ['/second']]);
      // Sent on the kept-alive connection, closed there, sent again on a new one, closed there too: that is not retried.
      const err = await directFetch(`${origin}/never`).catch((e: unknown) => e);
      expect((err as Error).message).toBe('fetch failed');
      expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
      expect(requests).toEqual([['/first', '/second'], ['/second', '/never'], ['/never']]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
