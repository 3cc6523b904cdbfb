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

/**
 * A script run at the start of a document (before the page's own scripts): in the top frame only, it
 * defines the extraction as a non-enumerable, read-only property `key` of the window, to be called later by
 * extractionCall. Sent to the browser once per tab instead of once per page (engine/browser/pageExtraction.ts).
 */
export function extractionInstaller(key: string): string {
  const name = JSON.stringify(key);
  return `(function () {
    if (window.top !== window || Object.prototype.hasOwnProperty.call(window, ${name})) return;
    var extract = (function () {
      ${PAGE_SCRIPT}
      return webjobsExtraction.extract;
    })();
    Object.defineProperty(window, ${name}, { value: extract, enumerable: false, writable: false, configurable: false });
  })()`;
}

/** An expression that returns the InPageResult for `options` from the extraction extractionInstaller defined, or null when the document has none. */
export function extractionCall(key: string, options: InPageOptions): string {
  return `(function () {
    var extract = window[${JSON.stringify(key)}];
    return typeof extract === 'function' ? extract(${JSON.stringify(options)}) : null;
  })()`;
}
