/**
 * Webhooks' contract (issue 60): what a job's deliveries do alike on both stores. Run, unchanged, by
 * webhooks.test.ts against serve on the file store and by webhooksPostgres.test.ts against serve --database
 * --no-worker with a `webjobs worker`: the events in Firecrawl's form, in order, one at a time, signed, with the
 * webhook's metadata and headers; only the events asked for; a hanging receiver never slows the job; a failed
 * attempt sent again (same id, body and signature) on serve's retry schedule, then dropped, logged and counted;
 * the address guard on the URL before a job exists. What differs per store (the bound of a job's owed deliveries,
 * a restart with deliveries owed) stays in each store's file.
 *
 * The target's serve runs with --webhook-retry-delays 50ms,100ms, the secret `secret`, without --allow-private:
 * the site's and the receiver's ports let through by --allow-host.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FixtureServer } from './fixtureServer.js';
import type { ServeClient } from './serveClient.js';
import type { ServeProcess } from './serve.js';
import { signatureValid, type Receiver } from './webhookReceiver.js';

export interface WebhookTarget {
  /** A site whose `pages` each answer an article "The text of page <path>". */
  site(): FixtureServer;
  pages: readonly string[];
  receiver(): Receiver;
  /** serve's client, with a key of the scale tier. */
  client: ServeClient;
  /** The serve that sends the deliveries (its log). */
  serve(): ServeProcess;
  secret: string;
  /**
   * The pages' deliveries come in the order of the batch's list (concurrency 1): the file store runs them one
   * after another in that order; PostgreSQL's worker slots take them as the queue hands them out.
   */
  listOrder: boolean;
}

export const IN_ORDER = ['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.completed'];

export function webhookContractCases(target: WebhookTarget): void {
  const { client, secret } = target;
  const types = () => target.receiver().received.map((d) => d.body.type);
  const batch = (webhook: unknown) => ({ urls: target.pages.map((p) => target.site().at(p)), scrapeOptions: { engine: 'http' }, concurrency: 1, webhook });

  describe('the webhook contract', () => {
    afterEach(() => {
      const receiver = target.receiver();
      receiver.release();
      receiver.answer = () => 200;
      receiver.received.length = 0;
    });

    it('sends a batch its events in order, one at a time, signed, with the metadata and headers given', async () => {
      const receiver = target.receiver();
      const path = await client.start('scrape/batch', batch({ url: receiver.url, metadata: { order: 'A-1' }, headers: { 'x-team': 'blue' } }));
      const jobId = path.split('/').pop();
      expect(await client.waitFinal(path)).toBe('completed');
      await receiver.waitFor(5);
      expect(types()).toEqual(IN_ORDER);
      for (const delivery of receiver.received) {
        expect(signatureValid(secret, delivery.raw, delivery.headers['x-firecrawl-signature'])).toBe(true);
        expect(signatureValid('another secret', delivery.raw, delivery.headers['x-firecrawl-signature'])).toBe(false);
        expect(delivery.headers['x-team']).toBe('blue');
        expect(delivery.headers['content-type']).toBe('application/json');
        expect(delivery.body).toMatchObject({ id: jobId, metadata: { order: 'A-1' }, webhookId: expect.any(String) });
      }
      const pages = receiver.received.slice(1, 4).map((d) => d.body);
      const urls = pages.map((p) => p.data[0].url);
      const listed = target.pages.map((p) => target.site().at(p));
      expect(target.listOrder ? urls : urls.sort()).toEqual(target.listOrder ? listed : listed.sort());
      expect(pages.every((p) => p.success && p.data[0].markdown.includes('The text of page'))).toBe(true);
      expect(receiver.received[4]!.body).toMatchObject({ success: true, data: { total: 3, completed: 3, failed: 0 } });
      expect(new Set(receiver.received.map((d) => d.body.webhookId)).size).toBe(5);
      expect(receiver.maxInFlight()).toBe(1);
    });

    it('sends only the events asked for; a crawl names its events crawl.*', async () => {
      const receiver = target.receiver();
      const path = await client.start('crawl', { url: target.site().at(target.pages[0]!), maxPages: 1, scrapeOptions: { engine: 'http' }, webhook: { url: receiver.url, events: ['completed'] } });
      expect(await client.waitFinal(path)).toBe('completed');
      await receiver.waitFor(1);
      expect(types()).toEqual(['crawl.completed']);
      expect(receiver.received[0]!.body.data).toEqual({ total: 1, completed: 1, failed: 0 });
    });

    it('a receiver that hangs never slows the job: it ends while its first delivery is unanswered, and the rest follow one at a time', async () => {
      const receiver = target.receiver();
      receiver.answer = (_d, index) => (index === 0 ? 'hold' : 200);
      const path = await client.start('scrape/batch', batch(receiver.url));
      expect(await client.waitFinal(path)).toBe('completed');
      // Its first delivery was sent (PostgreSQL: the node heard it owed) and is held; no other follows it.
      expect(receiver.received).toHaveLength(1);
      receiver.release();
      await receiver.waitFor(5);
      expect(types()).toEqual(IN_ORDER);
      expect(receiver.maxInFlight()).toBe(1);
    });

    it('retries a failed delivery with the same id, body and signature, then goes on in order', async () => {
      const receiver = target.receiver();
      receiver.answer = (_d, index) => (index < 2 ? 503 : 200);
      const path = await client.start('scrape/batch', batch(receiver.url));
      expect(await client.waitFinal(path)).toBe('completed');
      await receiver.waitFor(7);
      expect(types()).toEqual(['batch_scrape.started', 'batch_scrape.started', ...IN_ORDER]);
      expect(receiver.received[1]!.raw).toBe(receiver.received[0]!.raw);
      expect(receiver.received[2]!.raw).toBe(receiver.received[0]!.raw);
      expect(receiver.received[2]!.headers['x-firecrawl-signature']).toBe(receiver.received[0]!.headers['x-firecrawl-signature']);
    });

    it("drops a delivery after the last retry, says so in serve's log and counts it in the job's record", async () => {
      const receiver = target.receiver();
      receiver.answer = () => 500;
      const path = await client.start('scrape/batch', batch({ url: receiver.url, events: ['completed'] }));
      expect(await client.waitFinal(path)).toBe('completed');
      await receiver.waitFor(3);
      let record = (await client.call('GET', path)).body;
      while (record.webhookFailures === undefined) record = (await client.call('GET', path)).body;
      expect(record.webhookFailures).toBe(1);
      expect(receiver.received).toHaveLength(3);
      expect(target.serve().stderr()).toMatch(/webhook batch_scrape\.completed of job \S+ dropped after 3 attempts: the receiver answered HTTP 500/);
    });

    it.each(['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'http://[::ffff:127.0.0.1]:9/hook', 'http://2130706433:9/hook'])(
      'the address guard refuses %s at once, before a job exists, and nothing connects',
      async (url) => {
        const before = (await client.call('GET', '/api/jobs')).body;
        const answer = await client.call('POST', '/api/crawl', { body: { url: target.site().at(target.pages[0]!), webhook: url } });
        expect(answer.status).toBe(400);
        expect(answer.body.message).toMatch(/^request\.webhook\.url: the address guard refused it .*loopback, private, link-local or metadata address/);
        expect((await client.call('GET', '/api/jobs')).body).toEqual(before);
      },
    );
  });
}
