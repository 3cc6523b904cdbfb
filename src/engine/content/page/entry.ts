/**
 * The script evaluated in each page Chromium reads: bundled at build time by
 * scripts/build-page-script.mjs (esbuild, as Puppeteer builds its injected scripts)
 * from the same modules Node runs on linkedom (inNode.ts), with the browser builds of
 * Readability, turndown and its GFM plugin. Its one export is reached as
 * `webjobsExtraction.extract` inside the function bundle.ts wraps it in, so nothing
 * leaks into the page's globals.
 */
import TurndownService from 'turndown';
import * as gfm from 'turndown-plugin-gfm';
import { extractInPage, type InPageOptions, type InPageResult } from '../inPage.js';
import { mainContentSelector } from '../main/pipeline.js';
import { markdownConverter } from '../markdown.js';

const toMarkdown = markdownConverter(TurndownService, gfm);

export function extract(options: InPageOptions): InPageResult {
  return extractInPage(options, mainContentSelector, toMarkdown);
}
