/**
 * The formats beyond the spec's three: rawHtml (the document as served) and
 * screenshot (a file beside the job: its path locally, its URL on serve), with
 * screenshotOptions, and --output-dir writing it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { pngSize } from './helpers/png.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { VIEWPORT } from '../src/api/types.js';

const KEY = 'formats-test-key-0123456789';
const OTHER_KEY = 'formats-other-key-0123456789';
const env = { WEBJOBS_HOME: tempHome() };
let site: FixtureServer;
let serve: ServeProcess;

/** A 1x1 red PNG. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const SERVED = html(`<article><h1>Served</h1>${articleText('served pages')}</article><script>document.querySelector('h1').textContent = 'Changed by a script';</script>`, {
  title: 'Raw',
});

beforeAll(async () => {
  site = await startFixtureServer({
    '/raw': (_req, res) => sendHtml(res, SERVED),
    '/tall': (_req, res) => sendHtml(res, html(`<article style="height: 3000px"><h1>Tall</h1>${articleText('tall pages')}<img src="/pixel.png" width="50" height="50"></article>`, { title: 'Tall' })),
    '/pixel.png': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(PIXEL);
    },
  });
  serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale,${OTHER_KEY}:scale` } });
});

afterAll(async () => {
  await serve?.stop();
  await site?.close();
});

interface Scraped {
  jobId: string;
  data: { metadata: Record<string, string>; html?: string; rawHtml?: string; screenshot?: string; markdown?: string };
}

async function scrape(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<Scraped> {
  const result = await runCli(['scrape', ...args, '--json'], { env: options.env ?? env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Scraped;
}

describe('rawHtml', () => {
  it('is the document byte for byte as the server sent it, before scripts and cleaning', async () => {
    // In the browser, so that html is the page after its script ran (auto reads this page over HTTP: no script runs).
    const { data } = await scrape([site.at('/raw'), '--formats', 'rawHtml,html', '--engine', 'browser']);
    expect(data.rawHtml).toBe(SERVED);
    expect(data.html).toContain('Changed by a script');
    const text = await runCli(['scrape', site.at('/raw'), '--formats', 'rawHtml'], { env });
    expect(text.stdout).toBe(`${SERVED}\n`);
  }, 180_000);
});

describe('screenshot', () => {
  it('is a PNG file beside the job, of the viewport or the full page, with images loaded', async () => {
    const before = site.requests.filter((r) => r === 'GET /pixel.png').length;
    const { jobId, data } = await scrape([site.at('/tall'), '--formats', 'markdown,screenshot']);
    expect(data.screenshot).toBe(path.join(env.WEBJOBS_HOME, 'jobs', jobId, 'files', 'screenshot-1.png'));
    expect(pngSize(await fs.readFile(data.screenshot!))).toEqual({ width: VIEWPORT.width, height: VIEWPORT.height });
    // Images are blocked for text formats, but a screenshot shows the page as a person sees it.
    expect(site.requests.filter((r) => r === 'GET /pixel.png').length).toBe(before + 1);
    const full = await scrape([site.at('/tall'), '--formats', 'screenshot', '--full-page']);
    expect(pngSize(await fs.readFile(full.data.screenshot!)).height).toBeGreaterThan(3000);
    // stdout is a pipe here: a screenshot alone is written as the image itself (a terminal gets its path).
    const plain = await runCli(['scrape', site.at('/tall'), '--formats', 'screenshot'], { env });
    expect(plain.stdout.slice(1, 4)).toBe('PNG');
  }, 180_000);

  it('takes jpeg and webp; a bad format is refused', async () => {
    const jpeg = await scrape([site.at('/raw'), '--formats', 'screenshot', '--screenshot-format', 'jpeg']);
    expect(jpeg.data.screenshot).toMatch(/screenshot-1\.jpeg$/);
    expect((await fs.readFile(jpeg.data.screenshot!)).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    const webp = await scrape([site.at('/raw'), '--formats', 'screenshot', '--screenshot-format', 'webp']);
    const bytes = await fs.readFile(webp.data.screenshot!);
    expect([bytes.subarray(0, 4).toString('latin1'), bytes.subarray(8, 12).toString('latin1')]).toEqual(['RIFF', 'WEBP']);
    const bad = await runCli(['scrape', site.at('/raw'), '--formats', 'screenshot', '--screenshot-format', 'gif'], { env });
    expect(bad.code).toBe(2);
  }, 180_000);

  it('--output-dir writes each page\'s screenshot', async () => {
    const dir = path.join(tempHome(), 'out');
    const result = await runCli(['batch', site.at('/raw'), site.at('/tall'), '--formats', 'markdown,screenshot', '--output-dir', dir, '--quiet'], { env });
    expect(result.code).toBe(0);
    const index = JSON.parse(await fs.readFile(path.join(dir, 'index.json'), 'utf8')) as { pages: { files: Record<string, string> }[] };
    expect(index.pages.map((p) => p.files.screenshot)).toEqual([expect.stringMatching(/_raw\.png$/), expect.stringMatching(/_tall\.png$/)]);
    expect(pngSize(await fs.readFile(path.join(dir, index.pages[1]!.files.screenshot!)))).toEqual({ width: VIEWPORT.width, height: VIEWPORT.height });
  }, 180_000);

  it('on serve: the record holds a URL that serves the file to the job\'s key only; --remote --output-dir downloads it', async () => {
    const remoteEnv = { WEBJOBS_HOME: tempHome() };
    const { jobId, data } = await scrape([site.at('/raw'), '--formats', 'screenshot', '--remote', serve.url, '--api-key', KEY], { env: remoteEnv });
    expect(data.screenshot).toBe(`${serve.url}/api/files/${jobId}/screenshot-1.png`);
    const served = await fetch(data.screenshot!, { headers: { 'x-api-key': KEY } });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(pngSize(Buffer.from(await served.arrayBuffer()))).toEqual({ width: VIEWPORT.width, height: VIEWPORT.height });
    expect((await fetch(data.screenshot!)).status).toBe(401);
    expect((await fetch(data.screenshot!, { headers: { 'x-api-key': OTHER_KEY } })).status).toBe(404);
    expect((await fetch(`${serve.url}/api/files/${jobId}/..%2F..%2Fkeys.json`, { headers: { 'x-api-key': KEY } })).status).toBe(404);

    const dir = path.join(tempHome(), 'remote-out');
    const batch = await runCli(['batch', site.at('/tall'), '--formats', 'screenshot', '--output-dir', dir, '--quiet', '--remote', serve.url, '--api-key', KEY], {
      env: remoteEnv,
    });
    expect(batch.stderr).toBe('');
    expect(batch.code).toBe(0);
    const names = await fs.readdir(dir);
    const png = names.find((n) => n.endsWith('.png'))!;
    expect(pngSize(await fs.readFile(path.join(dir, png)))).toEqual({ width: VIEWPORT.width, height: VIEWPORT.height });
  }, 180_000);
});
