/**
 * The browser's extraction (metadata, links, main content, Markdown) run in Node on
 * HTML fetched over HTTP: the same modules page/entry.ts bundles into the script run
 * in the page (extractInPage, with the main-content pipeline and toMarkdown), on
 * linkedom's DOM with what it lacks filled in (nodeDom.ts). CPU-bound: the HTTP engine
 * calls it in worker threads (http/extractPool.ts).
 */
import { extractInPage, type InPageOptions, type InPageResult } from './inPage.js';
import { withNodeDocument } from './nodeDom.js';
import { pageSignals, type PageSignals } from '../http/signals.js';

export interface NodeExtraction {
  result: InPageResult;
  /** What the HTML says about needing a browser (read before extraction changes the document). */
  signals: PageSignals;
}

/** What the browser's extraction gives for `html` served at `url` (after redirects). */
export function extractInNode(html: string, url: string, options: InPageOptions): NodeExtraction {
  // The extraction changes copies of the page, never its tree (markHidden marks it, and unmarks it):
  // its whole-document queries read an index of its elements.
  return withNodeDocument(
    html,
    url,
    (doc) => {
      const signals = pageSignals(doc, html, options.includeTags);
      return { signals, result: extractInPage(options, doc) };
    },
    { frozen: true },
  );
}
