/**
 * A PostgreSQL server of our own for tests and benchmarks: initdb + pg_ctl in a temporary directory
 * on a free port (as the `postgres` user when we run as root), removed after.
 * WEBJOBS_TEST_DATABASE_URL, when given, is used instead (each call gets a fresh
 * database on it), so tests never depend on a system service but may use one.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  /** postgres://… of a database no other test file uses. */
  url: string;
  /** Stops the server and starts it again on the same port and data (a database restart mid-run). */
  restart(): Promise<void>;
  /** Stops the server, keeping its data and port, until up() (a database down for a while). */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

/** Debian keeps each major version's binaries in /usr/lib/postgresql/N/bin, not on PATH: the newest wins. */
function pgBin(name: string): string {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)) : [];
  for (const version of versions.sort((a, b) => Number(b) - Number(a))) {
    const bin = path.join('/usr/lib/postgresql', version, 'bin', name);
    if (existsSync(bin)) return bin;
  }
  return name; // on PATH
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary as `postgres` when we are root (initdb refuses root). */
function runPg(args: string[]): void {
  const [bin, ...rest] = args;
  const asRoot = process.getuid?.() === 0;
  const command = asRoot ? 'runuser' : pgBin(bin!);
  const argv = asRoot ? ['-u', 'postgres', '--', pgBin(bin!), ...rest] : rest;
  execFileSync(command, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
}

async function freshDatabase(baseUrl: string): Promise<string> {
  const name = `webjobs_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.href;
}

export async function startPostgres(): Promise<TestPostgres> {
  const given = process.env.WEBJOBS_TEST_DATABASE_URL;
  if (given) {
    const url = await freshDatabase(given);
    return {
      url,
      restart: async () => {
        throw new Error('a restart needs the test suite own PostgreSQL; unset WEBJOBS_TEST_DATABASE_URL');
      },
      down: async () => {
        throw new Error('stopping the database needs the test suite own PostgreSQL; unset WEBJOBS_TEST_DATABASE_URL');
      },
      up: async () => undefined,
      stop: async () => undefined,
    };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-pg-'));
  const data = path.join(dir, 'data');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  runPg(['initdb', '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const start = () =>
    runPg([
      'pg_ctl', '-D', data, '-w', '-t', '60', '-l', path.join(dir, 'log'), '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start',
    ]);
  const stopServer = () => runPg(['pg_ctl', '-D', data, '-w', '-t', '60', '-m', 'fast', 'stop']);
  start();
  let running = true;
  const url = await freshDatabase(`postgres://postgres@127.0.0.1:${port}/postgres`);
  return {
    url,
    restart: async () => {
      stopServer();
      start();
    },
    down: async () => {
      stopServer();
      running = false;
    },
    up: async () => {
      start();
      running = true;
    },
    stop: async () => {
      try {
        if (running) stopServer();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
