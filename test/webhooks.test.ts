/**
 * Webhooks (issue 60) on the file store: the contract both stores keep (helpers/webhookContractCases.ts: in
 * order, one at a time, signed, retried, dropped and counted, the address guard at start), then what is this
 * store's or shared code's alone: the Firecrawl SDKs, a job's bounded queue, bad webhooks, the address guard on
 * every attempt, docs/service.md's receiver, owed deliveries sent by the next serve after a restart, the CLI's
 * --webhook.
 * serve runs without --allow-private: the site's and the receiver's ports are let through by --allow-host.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Firecrawl, FirecrawlAppV1 } from '@mendable/firecrawl-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';
import { webhookContractCases } from './helpers/webhookContractCases.js';
import { signatureValid, startReceiver, type Receiver } from './helpers/webhookReceiver.js';
import { createEgressGuard } from '../src/engine/net/ssrf.js';
import { newDelivery } from '../src/jobs/webhooks/delivery.js';
import { sendOnce } from '../src/jobs/webhooks/send.js';
import { Webhooks } from '../src/jobs/webhooks/webhooks.js';

const KEY = 'hook-key-0123456789';
const SECRET = 'webhook-secret-for-tests';
const PAGES = ['/a', '/b', '/c'];

let site: FixtureServer;
let receiver: Receiver;
let server: ServeProcess;
let home: string;
/** The port of docs/service.md's receiver, let through by serve's --allow-host as the test receiver's. */
let docPort: number;
const client = serveClient(() => server.url, KEY);

function serveArgs(): string[] {
  return ['--allow-host', new URL(site.url).host, '--allow-host', `127.0.0.1:${receiver.port},127.0.0.1:${docPort}`, '--webhook-retry-delays', '50ms,100ms'];
}

/** The secret from WEBJOBS_WEBHOOK_SECRET, or (`secretFile`) from --webhook-secret-file's first line. */
async function startOurServe(secretFile?: string): Promise<ServeProcess> {
  const secret = secretFile ? { args: ['--webhook-secret-file', secretFile], env: {} } : { args: [], env: { WEBJOBS_WEBHOOK_SECRET: SECRET } };
  return startServe({ args: [...serveArgs(), ...secret.args], env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale`, WEBJOBS_WEBHOOK_SECRET: '', ...secret.env } });
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The ```js block of a section of a doc. */
function jsBlock(file: string, heading: string): string {
  const text = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
  const section = text.slice(text.indexOf(`\n${heading}\n`));
  const start = section.indexOf('```js\n') + '```js\n'.length;
  return section.slice(start, section.indexOf('\n```', start));
}

const types = () => receiver.received.map((d) => d.body.type);

beforeAll(async () => {
  site = await startFixtureServer(
    Object.fromEntries(PAGES.map((p) => [p, (_req, res) => sendHtml(res, html(`<h1>Page ${p}</h1><p>The text of page ${p}, long enough to be its main content.</p>`))])),
  );
  receiver = await startReceiver();
  docPort = await freePort();
  home = tempHome();
  server = await startOurServe();
});

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await site?.close();
});

afterEach(() => {
  receiver.release();
  receiver.answer = () => 200;
  receiver.received.length = 0;
});

const batch = (webhook: unknown) => ({ urls: PAGES.map((p) => site.at(p)), scrapeOptions: { engine: 'http' }, concurrency: 1, webhook });

webhookContractCases({
  site: () => site,
  pages: PAGES,
  receiver: () => receiver,
  client,
  serve: () => server,
  secret: SECRET,
  listOrder: true,
});

describe('the Firecrawl SDK', () => {
  it('v2 startCrawl with a webhook object: crawl.* events with the metadata, signed', async () => {
    const app = new Firecrawl({ apiKey: KEY, apiUrl: server.url });
    const started = await app.startCrawl(site.at('/a'), {
      limit: 1,
      scrapeOptions: { formats: ['markdown'] },
      webhook: { url: receiver.url, metadata: { run: 'sdk' }, events: ['started', 'page', 'completed'] },
    });
    await receiver.waitFor(3);
    expect(types()).toEqual(['crawl.started', 'crawl.page', 'crawl.completed']);
    expect(receiver.received.every((d) => d.body.id === started.id && d.body.metadata.run === 'sdk')).toBe(true);
    expect(receiver.received.every((d) => signatureValid(SECRET, d.raw, d.headers['x-firecrawl-signature']))).toBe(true);
  });

  it('v1 asyncBatchScrapeUrls with a webhook URL: batch_scrape.* events', async () => {
    const v1 = new FirecrawlAppV1({ apiKey: KEY, apiUrl: server.url });
    const started = await v1.asyncBatchScrapeUrls([site.at('/b')], { formats: ['markdown'] }, undefined, receiver.url);
    expect(started).toMatchObject({ success: true });
    await receiver.waitFor(3);
    expect(types()).toEqual(['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.completed']);
    expect(receiver.received[1]!.body.data[0].metadata.sourceURL).toBe(site.at('/b'));
  });
});

describe("a job's queue", () => {
  it('is bounded: when full, page deliveries give way first (the oldest), counted; started and completed are kept', async () => {
    const counts = { webhookFailures: 0, webhookDropped: 0 };
    const webhooks = new Webhooks({ maxQueuedPerJob: 4, count: async (_job, field, by) => void (counts[field] += by) });
    receiver.answer = (_d, index) => (index === 0 ? 'hold' : 200);
    const request = { urls: ['http://example.com/'], webhook: { url: receiver.url } };
    const entry = (n: number) => ({ url: `http://example.com/${n}`, status: 'completed' as const, error: null, metadata: {}, markdown: `page ${n}` });
    webhooks.started('job-q', 'batch', request);
    for (let n = 1; n <= 10; n++) webhooks.page('job-q', 'batch', request, entry(n));
    webhooks.ended('job-q', 'batch', request, { jobId: 'job-q', status: 'completed', totalScrapedPages: 10, totalPageBatches: 1, currentPageBatch: 1, batchSize: 10 }, { done: 10, failed: 0 });
    await receiver.waitFor(1);
    receiver.release();
    await webhooks.idle();
    expect(types()).toEqual(['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.completed']);
    expect(receiver.received.slice(1, 3).map((d) => d.body.data[0].markdown)).toEqual(['page 9', 'page 10']);
    expect(counts).toEqual({ webhookFailures: 0, webhookDropped: 8 });
    await webhooks.close();
  });
});

describe('bad webhooks', () => {
  it.each([
    ['not http(s)', { url: 'ftp://example.com/hook' }, /^request\.webhook\.url: "ftp:\/\/example\.com\/hook" is not an http or https URL/],
    ['not a URL', 'not a url', /^request\.webhook: "not a url" is not a valid URL/],
    ['an unknown event', { url: 'https://example.com/hook', events: ['page', 'finished'] }, /^request\.webhook\.events: unknown event "finished"/],
    ['21 headers', { url: 'https://example.com/hook', headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-h${i}`, 'v'])) }, /^request\.webhook\.headers: 21 headers given, the limit is 20/],
    ['17 KB of metadata', { url: 'https://example.com/hook', metadata: { blob: 'x'.repeat(17 * 1024) } }, /^request\.webhook\.metadata: \d+ bytes of JSON, the limit is 16384/],
  ])('%s is a 400 naming the field', async (_what, webhook, message) => {
    const answer = await client.call('POST', '/api/scrape/batch', { body: batch(webhook) });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(message);
  });

  it('the address guard refuses the receiver on a port --allow-host does not name, and it gets no connection', async () => {
    const other = await startReceiver();
    try {
      const answer = await fetch(`${server.url}/v2/batch/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ urls: [site.at('/a')], webhook: { url: other.url } }),
      });
      expect(answer.status).toBe(400);
      expect((await answer.json()).error).toMatch(/address guard refused/);
      expect(other.connections()).toBe(0);
    } finally {
      await other.close();
    }
  });
});

