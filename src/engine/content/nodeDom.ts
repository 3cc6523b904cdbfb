/**
 * A DOM in Node for the extraction code the browser runs (inPage.ts, main/, markdown.ts):
 * linkedom, measured the fastest (issue 13), with what that code asks
 * of a browser's DOM and linkedom lacks filled in here, so that the code itself
 * stays one and the same on both engines:
 *
 * - URLs: `a.href`, `img.src`, `link.href`, `document.baseURI` resolve against the
 *   page's address (and its `<base href>`), as in a browser; linkedom returns the
 *   attribute as written.
 * - A parser of HTML strings for turndown's table cells (markdown/cellParser.ts): domino, as
 *   turndown's Node build has it (nodeCells.ts), loaded by the first table.
 * - `document.implementation.createHTMLDocument`, a TreeWalker that honours its
 *   filter and its whatToShow (linkedom's ignores both), a table's `rows` and `caption`, a row's `cells`.
 * - `<noscript>`: a browser with scripts on reads its content as text; linkedom
 *   parses it into elements. It is turned back into text, as Chromium has it.
 * - Visibility (`checkVisibility`): no layout or style sheets here. The substitute
 *   (see isShownWithoutLayout) reads what the markup says: the `hidden` attribute,
 *   inline `display:none` / `visibility:hidden`, and elements a browser never shows
 *   (template, noscript, a closed dialog, hidden inputs). The utility classes that
 *   mean "never shown" (d-none, hidden, is-hidden...) the visibility pass reads on both
 *   engines (main/rules/names.ts). Of the page's own <style> elements, it reads the rules that hide a
 *   class or an id for good (inlineSheets.ts). What it cannot see: the rest of the
 *   style sheets (a mobile menu hidden by a media query, a class the site's linked
 *   CSS hides). Main-content selection (main/) guards every use of visibility with text shares, so
 *   such a block is kept, not the page lost.
 *   `innerText` leaves out what the markup hides, and `getComputedStyle` gives the
 *   `display` the markup says (displayFromMarkup): a closed accordion panel is told
 *   by its display:none, and its text by not being in what the page shows.
 *
 * The patches go on linkedom's classes once per thread; the page being read sets
 * the address URLs resolve against for the length of one synchronous extraction.
 */
import {
  Element as LinkedomElement,
  EventTarget as LinkedomEventTarget,
  HTMLAnchorElement,
  HTMLAreaElement,
  HTMLElement,
  HTMLImageElement,
  HTMLLinkElement,
  NodeList as LinkedomNodeList,
  parseHTML,
} from 'linkedom/worker';
import { hiddenBySheets, type SheetHiding } from './inlineSheets.js';
import { setCellParser } from './markdown/cellParser.js';
import { dominoDocument } from './nodeCells.js';
import { measureTextWith } from './main/dom.js';
import { listenersOnDemand } from './nodeListeners.js';
import { cacheQueries, cacheSelectors, classFromAttribute, freezeTree, upperCase } from './nodeSelectors.js';
import { linkedTextWalk } from './nodeText.js';

const SHOW_ELEMENT = 0x1;
const FILTER_ACCEPT = 1;
const FILTER_REJECT = 2;
const FILTER_SKIP = 3;

/** NodeFilter's constants, which main-content selection (main/) reads from the global scope as a page does. */
export const NODE_FILTER = { FILTER_ACCEPT, FILTER_REJECT, FILTER_SKIP, SHOW_ALL: 0xffffffff, SHOW_ELEMENT, SHOW_TEXT: 0x4 };

/**
 * The page being read: its URL, the base its relative URLs resolve against, and what its own
 * <style> elements hide (inlineSheets.ts).
 */
let reading: { url: string; base: string; hidden: SheetHiding | null } | undefined;

function resolved(value: string | null): string {
  if (value === null) return '';
  if (!reading) return value;
  try {
    return new URL(value.trim(), reading.base).href;
  } catch {
    return value;
  }
}

/**
 * A TreeWalker that honours `whatToShow` (linkedom's walks elements whatever it is asked) and its
 * filter's REJECT (skip the subtree) and SKIP. A node `whatToShow` leaves out is skipped: its
 * children are still visited.
 */
