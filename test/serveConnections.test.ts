/**
 * `webjobs serve` against clients that hold connections (issue 43, item 7): idle
 * TCP connections from one address, more than the per-address cap, must not keep
 * anyone else out; a connection that sends nothing is closed; over the total cap,
 * new connections are closed at once. The real CLI's server, raw sockets on loopback.
 * On Linux all of 127.0.0.0/8 is loopback: 127.0.0.2 is a second client address.
 */
import net from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'key-connections-0123';
const home = tempHome();
const servers: ServeProcess[] = [];
const sockets: net.Socket[] = [];

function serve(args: string[]): Promise<ServeProcess> {
  return startServe({ args: [...args, '--quiet'], env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale` } }).then((server) => {
    servers.push(server);
    return server;
  });
}

interface Held {
  socket: net.Socket;
  /** Resolves when the server has closed the connection, with what it sent first. */
  closed: Promise<string>;
}

/** A TCP connection to `url` from `localAddress`, which sends nothing; resolves once connected. */
function hold(url: string, localAddress: string): Promise<Held> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress });
    sockets.push(socket);
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    const closed = new Promise<string>((done) => socket.on('close', () => done(received)));
    socket.once('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** GET /healthz on a fresh connection of its own (no pooled one), from `localAddress`. */
function healthz(url: string, localAddress = '127.0.0.1'): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () => {
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

describe('connections', () => {
  it('answers /healthz from a fresh connection while one address holds more idle connections than its cap', async () => {
    const server = await serve(['--max-connections-per-address', '8']);
    // Twice the cap from 127.0.0.2, none of them sending a byte.
    const held = await Promise.all(Array.from({ length: 16 }, () => hold(server.url, '127.0.0.2')));
    const refused = await Promise.race([
      Promise.all(held.slice(8).map((h) => h.closed)),
      new Promise<undefined>((resolve) => setTimeout(resolve, 5_000, undefined)),
    ]);
    // The eight over the cap were told 503 and closed; the first eight stay open.
    expect(refused).toBeDefined();
    for (const answer of refused!) expect(answer).toMatch(/^HTTP\/1\.1 503 .*Retry-After: 1/s);
    expect(held.slice(0, 8).every((h) => !h.socket.destroyed && h.socket.readyState === 'open')).toBe(true);
    // Another address is not held back by them, and neither is 127.0.0.2 once it is under its cap.
    expect(await healthz(server.url)).toEqual({ status: 200, body: '{"status":"ok"}' });
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await expect.poll(async () => (await healthz(server.url, '127.0.0.2')).status, { interval: 50, timeout: 5_000 }).toBe(200);
  });

  it('closes a connection that sends nothing once the headers timeout passes, with 408', async () => {
    const server = await serve(['--headers-timeout', '500']);
    const silent = await hold(server.url, '127.0.0.1');
    const answer = await silent.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect((await healthz(server.url)).status).toBe(200);
  });

  it('closes connections over the total cap at once', async () => {
    const server = await serve(['--max-connections', '4', '--max-connections-per-address', '0']);
    const held = await Promise.all(['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'].map((address) => hold(server.url, address)));
    const over = await hold(server.url, '127.0.0.6');
    expect(await over.closed).toBe('');
    expect(held.every((h) => h.socket.readyState === 'open')).toBe(true);
  });

  it('refuses a bad cap as a usage error', async () => {
    const result = await runCli(['serve', '--max-connections', '0'], { env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale` } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--max-connections must be at least 1/);
  });
});
