/** The progress line of batch and crawl (shown on a terminal only). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { JobProgress } from '../src/api/backend.js';
import { describeProgress } from '../src/cli/manyPages.js';
import { LocalBackend } from '../src/local/localBackend.js';
import { FileJobStore } from '../src/store/fileStore.js';
import { tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer } from './helpers/fixtureServer.js';

describe('describeProgress', () => {
  it('a batch: done/total, rate and time left', () => {
    expect(describeProgress('batch', 200)({ status: 'running', done: 50, failed: 0 }, 25_000)).toBe('50/200 pages done · 2.0 pages/s · about 1m15s left');
    expect(describeProgress('batch', 200)({ status: 'running', done: 0, failed: 0 }, 1_000)).toBe('0/200 pages done · 0.0 pages/s');
  });

  it('a crawl: pages done and rate, never against --max-pages', () => {
    const line = describeProgress('crawl', 100)({ status: 'running', done: 33, failed: 2 }, 11_000);
    expect(line).toBe('33 pages crawled, 2 failed · 3.0 pages/s');
    expect(line).not.toContain('/100');
  });

  it('a crawl run here: pages done beside the pages found so far', () => {
    const line = describeProgress('crawl', 100)({ status: 'running', done: 33, failed: 0, discovered: 80 }, 11_000);
    expect(line).toBe('33 pages crawled · 80 found · 3.0 pages/s');
  });
});

describe('crawl progress of a job run in this process', () => {
  it('reports the pages found as links are read, beside those done', async () => {
    const links = Array.from({ length: 6 }, (_, i) => `<a href="/p${i}">page ${i}</a>`).join(' ');
    const routes = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`/p${i}`, (_req: IncomingMessage, res: ServerResponse) => sendHtml(res, html(`<article><h1>P${i}</h1>${articleText(`p${i}`)}</article>`))]),
    );
    const site = await startFixtureServer({ '/': (_req, res) => sendHtml(res, html(`<article><h1>Start</h1>${articleText('start')}${links}</article>`)), ...routes });
    const backend = new LocalBackend({ store: new FileJobStore(tempHome()) });
    try {
      const { jobId } = await backend.start('crawl', { url: site.at('/'), maxPages: 5, ignoreSitemap: true });
      const seen: JobProgress[] = [];
      expect(await backend.wait('crawl', jobId, { onProgress: (p) => seen.push(p) })).toBe('completed');
      const found = seen.map((p) => p.discovered).filter((n): n is number => n !== undefined);
      // The start page alone, then its six links (capped by maxPages: 5).
      expect(found[0]).toBe(1);
      expect(Math.max(...found)).toBe(5);
      expect(seen.at(-1)).toMatchObject({ status: 'completed', done: 5 });
    } finally {
      await backend.close();
      await site.close();
    }
  });
});