class NodeWalker {
  currentNode: Node;
  /** Elements only: walked by the element links, faster than visiting every text node too. */
  private readonly elementsOnly: boolean;
  constructor(
    readonly root: Node,
    private readonly whatToShow: number,
    private readonly filter?: { acceptNode(node: Node): number } | ((node: Node) => number),
  ) {
    this.currentNode = root;
    this.elementsOnly = whatToShow === SHOW_ELEMENT;
  }

  private accept(node: Node): number {
    if (!(this.whatToShow & (1 << (node.nodeType - 1)))) return FILTER_SKIP;
    if (!this.filter) return FILTER_ACCEPT;
    return typeof this.filter === 'function' ? this.filter(node) : this.filter.acceptNode(node);
  }

  nextNode(): Node | null {
    let node: Node | null = this.currentNode;
    let descend = true;
    for (;;) {
      const next: Node | null = this.elementsOnly
        ? (descend && firstElement(node)) || nextElementAfter(node, this.root)
        : (descend && node.firstChild) || nextNodeAfter(node, this.root);
      if (!next) return null;
      const verdict = this.accept(next);
      node = next;
      if (verdict === FILTER_ACCEPT) {
        this.currentNode = next;
        return next;
      }
      descend = verdict !== FILTER_REJECT;
    }
  }
}

function firstElement(node: Node): Element | null {
  return (node as Element).firstElementChild ?? null;
}

/** The element after `node` in document order, its subtree skipped, without leaving `root`. */
function nextElementAfter(node: Node, root: Node): Element | null {
  for (let at: Node | null = node; at && at !== root; at = at.parentNode) {
    const sibling = (at as Element).nextElementSibling;
    if (sibling) return sibling;
  }
  return null;
}

/** The node after `node` in document order, its subtree skipped, without leaving `root`. */
function nextNodeAfter(node: Node, root: Node): Node | null {
  for (let at: Node | null = node; at && at !== root; at = at.parentNode) {
    if (at.nextSibling) return at.nextSibling;
  }
  return null;
}

/** Elements a browser's own style sheet never shows. */
const NEVER_SHOWN = new Set(['TEMPLATE', 'NOSCRIPT', 'SCRIPT', 'STYLE', 'HEAD', 'DATALIST', 'AREA', 'MAP', 'PARAM']);

/** Whether the browser gives the element no box at all: its own style sheet or the `hidden` attribute (not "until-found"), or a closed dialog. */
function neverRendered(el: Element): boolean {
  const hidden = el.getAttribute('hidden');
  return NEVER_SHOWN.has(el.tagName) || (hidden !== null && hidden !== 'until-found') || (el.tagName === 'DIALOG' && !el.hasAttribute('open'));
}

/**
 * Whether the element is shown, judged from its markup alone (the Node engine's
 * checkVisibility, see above). Ancestors need not be checked: the walker that asks
 * (markHidden) does not descend into an element it found hidden.
 */
