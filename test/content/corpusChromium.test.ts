/**
 * The main-content corpus in Chromium: one browser, every page of test/fixtures/pages/ served from one
 * fixture server on 127.0.0.1, each checked against its expect.json (the checks both engines pass, and
 * those only Chromium passes), and its Markdown compared with the Node path's (extractInNode, the HTTP
 * engine's), byte for byte, unless the case says why the engines differ (markdownDiffers).
 * test/content/corpus.test.ts runs the same corpus on the Node path alone, without a browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../src/engine/browser/browser.js';
import { extractInNode } from '../../src/engine/content/inNode.js';
import { scrapeUrl } from '../../src/engine/browser/scrape.js';
import { checksFor, failedChecks, loadCorpus, loadFurniture, plain } from '../helpers/corpus.js';
import { sendHtml, startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';

const corpus = loadCorpus();
const furniture = loadFurniture();

let server: FixtureServer;
let pool: BrowserPool;

beforeAll(async () => {
  server = await startFixtureServer(Object.fromEntries(corpus.map((c) => [c.expect.path, (_req, res) => sendHtml(res, c.html)])));
  pool = new BrowserPool();
}, 30_000);

afterAll(async () => {
  await pool?.close();
  await server?.close();
});

describe('the corpus in Chromium', () => {
  // As on the Node path: a typo in furniture.json would make every "dropsFurniture" check pass.
  it('puts every furniture string into the full-page Markdown', async () => {
    const { markdown = '' } = await scrapeUrl(pool, server.at('/index/blog'), { timeout: 20_000, onlyMainContent: false });
    expect(furniture.filter((s) => !markdown.includes(s) && !plain(markdown).includes(s))).toEqual([]);
  });

  it.each(corpus.map((c) => [c.name, c] as const))('%s', async (_name, { html, expect: expectations }) => {
    const url = server.at(expectations.path);
    const checks = checksFor(expectations, 'chromium');
    const wantsHtml = checks.some((c) => c.htmlIncludes?.length);
    const page = await scrapeUrl(pool, url, { timeout: 20_000, formats: wantsHtml ? ['markdown', 'html'] : ['markdown'] });
    const markdown = page.markdown ?? '';
    expect.soft(checks.flatMap((c) => failedChecks({ markdown, warning: page.metadata.warning ?? null, html: page.html ?? null }, c, furniture)), expectations.tests.join('\n')).toEqual([]);
    if (expectations.markdownDiffers === undefined) {
      const options = { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: false };
      expect.soft(extractInNode(html, url, options).result.markdown ?? '', "the Node path's Markdown differs from Chromium's").toBe(markdown);
    }
  });
});
