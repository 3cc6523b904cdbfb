/**
 * Large results through `webjobs serve` (issue 43, item 6): a batch whose pages
 * together exceed the bytes one answer may hold is answered in parts, each saying
 * where the rest is (`next`), on /api, on the Firecrawl API, and read whole by
 * `webjobs result --remote`. Real server, real CLI, pages of ~1.7 MB from 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'key-large-results-01';
const PAGES = 8;
/** serve's default bound of one answer's entries (SERVER_DEFAULTS.maxResultBytes). */
const MAX_RESULT_BYTES = 10 * 1024 * 1024;
const WORDS = 'lorem ipsum '.repeat(140_000);

let site: FixtureServer;
let server: ServeProcess;
let jobId: string;
const home = tempHome();

const bigPage = (n: number) => `<!doctype html><html><head><title>Big ${n}</title></head><body><p>${n} ${WORDS}</p></body></html>`;

async function get(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number; body: any }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
}

beforeAll(async () => {
  const routes = Object.fromEntries(
    Array.from({ length: PAGES }, (_, n) => [
      `/big/${n}`,
      (_req: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(bigPage(n));
      },
    ]),
  );
  site = await startFixtureServer(routes);
  server = await startServe({
    args: ['--allow-host', new URL(site.url).host, '--quiet'],
    env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEY}:scale` },
  });
  const urls = Array.from({ length: PAGES }, (_, n) => site.at(`/big/${n}`));
  const started = await fetch(`${server.url}/api/scrape/batch`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ urls, scrapeOptions: { formats: ['rawHtml'], engine: 'http' } }),
  });
  jobId = ((await started.json()) as { jobId: string }).jobId;
  // The job's own end, waited for as a client does: its status, polled.
  for (let status = ''; status !== 'completed'; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    status = (await get(`${server.url}/api/scrape/batch/${jobId}/status`, { 'x-api-key': KEY })).body.status;
    if (status === 'failed' || status === 'stopped') throw new Error(`the batch ${status}`);
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await site?.close();
});

describe('results larger than one answer', () => {
  it('/api answers a result batch in parts of at most the byte bound, each naming the rest in next', async () => {
    const entries: { url: string; rawHtml: string }[] = [];
    let url: string | undefined = `${server.url}/api/scrape/batch/${jobId}`;
    let answers = 0;
    while (url) {
      const { status, bytes, body } = await get(url, { 'x-api-key': KEY });
      expect(status).toBe(200);
      answers++;
      expect(body).toMatchObject({ jobId, status: 'completed', totalPageBatches: 1, currentPageBatch: 1, batchSize: 100 });
      // One entry over the bound at most: an answer holds at least one entry, however large.
      expect(bytes).toBeLessThan(MAX_RESULT_BYTES + 2 * 1024 * 1024);
      entries.push(...body.data);
      url = body.next ? `${server.url}${body.next}` : undefined;
    }
    expect(answers).toBeGreaterThan(1);
    expect(entries.map((entry) => entry.url)).toEqual(Array.from({ length: PAGES }, (_, n) => site.at(`/big/${n}`)));
    entries.forEach((entry, n) => expect(entry.rawHtml).toBe(bigPage(n)));
  });

  it('the Firecrawl API bounds a batch status by bytes and pages it with next', async () => {
    const documents: { rawHtml: string; metadata: { sourceURL: string } }[] = [];
    let url: string | undefined = `${server.url}/v1/batch/scrape/${jobId}`;
    let answers = 0;
    while (url) {
      const { status, bytes, body } = await get(url, { authorization: `Bearer ${KEY}` });
      expect(status).toBe(200);
      answers++;
      expect(body).toMatchObject({ success: true, status: 'completed', completed: PAGES, total: PAGES });
      expect(bytes).toBeLessThan(MAX_RESULT_BYTES + 2 * 1024 * 1024);
      documents.push(...body.data);
      url = body.next;
    }
    expect(answers).toBeGreaterThan(1);
    expect(documents.map((d) => d.metadata.sourceURL)).toEqual(Array.from({ length: PAGES }, (_, n) => site.at(`/big/${n}`)));
  });

  it('webjobs result --remote follows the parts and prints every entry', async () => {
    const result = await runCli(['result', jobId, '--remote', server.url, '--api-key', KEY], { env: { WEBJOBS_HOME: tempHome() } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout);
    // Every entry merged into one result batch, as batch --json prints it (without --page).
    expect(record).toMatchObject({ jobId, status: 'completed', totalPageBatches: 1, batchSize: PAGES });
    expect(record.next).toBeUndefined();
    expect(record.data.map((entry: { rawHtml: string }) => entry.rawHtml)).toEqual(Array.from({ length: PAGES }, (_, n) => bigPage(n)));
  });

  it('refuses an offset outside the result batch', async () => {
    const { status, body } = await get(`${server.url}/api/scrape/batch/${jobId}?batchSize=4&offset=4`, { 'x-api-key': KEY });
    expect(status).toBe(400);
    expect(body.message).toMatch(/offset must be an integer from 0 to 3/);
  });
});
