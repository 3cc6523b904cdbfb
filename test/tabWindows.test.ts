/**
 * Pages scraped side by side are each shown (src/engine/browser/browser.ts, open()): Chromium paints
 * only the front tab of a window, and a page in a tab behind another is `hidden`: its
 * requestAnimationFrame callbacks never run (content a script renders in one never comes) and a
 * screenshot of it waits for a frame that never comes (CI saw a batch of page actions hang). A real
 * Chromium (one BrowserPool) against pages on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../src/engine/browser/browser.js';
import { scrapeUrl } from '../src/engine/browser/scrape.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

let site: FixtureServer;
let pool: BrowserPool;
/** The first page is answered only once the second was asked for: its tab opened first, and is behind. */
let secondAsked: () => void = () => undefined;
let second = new Promise<void>((resolve) => (secondAsked = resolve));

/** A page whose script renders its article in an animation frame, as front-end frameworks schedule their rendering. */
function framePage(name: string): string {
  const article = `<article><h1>${name}</h1>${articleText(name, 3)}</article>`;
  return html(`<div id="root"></div><script>requestAnimationFrame(() => { document.getElementById('root').innerHTML = ${JSON.stringify(article)}; });</script>`, { title: name });
}

beforeAll(async () => {
  site = await startFixtureServer({
    '/first': async (_req, res) => {
      await second;
      sendHtml(res, framePage('First page'));
    },
    '/second': (_req, res) => {
      secondAsked();
      sendHtml(res, framePage('Second page'));
    },
  });
  pool = new BrowserPool();
});

afterAll(async () => {
  await pool?.close();
  await site?.close();
});

function both<T>(scrape: (path: string) => Promise<T>): Promise<T[]> {
  second = new Promise<void>((resolve) => (secondAsked = resolve));
  return Promise.all([scrape('/first'), scrape('/second')]);
}

describe('pages scraped side by side', () => {
  it('are each visible, and each renders what it draws in an animation frame', async () => {
    const job = new AbortController();
    const pages = await both((path) =>
      scrapeUrl(pool, site.at(path), { formats: ['markdown'], timeout: 15_000, actions: [{ type: 'executeJavascript', script: 'document.visibilityState' }] }, { signal: job.signal }),
    );
    job.abort();
    expect(pages.map((page) => page.actions?.javascriptReturns[0]?.value)).toEqual(['visible', 'visible']);
    expect(pages.map((page) => page.markdown?.split('\n')[0])).toEqual(['# First page', '# Second page']);
  });

  it('each come back with a screenshot', async () => {
    const job = new AbortController();
    const pages = await both((path) => scrapeUrl(pool, site.at(path), { formats: ['screenshot'], timeout: 15_000 }, { signal: job.signal }));
    job.abort();
    expect(pages.every((page) => page.screenshot?.startsWith('data:image/png;base64,'))).toBe(true);
  });
});
