/**
 * The main-content corpus on the Node path (linkedom, as the HTTP engine reads a page): every page of
 * test/fixtures/pages/ through extractInNode, checked against its expect.json (the checks both engines
 * pass, and those only Node passes). Milliseconds a page, no browser; test/content/corpusChromium.test.ts
 * runs the same corpus in Chromium.
 *
 * The pages are small hand-written copies of what a common CMS, shop, forum or doc generator serves,
 * wrapped in the same site furniture (header with nav, sidebar, footer, cookie banner: furniture.json),
 * so that each case shows only its own problem. To add a case: a folder with page.html (the page as
 * served) and expect.json (fields: test/helpers/corpus.ts's Checks).
 */
import { describe, expect, it } from 'vitest';
import { extractInNode } from '../../src/engine/content/inNode.js';
import type { InPageOptions } from '../../src/engine/content/inPage.js';
import { checksFor, failedChecks, loadCorpus, loadFurniture, plain } from '../helpers/corpus.js';

/** Served as by test/helpers/fixtureServer.ts: the rules read the page's address, never fetch it. */
const ORIGIN = 'http://127.0.0.1:8000';
const OPTIONS: InPageOptions = { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: false };

const corpus = loadCorpus();
const furniture = loadFurniture();

describe('the corpus itself', () => {
  it('has a case for each page, each served at its own path', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(117);
    const paths = corpus.map((c) => c.expect.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  // With onlyMainContent off every furniture string must show up: otherwise a typo in furniture.json
  // would make the "dropsFurniture" checks pass whatever the extractor does.
  it('puts every furniture string into the full-page Markdown', () => {
    const blog = corpus.find((c) => c.expect.path === '/index/blog')!;
    const { markdown = '' } = extractInNode(blog.html, ORIGIN + blog.expect.path, { ...OPTIONS, onlyMainContent: false }).result;
    expect(furniture.filter((s) => !markdown.includes(s) && !plain(markdown).includes(s))).toEqual([]);
  });
});

describe('main content on the Node path', () => {
  it.each(corpus.map((c) => [c.name, c] as const))('%s', (_name, { html, expect: expectations }) => {
    const url = ORIGIN + expectations.path;
    const checks = checksFor(expectations, 'node');
    const { result } = extractInNode(html, url, OPTIONS);
    const wantsHtml = checks.some((c) => c.htmlIncludes?.length);
    const extracted = { markdown: result.markdown ?? '', warning: result.warning ?? null, html: wantsHtml ? extractInNode(html, url, { ...OPTIONS, wantHtml: true, wantMarkdown: false }).result.html : null };
    expect(checks.flatMap((c) => failedChecks(extracted, c, furniture)), expectations.tests.join('\n')).toEqual([]);
  });
});