describe('the address guard on every attempt', () => {
  it('connects only to the addresses the guard checked, and to none after the name changes to a refused one', async () => {
    // A stand-in resolver, as egress.test.ts uses: the names exist only here, so a connection to them can only
    // have gone to the address the guard checked, never to the system resolver's answer.
    const answers = new Map([
      ['hook.test', ['127.0.0.1']],
      ['rebind.test', ['93.184.216.34']],
    ]);
    const guard = createEgressGuard({ allow: new Set([`hook.test:${receiver.port}`]), lookup: async (host) => answers.get(host) ?? [], cacheMs: 0 });
    const delivery = (host: string) => newDelivery('job-1', 'crawl', { url: `http://${host}:${receiver.port}/hook` }, 'started', { success: true, data: [] });
    await sendOnce(delivery('hook.test'), { guard });
    expect(receiver.received.map((d) => d.body.type)).toEqual(['crawl.started']);
    const before = receiver.connections();
    answers.set('rebind.test', ['127.0.0.1']);
    await expect(sendOnce(delivery('rebind.test'), { guard })).rejects.toThrow(/^address guard: refused to connect to rebind\.test:\d+: rebind\.test \(127\.0\.0\.1\) is a loopback/);
    answers.set('rebind.test', ['::ffff:7f00:1']);
    await expect(sendOnce(delivery('rebind.test'), { guard })).rejects.toThrow(/^address guard: .*carries 127\.0\.0\.1/);
    expect(receiver.connections()).toBe(before);
  });

  it('a refused connection and a DNS failure are failures of the attempt', async () => {
    const guard = createEgressGuard({ lookup: async () => Promise.reject(Object.assign(new Error('no such name'), { code: 'ENOTFOUND' })), cacheMs: 0 });
    const named = newDelivery('job-1', 'crawl', { url: 'http://nowhere.test/hook' }, 'started', { success: true, data: [] });
    await expect(sendOnce(named, { guard })).rejects.toThrow(/DNS lookup failed/);
    const closed = await startReceiver();
    const port = closed.port;
    await closed.close();
    await expect(sendOnce(newDelivery('job-1', 'crawl', { url: `http://127.0.0.1:${port}/hook` }, 'started', { success: true, data: [] }))).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe("docs/service.md's receiver", () => {
  it('takes the deliveries of a batch, checking their signature, and refuses a body signed otherwise', async () => {
    const code = jsBlock('docs/service.md', '## Webhooks: POSTs on job events');
    expect(code.split('\n').length).toBeLessThanOrEqual(20);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-receiver-'));
    writeFileSync(path.join(dir, 'receiver.mjs'), code);
    const child = spawn(process.execPath, [path.join(dir, 'receiver.mjs')], {
      env: { ...process.env, PORT: String(docPort), WEBJOBS_WEBHOOK_SECRET: SECRET },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    let stdout = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    try {
      const forged = async () => {
        for (;;) {
          const answer = await fetch(`http://127.0.0.1:${docPort}/`, { method: 'POST', body: '{}', headers: { 'x-firecrawl-signature': 'sha256=00' } }).catch(() => undefined);
          if (answer) return answer.status;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      expect(await forged()).toBe(401);
      const path = await client.start('scrape/batch', batch(`http://127.0.0.1:${docPort}/hook`));
      const jobId = path.split('/').pop();
      expect(await client.waitFinal(path)).toBe('completed');
      while (!stdout.includes('batch_scrape.completed')) await new Promise((resolve) => child.stdout!.once('data', resolve));
      expect(stdout.trim().split('\n').map((line) => line.trimEnd())).toEqual([
        `batch_scrape.started ${jobId}`,
        ...PAGES.map((p) => `batch_scrape.page ${jobId} ${site.at(p)}`),
        `batch_scrape.completed ${jobId}`,
      ]);
    } finally {
      child.kill();
      await exited;
    }
  });
});

describe('a restart of serve', () => {
  it('sends the deliveries still owed, in order, after serve stops with its receiver hanging', async () => {
    receiver.answer = () => 'hold';
    const job = await client.start('scrape/batch', batch(receiver.url));
    expect(await client.waitFinal(job)).toBe('completed');
    await receiver.waitFor(1);
    await server.stop();
    receiver.received.length = 0;
    receiver.answer = () => 200;
    const secretFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'webjobs-secret-')), 'webhook-secret');
    writeFileSync(secretFile, `${SECRET}\n`);
    server = await startOurServe(secretFile);
    await receiver.waitFor(5);
    expect(types()).toEqual(['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.completed']);
    expect(receiver.received.every((d) => signatureValid(SECRET, d.raw, d.headers['x-firecrawl-signature']))).toBe(true);
    expect(server.stderr()).toMatch(/webhooks: 5 deliveries owed by a previous run/);
  });
});

describe('the CLI', () => {
  it('--webhook delivers a local batch while it runs, signed with WEBJOBS_WEBHOOK_SECRET', async () => {
    const result = await runCli(['batch', site.at('/a'), site.at('/b'), '--engine', 'http', '--json', '--webhook', receiver.url], {
      env: { WEBJOBS_HOME: tempHome(), WEBJOBS_WEBHOOK_SECRET: SECRET },
    });
    expect(result.code).toBe(0);
    expect(types()).toEqual(['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.completed']);
    expect(receiver.received.every((d) => signatureValid(SECRET, d.raw, d.headers['x-firecrawl-signature']))).toBe(true);
  });

  it('--webhook with --remote: the service sends the deliveries, signed with its secret', async () => {
    const result = await runCli(['batch', site.at('/c'), '--engine', 'http', '--json', '--webhook', receiver.url, '--remote', server.url, '--api-key', KEY], {
      env: { WEBJOBS_HOME: tempHome() },
    });
    expect(result.code).toBe(0);
    await receiver.waitFor(3);
    expect(types()).toEqual(['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.completed']);
    expect(receiver.received.every((d) => signatureValid(SECRET, d.raw, d.headers['x-firecrawl-signature']))).toBe(true);
  });

  it('a delivery that fails after its retries is reported on stderr', async () => {
    receiver.answer = () => 500;
    const result = await runCli(['batch', site.at('/a'), '--engine', 'http', '--json', '--webhook', receiver.url], {
      env: { WEBJOBS_HOME: tempHome(), WEBJOBS_WEBHOOK_RETRY_DELAYS: '20ms' },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/webjobs: webhook batch_scrape\.started of job \S+ dropped after 2 attempts: the receiver answered HTTP 500/);
    expect(receiver.received).toHaveLength(6);
  });

  it.each([
    [['--webhook-retry-delays', 'soon'], /--webhook-retry-delays takes a duration such as 500ms/],
    [['--webhook-secret-file', '/nonexistent/secret'], /--webhook-secret-file: cannot read \/nonexistent\/secret \(ENOENT\)/],
  ])('serve %j is a usage error (exit 2)', async (args, message) => {
    const result = await runCli(['serve', '--port', '0', ...args], { env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('a bad --webhook is a usage error (exit 2) naming it', async () => {
    const result = await runCli(['crawl', site.at('/a'), '--webhook', 'ftp://example.com/hook'], { env: { WEBJOBS_HOME: tempHome() } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--webhook: "ftp:\/\/example\.com\/hook" is not an http or https URL/);
  });
});
