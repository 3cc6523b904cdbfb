/**
 * The script evaluated in each page Chromium reads: bundled at build time by
 * scripts/build-page-script.mjs (esbuild, as Puppeteer builds its injected scripts)
 * from the same modules Node runs on linkedom (inNode.ts), with the browser builds of
 * Readability, turndown and its GFM plugin. Its one export is reached as
 * `webjobsExtraction.extract` inside the function bundle.ts wraps it in, so nothing
 * leaks into the page's globals.
 */
import { extractInPage, type InPageOptions, type InPageResult } from '../inPage.js';

export function extract(options: InPageOptions): InPageResult {
  return extractInPage(options);
}
