/**
 * The script evaluated in each page: the extraction (page/entry.ts), bundled at build
 * time with Readability, turndown and its GFM plugin (scripts/build-page-script.mjs),
 * run inside a function of its own so that nothing leaks into the page's globals.
 */
import type { InPageOptions } from './inPage.js';
import { PAGE_SCRIPT } from './page/script.generated.js';

/** An expression that, evaluated in a page, returns the InPageResult for `options`. */
export function extractionScript(options: InPageOptions): string {
  return `(function () {
    ${PAGE_SCRIPT}
    return webjobsExtraction.extract(${JSON.stringify(options)});
  })()`;
}
