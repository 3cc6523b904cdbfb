/**
 * Webhooks on PostgreSQL (issue 60): serve --database --no-worker (an API node) and a `webjobs worker`; the job's
 * deliveries are owed in the database in the transaction of each event and sent by the API node. The contract
 * both stores keep (helpers/webhookContractCases.ts: in order, one at a time, signed, retried, dropped and
 * counted, the address guard at start), then this store's own: a job's owed deliveries bounded at 100, and
 * deliveries owed when the node stops sent by the next one. A receiver on loopback fails, hangs, or answers. serve runs
 * without --allow-private: the site's and the receiver's ports are let through by --allow-host.
 */
import pgClient from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';
import { IN_ORDER, webhookContractCases } from './helpers/webhookContractCases.js';
import { signatureValid, startReceiver, type Receiver } from './helpers/webhookReceiver.js';
import { migrate } from '../src/pg/migrations.js';
import { PgWebhookSender } from '../src/pg/webhooks.js';
import { startWorker, type WorkerProcess } from './helpers/worker.js';

const KEY = 'pg-hook-key-0123456789';
const SECRET = 'pg-webhook-secret-for-tests';
const PAGES = ['/a', '/b', '/c'];

let pg: TestPostgres;
let site: FixtureServer;
let receiver: Receiver;
let serve: ServeProcess;
let worker: WorkerProcess;
const client = serveClient(() => serve.url, KEY);

function startNode(): Promise<ServeProcess> {
  const allow = ['--allow-host', new URL(site.url).host, '--allow-host', `127.0.0.1:${receiver.port}`];
  return startServe({
    args: [...allow, '--database', pg.url, '--no-worker', '--webhook-retry-delays', '50ms,100ms'],
    env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale`, WEBJOBS_WEBHOOK_SECRET: SECRET },
  });
}

beforeAll(async () => {
  site = await startFixtureServer(
    Object.fromEntries(PAGES.map((p) => [p, (_req, res) => sendHtml(res, html(`<h1>Page ${p}</h1><p>The text of page ${p}, long enough to be its main content.</p>`))])),
  );
  receiver = await startReceiver();
  pg = await startPostgres();
  serve = await startNode();
  worker = await startWorker(pg.url, ['--quiet']);
}, 120_000);

afterAll(async () => {
  await Promise.all([serve?.stop(), worker?.stop()]);
  await receiver?.close();
  await site?.close();
  await pg?.stop();
});

afterEach(() => {
  receiver.release();
  receiver.answer = () => 200;
  receiver.received.length = 0;
});

const types = () => receiver.received.map((d) => d.body.type);
const batch = (webhook: unknown) => ({ urls: PAGES.map((p) => site.at(p)), scrapeOptions: { engine: 'http' }, webhook });

webhookContractCases({
  site: () => site,
  pages: PAGES,
  receiver: () => receiver,
  client,
  serve: () => serve,
  secret: SECRET,
  listOrder: false,
});

describe('webhooks on PostgreSQL', () => {
  it("a job's owed deliveries are bounded: at 100, page deliveries give way (the oldest first), counted; started and completed are kept", async () => {
    // No node sends while the job runs (serve is stopped once it has the job): its deliveries pile up.
    receiver.answer = () => 'hold';
    const urls = Array.from({ length: 110 }, (_, i) => site.at(PAGES[i % PAGES.length]!));
    const path = await client.start('scrape/batch', { urls, scrapeOptions: { engine: 'http' }, webhook: receiver.url });
    await serve.stop();
    const db = new pgClient.Pool({ connectionString: pg.url, max: 1 });
    try {
      const jobId = path.split('/').pop();
      const status = async () => (await db.query<{ status: string }>('SELECT status FROM webjobs_jobs WHERE id = $1', [jobId])).rows[0]!.status;
      while ((await status()) !== 'completed') await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await db.end();
    }
    receiver.release();
    receiver.received.length = 0;
    receiver.answer = () => 200;
    serve = await startNode();
    // started, 110 pages and completed in room for 100 (started and 99 pages): 11 page deliveries gave way, the oldest.
    await receiver.waitFor(101);
    expect((await client.call('GET', path)).body.webhookDropped).toBe(11);
    expect(types()[0]).toBe('batch_scrape.started');
    expect(types().at(-1)).toBe('batch_scrape.completed');
    expect(types().filter((t) => t === 'batch_scrape.page')).toHaveLength(99);
  }, 400_000);

  it('a restart of the node with deliveries owed: the next node sends them, in order', async () => {
    receiver.answer = () => 'hold';
    const path = await client.start('scrape/batch', batch(receiver.url));
    expect(await client.waitFinal(path)).toBe('completed');
    await receiver.waitFor(1);
    await serve.stop();
    receiver.received.length = 0;
    receiver.answer = () => 200;
    serve = await startNode();
    await receiver.waitFor(5);
    expect(types()).toEqual(IN_ORDER);
    expect(receiver.received.every((d) => signatureValid(SECRET, d.raw, d.headers['x-firecrawl-signature']))).toBe(true);
  });

  it('a node sends a delivery as soon as it is owed, and a retry as soon as it is due, not at its next look at the table', async () => {
    // A node of its own (in this process) on a database of its own, whose look at the table when nothing was
    // announced is an hour away: each delivery here is owed after its first look.
    const admin = new pgClient.Client({ connectionString: pg.url });
    await admin.connect();
    await admin.query('CREATE DATABASE webjobs_hooks_heard');
    await admin.end();
    const url = new URL(pg.url);
    url.pathname = '/webjobs_hooks_heard';
    const db = new pgClient.Pool({ connectionString: url.href, max: 4 });
    await migrate(db);
    const sender = new PgWebhookSender(url.href, db, { secret: SECRET, retryDelaysMs: [50], pollMs: 3_600_000, log: () => undefined });
    try {
      await sender.start();
      receiver.answer = (delivery, index) => (delivery.body.type === 'batch_scrape.completed' && index === 1 ? 503 : 200);
      const request = { urls: [site.at('/a')], webhook: { url: receiver.url } };
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO webjobs_jobs (id, kind, status, url, request, record) VALUES (gen_random_uuid(), 'batch', 'running', $1, $2, '{}') RETURNING id`,
        [site.at('/a'), JSON.stringify(request)],
      );
      await receiver.waitFor(1);
      await db.query(`UPDATE webjobs_jobs SET status = 'completed' WHERE id = $1`, [rows[0]!.id]);
      // The end's delivery, answered 503, then again 50 ms later.
      await receiver.waitFor(3);
      expect(types()).toEqual(['batch_scrape.started', 'batch_scrape.completed', 'batch_scrape.completed']);
      expect(receiver.received.every((d) => d.body.id === rows[0]!.id && signatureValid(SECRET, d.raw, d.headers['x-firecrawl-signature']))).toBe(true);
      expect(receiver.received[2]!.raw).toBe(receiver.received[1]!.raw);
    } finally {
      await sender.close();
      await db.end();
    }
  });
});
