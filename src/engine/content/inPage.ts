/**
 * Runs inside the page Chromium already parsed: metadata, links, main content and
 * Markdown, in one round trip. Bundled at build time into the script evaluated in the
 * page (page/entry.ts, with the modules of inPage/, main/ and markdown/), and run in Node
 * on linkedom's DOM by the HTTP engine (inNode.ts): it must reach nothing outside the DOM
 * it is given. Running in the page, instead of
 * re-parsing the HTML in Node, costs no extra parse and spreads the work over Chromium's
 * renderer processes.
 */

import { completeStreamedSegments, STREAMED_SEGMENT } from './inPage/streamed.js';
import { REMOVE_ALWAYS, remove, removeMediaFallbacks, selectUser } from './inPage/cleanup.js';
import { pageRepair, repairTextNodes, type Repair } from './inPage/doubleEncoding.js';
import { absolutise, linksOf } from './inPage/links.js';
import { articleFacts } from './inPage/articleMeta.js';
import { metadataOf } from './inPage/metadata.js';
import { Explainer, formatExplain } from './main/explain.js';
import { mainContentSelector as selector, type MainContent } from './main/pipeline.js';
import { toMarkdown } from './markdown.js';

export interface InPageOptions {
  onlyMainContent: boolean;
  includeTags: string[];
  excludeTags: string[];
  wantHtml: boolean;
  wantMarkdown: boolean;
  wantLinks: boolean;
  /** Trace what main-content selection removed and chose (InPageResult.explain). */
  explain?: boolean;
}

export interface InPageResult {
  metadata: Record<string, string>;
  markdown: string;
  html: string;
  links: string[];
  /** Why the content may not be what the reader came for, when there is reason to think so. */
  warning?: string;
  /** With options.explain: which pass removed which block and why, one line each (main/explain.ts). */
  explain?: string;
}

/** A copy of `doc` as the passes start from it: marked (with onlyMainContent), cleaned, without excludeTags. The page is left as it was. */
function cleanCopy(doc: Document, options: InPageOptions, repair: Repair | null): Document {
  // Visibility is only known in the live page: mark it there, then work on a copy.
  const unmark = options.onlyMainContent ? selector.markHidden(doc) : () => undefined;
  const clone = doc.cloneNode(true) as Document;
  unmark();
  // The copy holds what the page holds, marked: what the (indexed) page lacks needs no walk of the copy.
  if (doc.querySelector(STREAMED_SEGMENT)) completeStreamedSegments(clone);
  remove(clone, REMOVE_ALWAYS);
  if (doc.querySelector('video, audio')) removeMediaFallbacks(clone);
  if (repair) repairTextNodes(clone.documentElement, repair);
  for (const css of options.excludeTags) for (const el of selectUser(clone, css, 'excludeTags')) el.remove();
  return clone;
}

/** The content the options ask for, from a copy of `doc`: the main content, what includeTags select, or the whole page. */
function mainContent(doc: Document, options: InPageOptions, repair: Repair | null, explainer: Explainer | undefined, author: string | undefined): MainContent {
  const clone = cleanCopy(doc, options, repair);
  // The fallback's region before the passes comes from a second copy, made only when it is needed (few pages).
  if (options.onlyMainContent && options.includeTags.length === 0) return selector.select(clone, doc, () => cleanCopy(doc, options, repair), explainer, author);
  remove(clone, 'noscript');
  if (options.includeTags.length > 0) {
    const kept = clone.createElement('div');
    for (const css of options.includeTags) {
      for (const el of selectUser(clone, css, 'includeTags')) kept.appendChild(el);
    }
    return { root: kept };
  }
  return { root: clone.body ?? clone.documentElement };
}

/** Not with includeTags or without onlyMainContent: then no pass runs. */
function explainText(options: InPageOptions, explainer: Explainer | undefined): string | undefined {
  if (!options.explain) return undefined;
  if (options.includeTags.length > 0) return 'includeTags: only what they select is kept (excludeTags removed first); no main-content pass runs';
  if (!options.onlyMainContent) return 'onlyMainContent is off: the whole page is kept (excludeTags removed first); no main-content pass runs';
  return formatExplain(explainer!.steps);
}

/** `page`: the document to read; in a browser tab, the tab's own (the HTTP engine passes the one it parsed in Node). */
export function extractInPage(options: InPageOptions, page: Document = document): InPageResult {
  const explainer = options.explain ? new Explainer() : undefined;
  const repair = pageRepair(page);
  const facts = articleFacts(page);
  const metadata = metadataOf(page, facts);
  if (repair) for (const key of Object.keys(metadata)) metadata[key] = repair(metadata[key]!);
  const links = options.wantLinks ? linksOf(page) : [];
  const needContent = options.wantHtml || options.wantMarkdown;
  const main = needContent ? mainContent(page, options, repair, explainer, facts.author) : null;
  const content = main?.root;
  // A date line or a byline taken out of the body says what the markup did not: a reader loses nothing.
  if (main?.taken) for (const [field, value] of Object.entries(main.taken)) if (value) metadata[field] ??= value;
  if (content) absolutise(content);
  const explain = main ? explainText(options, explainer) : undefined;
  return {
    ...(main?.warning ? { warning: main.warning } : {}),
    ...(explain !== undefined ? { explain } : {}),
    metadata,
    links,
    html: content && options.wantHtml ? content.innerHTML.trim() : '',
    markdown: content && options.wantMarkdown ? toMarkdown(content) : '',
  };
}
