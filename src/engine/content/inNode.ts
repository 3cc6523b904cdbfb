/**
 * The browser's extraction (metadata, links, main content, Markdown) run in Node on
 * HTML fetched over HTTP: the same functions bundle.ts sends into the page
 * (extractInPage, mainContentSelector, markdownConverter), on linkedom's DOM with
 * what it lacks filled in (nodeDom.ts). CPU-bound: the HTTP engine calls it in
 * worker threads (http/extractPool.ts).
 */
import { createRequire } from 'node:module';
import { extractInPage, type InPageOptions, type InPageResult } from './inPage.js';
import { mainContentSelector, type MainContentSelector } from './mainContent.js';
import { markdownConverter } from './markdown.js';
import { withNodeDocument } from './nodeDom.js';
import { pageSignals, type PageSignals } from '../http/signals.js';

const require = createRequire(import.meta.url);

export interface Libraries {
  selector: MainContentSelector;
  toMarkdown: (root: Element) => string;
}

let libraries: Libraries | undefined;

/** Readability, turndown and its GFM plugin (the packages whose browser builds bundle.ts injects), built into the extraction's parts. */
export function nodeLibraries(): Libraries {
  libraries ??= loadLibraries();
  return libraries;
}

function loadLibraries(): Libraries {
  const { Readability } = require('@mozilla/readability') as { Readability: unknown };
  const TurndownService = require('turndown') as unknown;
  const gfm = require('turndown-plugin-gfm') as unknown;
  return { selector: mainContentSelector(Readability), toMarkdown: markdownConverter(TurndownService, gfm) };
}

export interface NodeExtraction {
  result: InPageResult;
  /** What the HTML says about needing a browser (read before extraction changes the document). */
  signals: PageSignals;
}

/** What the browser's extraction gives for `html` served at `url` (after redirects). */
export function extractInNode(html: string, url: string, options: InPageOptions): NodeExtraction {
  const { selector, toMarkdown } = nodeLibraries();
  return withNodeDocument(html, url, (doc) => {
    const signals = pageSignals(doc, html, options.includeTags);
    return { signals, result: extractInPage(options, selector, toMarkdown, doc) };
  });
}