export function isShownWithoutLayout(el: Element): boolean {
  if (neverRendered(el)) return false;
  if (el.tagName === 'INPUT' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return false;
  const style = inlineStyle(el);
  if (/(^|;)display:none(!important)?(;|$)/.test(style) || /(^|;)visibility:(hidden|collapse)(!important)?(;|$)/.test(style)) return false;
  if (/(^|;)content-visibility:hidden(!important)?(;|$)/.test(style)) return false;
  // An inline display wins over the page's style sheets.
  return /(^|;)display:/.test(style) || !hiddenBySheet(el);
}

/** Whether one of the page's own <style> elements hides the element. */
const hiddenBySheet = (el: Element) => reading?.hidden?.hides(el) === true;

/**
 * The `display` the markup gives an element, for getComputedStyle: "none" where the browser's
 * own style sheet or an attribute hides it, else its inline style's, else "" (style sheets unknown).
 * The visibility pass (main/passes/visibility.ts) asks it of a hidden element: display:none is how an accordion's closed panel is
 * hidden (Vue's v-show, jQuery's slideUp write it inline), and such a panel is content.
 */
export function displayFromMarkup(el: Element): string {
  if (neverRendered(el)) return 'none';
  return /(?:^|;)display:([a-z-]+)/.exec(inlineStyle(el))?.[1] ?? (hiddenBySheet(el) ? 'none' : '');
}

/** The element's style attribute, lower-cased and without white space: "display:none;color:red". */
const inlineStyle = (el: Element) => (el.getAttribute('style') || '').toLowerCase().replace(/\s+/g, '');

/** The text of `node` a reader sees, as innerText gives it (without its line breaks): what the markup hides left out. */
function shownText(node: Node): string {
  if (node.nodeType === 3) return node.textContent ?? '';
  if (node.nodeType !== 1 || !isShownWithoutLayout(node as Element)) return '';
  let text = '';
  for (const child of Array.from(node.childNodes)) text += shownText(child);
  return text;
}

let patched = false;

/** querySelector(All) with the cached selectors (nodeSelectors.ts), on the class elements and documents share; the text measures along the same links (nodeText.ts). */
function cacheParentQueries(body: Element): void {
  const symbols = Object.getOwnPropertySymbols(body);
  const next = symbols.find((symbol) => symbol.description === 'next');
  const end = symbols.find((symbol) => symbol.description === 'end');
  const parentNode = Object.getPrototypeOf(LinkedomElement.prototype) as Parameters<typeof cacheQueries>[0];
  // Should linkedom change its links or its classes, its own queries stay.
  if (!next || !end || !Object.hasOwn(parentNode, 'querySelectorAll')) return;
  cacheQueries(parentNode, { next, end }, LinkedomNodeList as unknown as new () => Element[]);
  measureTextWith(linkedTextWalk({ next, end }));
}

/**
 * linkedom's tagName and nodeName of an element: its local name, in upper case in an HTML document, which
 * linkedom builds anew on every call; here remembered per name (nodeSelectors.ts upperCase). The passes,
 * Readability and turndown ask them of every element, again and again. Should linkedom change how it
 * tells an HTML document (its 'mime' symbol), its own getters stay.
 */
function upperCaseTagNames(document: Document): void {
  const mime = Object.getOwnPropertySymbols(document).find((symbol) => symbol.description === 'mime');
  const own = Object.getOwnPropertyDescriptor(LinkedomElement.prototype, 'tagName');
  if (!mime || !own?.get || !Object.getOwnPropertyDescriptor(LinkedomElement.prototype, 'nodeName')?.get) return;
  const get = function (this: Element): string {
    const { localName } = this;
    return (this.ownerDocument as unknown as Record<symbol, { ignoreCase: boolean }>)[mime]!.ignoreCase ? upperCase(localName) : localName;
  };
  for (const name of ['tagName', 'nodeName']) Object.defineProperty(LinkedomElement.prototype, name, { configurable: true, get });
}

/** Fills in, once per thread, what the extraction code asks of a browser's DOM and linkedom lacks. */
function patchLinkedom(): void {
  if (patched) return;
  patched = true;
  setCellParser(dominoDocument);
  cacheSelectors(LinkedomElement.prototype as unknown as Parameters<typeof cacheSelectors>[0]);
  classFromAttribute(LinkedomElement.prototype);
  listenersOnDemand(LinkedomEventTarget as unknown as Parameters<typeof listenersOnDemand>[0]);
  const urlProperty = (proto: object, attribute: string) =>
    Object.defineProperty(proto, attribute, {
      configurable: true,
      get(this: Element) {
        return this.hasAttribute(attribute) ? resolved(this.getAttribute(attribute)) : '';
      },
      set(this: Element, value: string) {
        this.setAttribute(attribute, value);
      },
    });
  urlProperty(HTMLAnchorElement.prototype, 'href');
  urlProperty(HTMLAreaElement.prototype, 'href');
  urlProperty(HTMLLinkElement.prototype, 'href');
  urlProperty(HTMLImageElement.prototype, 'src');
  const { document } = parseHTML('<!doctype html><html><head></head><body></body></html>');
  cacheParentQueries(document.body);
  const documentProto = Object.getPrototypeOf(document) as object;
  upperCaseTagNames(document);
  const nodeProto = Object.getPrototypeOf(Object.getPrototypeOf(HTMLElement.prototype)) as object;
  Object.defineProperty(nodeProto, 'baseURI', { configurable: true, get: () => reading?.base ?? 'about:blank' });
  Object.defineProperty(documentProto, 'documentURI', { configurable: true, get: () => reading?.url ?? 'about:blank' });
  Object.defineProperty(documentProto, 'URL', { configurable: true, get: () => reading?.url ?? 'about:blank' });
  Object.defineProperty(documentProto, 'implementation', {
    configurable: true,
    get: () => ({
      createHTMLDocument: (title = '') => {
        const created = parseHTML('<!doctype html><html><head><title></title></head><body></body></html>').document;
        created.title = title;
        return created;
      },
    }),
  });
  Object.defineProperty(documentProto, 'createTreeWalker', {
    configurable: true,
    value: (root: Node, whatToShow = NODE_FILTER.SHOW_ALL, filter?: { acceptNode(node: Node): number }) => new NodeWalker(root, whatToShow, filter),
  });
  // On every element: linkedom makes some tables (inside other elements' innerHTML) plain elements.
  Object.defineProperty(LinkedomElement.prototype, 'rows', {
    configurable: true,
    get(this: Element) {
      // The table's own rows: those whose nearest table is this one.
      return Array.from(this.querySelectorAll('tr')).filter((row) => row.parentElement?.closest('table') === this);
    },
  });
  // A table's caption: its first <caption> child (linkedom has none; turndown's table rule writes it).
  Object.defineProperty(LinkedomElement.prototype, 'caption', {
    configurable: true,
    get(this: Element) {
      return this.tagName === 'TABLE' ? (Array.from(this.children).find((child) => child.tagName === 'CAPTION') ?? null) : undefined;
    },
  });
  Object.defineProperty(LinkedomElement.prototype, 'cells', {
    configurable: true,
    get(this: Element) {
      return Array.from(this.children).filter((cell) => cell.tagName === 'TD' || cell.tagName === 'TH');
    },
  });
  // linkedom's innerText is its textContent, hidden parts included.
  Object.defineProperty(HTMLElement.prototype, 'innerText', {
    configurable: true,
    get(this: Element) {
      return shownText(this);
    },
    set(this: Element, text: string) {
      this.textContent = text;
    },
  });
  Object.defineProperty(LinkedomElement.prototype, 'checkVisibility', {
    configurable: true,
    value(this: Element) {
      return isShownWithoutLayout(this);
    },
  });
  (globalThis as { NodeFilter?: unknown }).NodeFilter ??= NODE_FILTER;
}

/** `<noscript>` content as the text a browser with scripts on holds there; whether any had elements (the tree changed). */
export function noscriptAsText(doc: Document): boolean {
  let changed = false;
  for (const noscript of Array.from(doc.querySelectorAll('noscript'))) {
    if (noscript.children.length === 0) continue;
    noscript.textContent = noscript.innerHTML;
    changed = true;
  }
  return changed;
}

/** The base URL of the page served at `url`: its first `<base href>`, resolved, else the page's own address. */
function baseOf(doc: Document, url: string): string {
  const href = doc.querySelector('base[href]')?.getAttribute('href');
  if (!href) return url;
  try {
    return new URL(href.trim(), url).href;
  } catch {
    return url;
  }
}

/** Where what opens at `at` ends: a script, a style or a comment is passed whole (its text may say "<![CDATA["). */
function skipRawText(html: string, lower: string, at: number): number {
  if (lower.startsWith('<!--', at)) {
    const end = html.indexOf('-->', at + 4);
    return end < 0 ? html.length : end + 3;
  }
  for (const tag of ['script', 'style']) {
    if (lower.startsWith(`<${tag}`, at) && /[\s/>]/.test(lower[at + tag.length + 1] ?? '')) {
      const end = lower.indexOf(`</${tag}`, at);
      const close = end < 0 ? -1 : html.indexOf('>', end);
      return close < 0 ? html.length : close + 1;
    }
  }
  return at;
}

/**
 * `html` without the "<![CDATA[...>" a browser reads as a bogus comment, outside
 * scripts, styles and comments (WordPress writes `/* <![CDATA[ *\/` in its scripts).
 * One pass, each character looked at a bounded number of times.
 */
function withoutStrayCdata(html: string): string {
  if (!html.includes('<![CDATA[')) return html;
  const lower = html.toLowerCase();
  const parts: string[] = [];
  let from = 0;
  for (let at = html.indexOf('<'); at >= 0 && at < html.length; ) {
    const after = skipRawText(html, lower, at);
    if (after > at) {
      at = html.indexOf('<', after);
      continue;
    }
    if (html.startsWith('<![CDATA[', at)) {
      parts.push(html.slice(from, at));
      const end = html.indexOf('>', at);
      from = end < 0 ? html.length : end + 1;
      at = html.indexOf('<', from);
      continue;
    }
    at = html.indexOf('<', at + 1);
  }
  parts.push(html.slice(from));
  return parts.join('');
}

/** What a browser keeps in `<head>`; anything else there starts the body. */
const HEAD_CONTENT = new Set(['BASE', 'LINK', 'META', 'NOSCRIPT', 'SCRIPT', 'STYLE', 'TEMPLATE', 'TITLE']);

/**
 * `served` as a browser has it: everything shown under html > body. HTML lets a page
 * leave those tags out, and a browser moves what sits outside them (a fragment, a
 * banner written inside `<head>`) into the body; linkedom keeps it where it was
 * written, outside any body, where Readability fails on it.
 */
function parseAsBrowser(served: string): Document {
  // In HTML, "<![CDATA[" is a bogus comment ending at the next ">"; linkedom reads a CDATA
  // section up to "]]>", and a stray one in a body (seen on a XenForo forum) took the whole page.
  const html = withoutStrayCdata(served);
  const parse = (text: string) => (parseHTML(text) as unknown as { document: Document }).document;
  let document = parse(html);
  if (document.documentElement?.tagName !== 'HTML') {
    document = parse(`<!DOCTYPE html><html><head></head><body>${html.replace(/^\s*<!doctype[^>]*>/i, '')}</body></html>`);
  }
  const root = document.documentElement;
  const children = Array.from(root.children);
  const head = children.find((child) => child.tagName === 'HEAD');
  let body = children.find((child) => child.tagName === 'BODY');
  if (!body) body = root.appendChild(document.createElement('body'));
  // From the first element of <head> that is not head content on, the rest of it is the body's start.
  const headChildren = head ? Array.from(head.children) : [];
  const firstShown = headChildren.findIndex((child) => !HEAD_CONTENT.has(child.tagName));
  const start = firstShown < 0 ? [] : headChildren.slice(firstShown);
  const before = children.filter((child) => child !== head && child !== body && child.compareDocumentPosition(body!) & 4);
  const after = children.filter((child) => child !== head && child !== body && !before.includes(child));
  body.prepend(...start, ...before);
  body.append(...after);
  return document;
}

/**
 * Parses `html`, served at `url`, and runs `read` on the document with URLs
 * resolving as in a browser. `read` must be synchronous: the page's address is
 * set for its length only. With `frozen`, `read` must not change the document's
 * tree (see freezeTree): its queries read the index the reading of its noscripts,
 * base and style sheets built.
 */
export function withNodeDocument<T>(html: string, url: string, read: (doc: Document) => T, { frozen = false } = {}): T {
  patchLinkedom();
  const document = parseAsBrowser(html);
  // One walk of the page (its index) for the noscripts, the base and the style sheets, where each walked
  // it; built again when a noscript's elements became its text.
  let thaw = freezeTree(document);
  try {
    if (noscriptAsText(document)) {
      thaw();
      thaw = freezeTree(document);
    }
    const view = document.defaultView as unknown as { getComputedStyle?: (el: Element) => { display: string } } | null;
    if (view) view.getComputedStyle = (el) => ({ display: displayFromMarkup(el) });
    reading = { url, base: baseOf(document, url), hidden: hiddenBySheets(document) };
    if (!frozen) {
      thaw();
      thaw = () => undefined;
    }
    return read(document);
  } finally {
    thaw();
    reading = undefined;
  }
}
