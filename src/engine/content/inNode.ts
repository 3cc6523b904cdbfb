/**
 * The browser's extraction (metadata, links, main content, Markdown) run in Node on
 * HTML fetched over HTTP: the same modules page/entry.ts bundles into the script run
 * in the page (extractInPage, the main-content pipeline, markdownConverter), on
 * linkedom's DOM with what it lacks filled in (nodeDom.ts). CPU-bound: the HTTP engine
 * calls it in worker threads (http/extractPool.ts).
 */
import { createRequire } from 'node:module';
import { extractInPage, type InPageOptions, type InPageResult } from './inPage.js';
import { mainContentSelector, type MainContentSelector } from './main/pipeline.js';
import { markdownConverter } from './markdown.js';
import { withNodeDocument } from './nodeDom.js';
import { pageSignals, type PageSignals } from '../http/signals.js';

const require = createRequire(import.meta.url);

export interface Libraries {
  selector: MainContentSelector;
  toMarkdown: (root: Element) => string;
}

let libraries: Libraries | undefined;

/** The extraction's parts: main-content selection, and turndown with its GFM plugin built into the Markdown converter. */
export function nodeLibraries(): Libraries {
  libraries ??= loadLibraries();
  return libraries;
}

function loadLibraries(): Libraries {
  const TurndownService = require('turndown') as unknown;
  const gfm = require('turndown-plugin-gfm') as unknown;
  return { selector: mainContentSelector, toMarkdown: markdownConverter(TurndownService, gfm) };
}

export interface NodeExtraction {
  result: InPageResult;
  /** What the HTML says about needing a browser (read before extraction changes the document). */
  signals: PageSignals;
}

/** What the browser's extraction gives for `html` served at `url` (after redirects). */
export function extractInNode(html: string, url: string, options: InPageOptions): NodeExtraction {
  const { selector, toMarkdown } = nodeLibraries();
  // The extraction changes copies of the page, never its tree (markHidden marks it, and unmarks it):
  // its whole-document queries read an index of its elements.
  return withNodeDocument(
    html,
    url,
    (doc) => {
      const signals = pageSignals(doc, html, options.includeTags);
      return { signals, result: extractInPage(options, selector, toMarkdown, doc) };
    },
    { frozen: true },
  );
}
