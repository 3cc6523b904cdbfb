/**
 * Runs inside the page Chromium already parsed: metadata, links, main content and
 * Markdown, in one round trip. Bundled at build time into the script evaluated in the
 * page (page/entry.ts), and run in Node on linkedom's DOM by the HTTP engine (inNode.ts):
 * it must reach nothing outside the DOM it is given. Running in the page, instead of
 * re-parsing the HTML in Node, costs no extra parse and spreads the work over Chromium's
 * renderer processes.
 */

import { textHolds } from './main/dom.js';
import { Explainer, formatExplain } from './main/explain.js';
import type { MainContent, MainContentSelector } from './main/pipeline.js';
import { WINDOWS_1252_HIGH } from './windows1252.js';

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

/**
 * The message extractInPage throws for a user's includeTags/excludeTags that the
 * DOM's selector engine rejects; it crosses the page (or worker) boundary as text.
 */
export const BAD_USER_SELECTOR = /(?:include|exclude)Tags: .* is not a valid CSS selector/;

/* eslint-disable @typescript-eslint/no-explicit-any */
/** `page`: the document to read; in a browser tab, the tab's own (the HTTP engine passes the one it parsed in Node). */
export function extractInPage(
  options: InPageOptions,
  selector: MainContentSelector,
  toMarkdown: (root: Element) => string,
  page: Document = document,
): InPageResult {
  /** Never content. `noscript` too, except that main-content selection may read it first. */
  const REMOVE_ALWAYS = 'script, style, template, svg, canvas, iframe, object, embed, link, meta, base';

  function metadataOf(doc: Document): Record<string, string> {
    const meta: Record<string, string> = {};
    const title = doc.title.trim();
    if (title) meta.title = title;
    for (const el of Array.from(doc.querySelectorAll('meta[name], meta[property]'))) {
      const key = (el.getAttribute('property') || el.getAttribute('name') || '').trim();
      const content = (el.getAttribute('content') || '').trim();
      if (!key || !content) continue;
      const lower = key.toLowerCase();
      if (lower === 'description' || lower === 'viewport' || lower === 'author' || lower === 'keywords' || lower === 'robots') {
        meta[lower] ??= content;
      } else if (lower.startsWith('og:') || lower.startsWith('article:') || lower.startsWith('twitter:')) {
        meta[key] ??= content;
      }
    }
    if (!meta.title && meta['og:title']) meta.title = meta['og:title'];
    if (!meta.description && meta['og:description']) meta.description = meta['og:description'];
    meta.title ??= '';
    meta.description ??= '';
    // A document stopped before its first element has none.
    const lang = doc.documentElement?.getAttribute('lang');
    if (lang) meta.language = lang;
    const icon = doc.querySelector('link[rel~="icon"]') as HTMLLinkElement | null;
    if (icon?.href) meta['link:icon'] = icon.href;
    const canonical = doc.querySelector('link[rel="canonical"]') as HTMLLinkElement | null;
    if (canonical?.href) meta.canonical = canonical.href;
    return meta;
  }

  function linksOf(doc: Document): string[] {
    const seen = new Set<string>();
    for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
      const href = (a as HTMLAnchorElement).href;
      if (!/^https?:/i.test(href)) continue;
      const clean = href.split('#')[0]!;
      if (!seen.has(clean)) seen.add(clean);
    }
    return [...seen];
  }

  function absolutise(root: Element): void {
    for (const el of Array.from(root.querySelectorAll('a[href]'))) {
      const a = el as HTMLAnchorElement;
      if (a.getAttribute('href')!.startsWith('#')) continue;
      a.setAttribute('href', a.href);
    }
    for (const el of Array.from(root.querySelectorAll('img[src]'))) {
      el.setAttribute('src', (el as HTMLImageElement).src);
    }
  }

  function remove(root: ParentNode, selector: string): void {
    for (const el of Array.from(root.querySelectorAll(selector))) el.remove();
  }

  /** querySelectorAll for a selector the user gave, failing with a message that names the option. */
  function selectUser(root: ParentNode, selector: string, option: string): Element[] {
    try {
      return Array.from(root.querySelectorAll(selector));
    } catch {
      throw new Error(`${option}: "${selector}" is not a valid CSS selector`);
    }
  }

  /**
   * React's streaming server rendering sends a page's slow parts after the shell, each in
   * a hidden `<div id="S:n">`, and its runtime's inline scripts (`$RC("B:m","S:n")`) move
   * each over its `<template id="B:m">` and the fallback after it ("Loading
   * paragraph..."). Where those scripts have not run (over HTTP, or scripts off), the
   * same is done here from the calls the page carries; without them (a saved page),
   * the parts go to the placeholders in the order both came, rather than the article lost.
   * The fallback goes only when the boundary's closing comment (`<!--/$-->`) says where it ends.
   */
  const STREAMED_SEGMENT = 'div[hidden][id^="S:"]';

  function completeStreamedSegments(doc: Document): void {
    const segments = Array.from(doc.querySelectorAll(STREAMED_SEGMENT));
    if (segments.length === 0) return;
    const places = new Map<string, Element>();
    for (const script of Array.from(doc.querySelectorAll('script'))) {
      for (const call of (script.textContent || '').matchAll(/\$RC\("(B:[0-9a-f]+)","(S:[0-9a-f]+)"\)/g)) {
        const placeholder = doc.getElementById(call[1]!);
        if (placeholder?.tagName === 'TEMPLATE') places.set(call[2]!, placeholder);
      }
    }
    // Without the calls, the parts go to the placeholders left, in the order both came.
    const placed = new Set(places.values());
    const free = Array.from(doc.querySelectorAll('template[id^="B:"]')).filter((placeholder) => !placed.has(placeholder));
    for (const segment of segments) {
      segment.removeAttribute('hidden');
      const placeholder = places.get(segment.id) ?? free.shift();
      if (placeholder) fillPlaceholder(placeholder, segment);
    }
  }

  /** Puts `segment`'s content over `placeholder`, and over the fallback after it when its end is marked. */
  function fillPlaceholder(placeholder: Element, segment: Element): void {
    const fallback: Node[] = [];
    let node = placeholder.nextSibling;
    while (node && !(node.nodeType === 8 && (node as Comment).data === '/$')) {
      fallback.push(node);
      node = node.nextSibling;
    }
    if (node) for (const part of fallback) part.parentNode?.removeChild(part);
    placeholder.replaceWith(...Array.from(segment.childNodes));
    segment.remove();
  }

  /**
   * UTF-8 text that the site's own software read as Latin-1 or windows-1252 before
   * sending it on, so that the page itself says "letâ\u0080\u0099s" or "letâ€™s" for
   * "let’s" and "cafÃ©" for "café". A browser shows it so; no reader wants it. A run
   * that holds a C1 control or one of windows-1252's characters for the bytes 0x80-0x9F,
   * and reads back as one UTF-8 character, is proof: on a page with one, every run that
   * reads back so is repaired ("Ã©" too). A page without one keeps its "SÃO PAULO".
   */
  const CONTINUATION = `[\\u0080-\\u00bf${WINDOWS_1252_HIGH}]`;
  const DOUBLE_ENCODED = new RegExp(`[\\u00c2-\\u00df]${CONTINUATION}|[\\u00e0-\\u00ef]${CONTINUATION}{2}|[\\u00f0-\\u00f4]${CONTINUATION}{3}`, 'g');
  const PROOF = new RegExp(`[\\u0080-\\u009f${WINDOWS_1252_HIGH}]`);

  /** The character whose UTF-8 bytes `run` spells, or null when they are not one (nor a C1 control). */
  function readBack(run: string): string | null {
    const bytes = Array.from(run, (c) => {
      const high = WINDOWS_1252_HIGH.indexOf(c);
      return high >= 0 ? 0x80 + high : c.charCodeAt(0);
    });
    try {
      const character = new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
      return character >= '\u00a0' ? character : null;
    } catch {
      return null;
    }
  }

  /** A function that repairs double-encoded text, when `text` proves the page has some. */
  function doubleEncodingRepair(text: string): ((text: string) => string) | null {
    const proven = (text.match(DOUBLE_ENCODED) ?? []).some((run) => PROOF.test(run) && readBack(run) !== null);
    if (!proven) return null;
    return (value) => value.replace(DOUBLE_ENCODED, (run) => readBack(run) ?? run);
  }

  function repairTextNodes(node: Node, repair: (text: string) => string): void {
    if (node.nodeType === 3) node.nodeValue = repair(node.nodeValue || '');
    for (const child of Array.from(node.childNodes)) repairTextNodes(child, repair);
  }

  /**
   * What a <video> or <audio> holds besides its sources is for browsers without HTML5
   * media ("Your browser does not support the video tag."): no reader sees it.
   */
  function removeMediaFallbacks(root: ParentNode): void {
    for (const media of Array.from(root.querySelectorAll('video, audio'))) {
      for (const child of Array.from(media.childNodes)) if (!/^(SOURCE|TRACK)$/.test(child.nodeName)) child.parentNode?.removeChild(child);
    }
  }

  function mainContent(doc: Document): MainContent {
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
    if (options.onlyMainContent && options.includeTags.length === 0) return selector.select(clone, doc, explainer);
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

  /** Not with includeTags or without onlyMainContent: then no pass runs (see explainText). */
  const explainer = options.explain ? new Explainer() : undefined;

  function explainText(): string | undefined {
    if (!options.explain) return undefined;
    if (options.includeTags.length > 0) return 'includeTags: only what they select is kept (excludeTags removed first); no main-content pass runs';
    if (!options.onlyMainContent) return 'onlyMainContent is off: the whole page is kept (excludeTags removed first); no main-content pass runs';
    return formatExplain(explainer!.steps);
  }

  // A run needs its first character (Â to ô): a page without one (most English pages) is read no further.
  const LEAD = /[\u00c2-\u00f4]/;
  const mayBeDoubleEncoded = LEAD.test(page.title) || (page.body !== null && textHolds(page.body, LEAD));
  const repair = mayBeDoubleEncoded ? doubleEncodingRepair(`${page.title} ${page.body?.textContent || ''}`) : null;
  const metadata = metadataOf(page);
  if (repair) for (const key of Object.keys(metadata)) metadata[key] = repair(metadata[key]!);
  const links = options.wantLinks ? linksOf(page) : [];
  const needContent = options.wantHtml || options.wantMarkdown;
  const main = needContent ? mainContent(page) : null;
  const content = main?.root;
  if (content) absolutise(content);
  const explain = main ? explainText() : undefined;
  return {
    ...(main?.warning ? { warning: main.warning } : {}),
    ...(explain !== undefined ? { explain } : {}),
    metadata,
    links,
    html: content && options.wantHtml ? content.innerHTML.trim() : '',
    markdown: content && options.wantMarkdown ? toMarkdown(content) : '',
  };
}
