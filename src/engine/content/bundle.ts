/**
 * Builds, once per process, the script evaluated in each page: Readability,
 * turndown and its GFM plugin, and extractInPage, wrapped so that nothing leaks
 * into the page's globals.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extractInPage, type InPageOptions } from './inPage.js';
import { mainContentSelector } from './mainContent.js';
import { markdownConverter } from './markdown.js';

const require = createRequire(import.meta.url);

let cached: string | undefined;

function librarySource(): string {
  const read = (id: string) => readFileSync(require.resolve(id), 'utf8');
  const readability = read('@mozilla/readability/Readability.js');
  const turndown = read('turndown/lib/turndown.browser.umd.js');
  const gfm = read('turndown-plugin-gfm/dist/turndown-plugin-gfm.js');
  return `
    var module = undefined, exports = undefined, define = undefined;
    ${readability}
    var TurndownService = (function () {
      var module = { exports: {} }, exports = module.exports;
      ${turndown}
      return module.exports;
    })();
    ${gfm}
    return { Readability: Readability, TurndownService: TurndownService, gfm: turndownPluginGfm };`;
}

/** An expression that, evaluated in a page, returns the InPageResult for `options`. */
export function extractionScript(options: InPageOptions): string {
  // Everything but the options is the same for every page: built once per process.
  cached ??= `var libs = (function () { ${librarySource()} })();
    var toMarkdown = (${markdownConverter.toString()})(libs.TurndownService, libs.gfm);
    var selector = (${mainContentSelector.toString()})(libs.Readability);
    return (${extractInPage.toString()})`;
  return `(function () {
    ${cached}(${JSON.stringify(options)}, selector, toMarkdown);
  })()`;
}
