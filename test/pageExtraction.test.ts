/**
 * The extraction given to a tab once, to run at the start of each document (engine/browser/pageExtraction.ts):
 * the same result as the whole script evaluated in the page, in the top frame only, out of reach of the page's
 * own scripts, and the whole script still for a document that started before the tab was given it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer';
import { launchBrowser } from '../src/engine/browser/browser.js';
import { extractInTab, installExtraction } from '../src/engine/browser/pageExtraction.js';
import { extractionScript } from '../src/engine/content/bundle.js';
import type { InPageOptions, InPageResult } from '../src/engine/content/inPage.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const OPTIONS: InPageOptions = { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: true, wantMarkdown: true, wantLinks: true };

/** A page whose script lists the window's own names that mention webjobs, and tries to replace what it finds. */
const snooping = html(
  `<nav><a href="/">Home</a></nav><article><h1>Snooped story</h1>${articleText('snooping')}<p id="seen"></p></article><iframe src="/frame"></iframe>` +
    `<script>var names = Object.getOwnPropertyNames(window).filter(function (n) { return /webjobs/i.test(n) && n !== '__webjobsSettleProbe'; });` +
    `names.forEach(function (n) { try { window[n] = function () { return { metadata: {}, links: [], html: '', markdown: 'replaced' }; }; } catch (e) {} });` +
    `document.getElementById('seen').textContent = 'The page saw ' + names.length + ' names.';</script>`,
  { title: 'Snooped story' },
);
const frame = html('<p>A frame.</p>', { title: 'Frame' });

let site: FixtureServer;
let browser: Browser;

beforeAll(async () => {
  site = await startFixtureServer({
    '/snooping': (_req, res) => sendHtml(res, snooping),
    '/frame': (_req, res) => sendHtml(res, frame),
  });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function withTab<T>(use: (page: Page) => Promise<T>): Promise<T> {
  const page = await browser.newPage();
  try {
    return await use(page);
  } finally {
    await page.close();
  }
}

const ownNamesOf = (page: Page, frameIndex: number) =>
  page.frames()[frameIndex]!.evaluate(() => Object.getOwnPropertyNames(window).filter((n) => n.startsWith('__webjobs_')).length);

describe('the extraction given to a tab once', () => {
  it('reads each document as the whole script does, is defined in the top frame only, and the page cannot replace it', async () => {
    const whole = await withTab(async (page) => {
      await page.goto(site.at('/snooping'), { waitUntil: 'load' });
      return (await page.evaluate(extractionScript(OPTIONS))) as InPageResult;
    });
    const given = await withTab(async (page) => {
      await installExtraction(page);
      const results: InPageResult[] = [];
      // Two documents in the same tab: each gets its own.
      for (let i = 0; i < 2; i++) {
        await page.goto(site.at('/snooping'), { waitUntil: 'load' });
        expect(page.frames()).toHaveLength(2);
        expect(await ownNamesOf(page, 0)).toBe(1);
        expect(await ownNamesOf(page, 1)).toBe(0);
        results.push(await extractInTab(page, OPTIONS));
      }
      return results;
    });
    expect(whole.markdown).toContain('Paragraph 6 about snooping');
    // The page saw the name (it is not hidden from getOwnPropertyNames), but its attempt to replace it failed.
    expect(given[0]!.markdown).toContain('The page saw 1 names.');
    for (const result of given) {
      expect(result.markdown).toBe(whole.markdown.replace('The page saw 0 names.', 'The page saw 1 names.'));
      expect(result.html).toBe(whole.html.replace('The page saw 0 names.', 'The page saw 1 names.'));
      expect(result.links).toEqual(whole.links);
      expect(result.metadata).toEqual(whole.metadata);
    }
  });

  it('a document that started before the tab was given it gets the whole script', async () => {
    const result = await withTab(async (page) => {
      await page.goto(site.at('/snooping'), { waitUntil: 'load' });
      await installExtraction(page);
      expect(await ownNamesOf(page, 0)).toBe(0);
      return extractInTab(page, OPTIONS);
    });
    expect(result.markdown).toContain('Paragraph 6 about snooping');
    expect(result.markdown).toContain('The page saw 0 names.');
  });
});
