/**
 * `serve --database` while its PostgreSQL is down: the API answers 503 with
 * Retry-After (never a 500), /healthz says the database is unreachable (503),
 * and a `--remote` client retries the 503 until the database is back. A real
 * PostgreSQL, started, stopped and started again by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, tempHome } from './helpers/cli.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'pg-down-key-0123456789';
const SLOW = 180_000;

let pg: TestPostgres;
let serve: ServeProcess;

beforeAll(async () => {
  pg = await startPostgres();
  // Not --quiet: the test waits for the request log's 503 of the remote client.
  serve = await startServe({ args: ['--database', pg.url, '--no-worker', '--allow-private'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
}, SLOW);

afterAll(async () => {
  await serve?.stop();
  await pg?.stop();
}, SLOW);

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; retryAfter: string | null; json: any }> {
  const res = await fetch(`${serve.url}${path}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: await res.json() };
}

const logged = (pattern: RegExp) => serve.stderr().match(new RegExp(pattern, 'g'))?.length ?? 0;

/** Resolves once serve's stderr has more lines matching `pattern` than `before`. */
function untilLogged(pattern: RegExp, before: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (logged(pattern) <= before) return false;
      serve.child.stderr!.off('data', check);
      resolve();
      return true;
    };
    if (!check()) serve.child.stderr!.on('data', check);
  });
}

describe('serve --database with the database down', () => {
  it('answers 503 with Retry-After, says so in /healthz, and a --remote client waits it out', async () => {
    expect(await call('GET', '/healthz')).toMatchObject({ status: 200, json: { status: 'ok', database: 'ok' } });
    const started = await call('POST', '/api/scrape', { url: 'http://127.0.0.1:9/page' });
    expect(started.status).toBe(200);
    const { jobId } = started.json as { jobId: string };

    if (process.env.WEBJOBS_TEST_DATABASE_URL) return; // the given server is not ours to stop
    await pg.down();
    const status = await call('GET', `/api/scrape/${jobId}/status`);
    expect(status.status).toBe(503);
    expect(status.retryAfter).toBe('5');
    expect(status.json.message).toMatch(/job database cannot be reached/);
    const start = await call('POST', '/api/scrape', { url: 'http://127.0.0.1:9/other' });
    expect(start.status).toBe(503);
    expect(start.retryAfter).toBe('5');
    expect((await call('GET', '/api/jobs')).status).toBe(503);
    const health = await call('GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.json.status).toBe('unavailable');
    expect(health.json.database).toMatch(/^unreachable/);

    // A remote client meets the 503, waits as Retry-After says, and gets its answer once the database is back.
    const statusRefused = new RegExp(`GET /api/[a-z/]*${jobId}[^ ]* 503`);
    const refusedBefore = logged(statusRefused);
    const remote = startCli(['status', jobId, '--remote', serve.url, '--api-key', KEY], { env: { WEBJOBS_HOME: tempHome() }, timeoutMs: 120_000 });
    await untilLogged(statusRefused, refusedBefore);
    await pg.up();
    const done = await remote.done;
    expect(done.stderr).not.toMatch(/503|internal error/);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/pending|running|failed|completed/);
    expect(await call('GET', '/healthz')).toMatchObject({ status: 200, json: { status: 'ok', database: 'ok' } });
  }, SLOW);
});
