/**
 * Hostile PDF documents against a real `webjobs serve` (issue 43, item 4): a
 * small PDF of 30,000 tiny lines, and one of 30,000 link annotations, each kept
 * pdf.js and the text's layout busy on the main thread for a minute, and /healthz
 * unanswered. They are read in a worker thread now, capped, and cut at the page's
 * timeout. The PDFs are written byte by byte (helpers/pdf.ts).
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { manyLinksPdf, tinyLinesPdf } from './helpers/pdf.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEY = 'key-pdf-0123456789';
const LINE = 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvw-';
const LINES = 30_000;
const TIMEOUT_MS = 10_000;

let site: FixtureServer;
let server: ServeProcess;
/** Called when the PDF at that path has been sent whole. */
const sentNow = new Map<string, () => void>();

function sendPdf(path: string, bytes: Buffer) {
  return (_req: unknown, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': bytes.length });
    res.end(bytes, () => sentNow.get(path)?.());
  };
}

/** Resolves when the PDF at `path` has been sent whole. */
function expectSent(path: string): Promise<void> {
  return new Promise<void>((resolve) => sentNow.set(path, resolve));
}

beforeAll(async () => {
  site = await startFixtureServer({
    '/lines.pdf': sendPdf('/lines.pdf', tinyLinesPdf(LINES, LINE)),
    '/links.pdf': sendPdf('/links.pdf', manyLinksPdf(30_000, 'https://example.com/l/')),
  });
  server = await startServe({
    args: ['--allow-host', new URL(site.url).host, '--quiet'],
    env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` },
  });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
});

async function api(method: string, pathname: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url}${pathname}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  expect(response.status).toBe(200);
  return response.json();
}

async function untilFinal(jobId: string): Promise<string> {
  for (;;) {
    const { status } = await api('GET', `/api/scrape/${jobId}/status`);
    if (['completed', 'failed', 'stopped'].includes(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a hostile PDF', () => {
  it('30,000 link annotations on one page: /healthz answers while the job reads them, and the job reads the first 20,000 (the cap) within its timeout, with its text and a warning saying so', async () => {
    const delivered = expectSent('/links.pdf');
    const { jobId } = await api('POST', '/api/scrape', { url: site.at('/links.pdf'), scrapeOptions: { formats: ['markdown', 'links'], timeout: TIMEOUT_MS } });
    await delivered;
    // The document is in the server's hands: /healthz answers, and the job has not ended when it does.
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect((await api('GET', `/api/scrape/${jobId}/status`)).status).toBe('running');

    expect(await untilFinal(jobId)).toBe('completed');
    const { data } = await api('GET', `/api/scrape/${jobId}`);
    expect(data.markdown).toBe('# Many links\n\nSome text under the heading.');
    // pdf.js's getAnnotations found the text under every link first, and the timeout cut the links (issue 43).
    expect(data.metadata.warning).toBe("the PDF's links are cut at page 1 of 1: only those of its first 20000 link annotations were read");
    expect(data.links).toHaveLength(20_000);
    expect(data.links[0]).toBe('https://example.com/l/0');
    expect(data.links[19_999]).toBe('https://example.com/l/19999');
  }, 60_000);

  it('30,000 tiny lines of one paragraph: read whole, in time, while /healthz answers', async () => {
    const delivered = expectSent('/lines.pdf');
    const { jobId } = await api('POST', '/api/scrape', { url: site.at('/lines.pdf'), scrapeOptions: { formats: ['markdown'], timeout: TIMEOUT_MS } });
    await delivered;
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);

    expect(await untilFinal(jobId)).toBe('completed');
    const { data } = await api('GET', `/api/scrape/${jobId}`);
    // The lines make one paragraph, each hyphen a word broken across lines, joined again.
    const lines = (data.markdown.length - 1) / (LINE.length - 1);
    expect(lines).toBeGreaterThan(20_000);
    expect(Number.isInteger(lines)).toBe(true);
    expect(data.markdown).toBe(LINE.slice(0, -1).repeat(lines - 1) + LINE);
    expect(data.metadata.warning).toBeUndefined();
  }, 60_000);
});
