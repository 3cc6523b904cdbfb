/**
 * Webhooks on PostgreSQL (issue 60): serve --database --no-worker (an API node) and a `webjobs worker`; the job's
 * deliveries are owed in the database in the transaction of each event and sent by the API node, in order, one at
 * a time, signed, retried on serve's schedule (short here), then dropped and counted in the record; deliveries
 * owed when the node stops are sent by the next one. A receiver on loopback fails, hangs, or answers. serve runs
 * without --allow-private: the site's and the receiver's ports are let through by --allow-host.
 */
import pgClient from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';
import { signatureValid, startReceiver, type Receiver } from './helpers/webhookReceiver.js';
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
const IN_ORDER = ['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.completed'];

describe('webhooks on PostgreSQL', () => {
  it('sends a batch its events in order, one at a time, signed, with the metadata and headers given', async () => {
    const path = await client.start('scrape/batch', batch({ url: receiver.url, metadata: { order: 'B-2' }, headers: { 'x-team': 'green' } }));
    const jobId = path.split('/').pop();
    expect(await client.waitFinal(path)).toBe('completed');
    await receiver.waitFor(5);
    expect(types()).toEqual(IN_ORDER);
    for (const delivery of receiver.received) {
      expect(signatureValid(SECRET, delivery.raw, delivery.headers['x-firecrawl-signature'])).toBe(true);
      expect(delivery.headers['x-team']).toBe('green');
      expect(delivery.body).toMatchObject({ id: jobId, metadata: { order: 'B-2' }, webhookId: expect.any(String) });
    }
    const pages = receiver.received.slice(1, 4).map((d) => d.body);
    expect(pages.map((p) => p.data[0].url).sort()).toEqual(PAGES.map((p) => site.at(p)).sort());
    expect(pages.every((p) => p.success && p.data[0].markdown.includes('The text of page'))).toBe(true);
    expect(receiver.received[4]!.body).toMatchObject({ success: true, data: { total: 3, completed: 3, failed: 0 } });
    expect(new Set(receiver.received.map((d) => d.body.webhookId)).size).toBe(5);
    expect(receiver.maxInFlight()).toBe(1);
  });

  it('only the events asked for; a crawl names its events crawl.*', async () => {
    const path = await client.start('crawl', { url: site.at('/a'), maxPages: 1, scrapeOptions: { engine: 'http' }, webhook: { url: receiver.url, events: ['completed'] } });
    expect(await client.waitFinal(path)).toBe('completed');
    await receiver.waitFor(1);
    expect(types()).toEqual(['crawl.completed']);
    expect(receiver.received[0]!.body.data).toEqual({ total: 1, completed: 1, failed: 0 });
  });

  it('a receiver that fails then succeeds: the same delivery again, same id, body and signature, then the rest in order', async () => {
    receiver.answer = (_d, index) => (index < 2 ? 503 : 200);
    const path = await client.start('scrape/batch', batch(receiver.url));
    expect(await client.waitFinal(path)).toBe('completed');
    await receiver.waitFor(7);
    expect(types()).toEqual(['batch_scrape.started', 'batch_scrape.started', ...IN_ORDER]);
    expect(receiver.received[1]!.raw).toBe(receiver.received[0]!.raw);
    expect(receiver.received[2]!.headers['x-firecrawl-signature']).toBe(receiver.received[0]!.headers['x-firecrawl-signature']);
  });

  it('a receiver that hangs never slows the job; the rest follow one at a time once it answers', async () => {
    receiver.answer = (_d, index) => (index === 0 ? 'hold' : 200);
    const path = await client.start('scrape/batch', batch(receiver.url));
    expect(await client.waitFinal(path)).toBe('completed');
    // The job ended with its first delivery held (or not yet sent: a node polls for owed ones); once it is held, no other follows.
    await receiver.waitFor(1);
    expect(receiver.received).toHaveLength(1);
    receiver.release();
    await receiver.waitFor(5);
    expect(types()).toEqual(IN_ORDER);
    expect(receiver.maxInFlight()).toBe(1);
  });

  it("drops a delivery after the last retry, says so in serve's log and counts it in the job's record", async () => {
    receiver.answer = () => 500;
    const path = await client.start('scrape/batch', batch({ url: receiver.url, events: ['completed'] }));
    expect(await client.waitFinal(path)).toBe('completed');
    await receiver.waitFor(3);
    let record = (await client.call('GET', path)).body;
    while (record.webhookFailures === undefined) record = (await client.call('GET', path)).body;
    expect(record.webhookFailures).toBe(1);
    expect(receiver.received).toHaveLength(3);
    expect(serve.stderr()).toMatch(/webhook batch_scrape\.completed of job \S+ dropped after 3 attempts: the receiver answered HTTP 500/);
  });

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

  it('refuses a receiver the address guard refuses, at once (400), before a job exists', async () => {
    const answer = await client.call('POST', '/api/crawl', { body: { url: site.at('/a'), webhook: 'http://127.0.0.1:9/hook' } });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/^request\.webhook\.url: the address guard refused it/);
  });

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
});
