/**
 * Visibility, in the live page before the copy is made: what the reader cannot see is marked (and goes
 * later), except content one click away (closed tabs, collapsed panels, details); inline elements
 * shown as blocks are marked to be set apart.
 */
import { NOT_TEXT, ancestors, classesOf, linkedLength, normalText, paragraphProse, readableLength, textChildren, textLength, words } from '../dom.js';
import { BLOCK, HIDDEN } from '../marks.js';
import { BLOCK_DISPLAY, CLOAKED, DIALOG, HIDING_CLASSES, ICON_FONT_CLASS, INLINE_TAGS, OPEN_PANEL, SHOWING_CLASSES, SLIDE_NAMES, TAB_PANEL_NAMES, TOGGLED } from '../rules/names.js';
import { holds, namesPage } from '../titles.js';

export function isIconLigature(el: Element): boolean {
  if (ICON_FONT_CLASS.test(el.getAttribute('class') || '')) return true;
  return el.getAttribute('aria-hidden') === 'true' && /^[a-z][a-z0-9_]*$/.test(normalText(el));
}

/** The element's computed `display`; undefined without a layout engine (the Node DOM). */
export const displayOf = (el: Element) => el.ownerDocument.defaultView?.getComputedStyle?.(el).display;

/**
 * A collapsed accordion panel: prose the reader opens with a click on the short title
 * shown just before it, like a closed <details>. It is content. Hidden text the page
 * also shows elsewhere (a variant for another screen size) is not such a panel.
 */
export function isCollapsedPanel(el: Element, visibleText: () => string): boolean {
  return isPanel(el) && !visibleText().includes(longestLine(el).slice(0, 80));
}

/** A block of prose under the short title that toggles it: an accordion's panel, open or not. */
export function isPanel(el: Element): boolean {
  // A dialog opens over the page, a panel within it: the button before a hidden dialog opens a tool, not a section.
  if (el.matches(DIALOG)) return false;
  // Past the <style> a CSS-in-JS library (emotion) renders before each element on the server; the
  // title's own <style> is no text either.
  let toggle = el.previousElementSibling;
  while (toggle?.matches(NOT_TEXT)) toggle = toggle.previousElementSibling;
  if (!toggle || !toggle.checkVisibility({ visibilityProperty: true })) return false;
  const title = readableLength(toggle);
  if (title === 0 || title > 150) return false;
  const total = textLength(el);
  return paragraphProse(el, () => true) >= 200 && linkedLength(el) <= 0.3 * total;
}

/**
 * A tab's panel that is not the open one, though no role says so: a hidden block beside a shown one of
 * the same tag and classes, named as a tab's panel ("tab-pane"), or beside one whose extra class says it
 * is the open one ("content active" beside "content"). What it holds is one click away, as a tabpanel's
 * is: content. Measured on WCXB's dev pages: +0.35 page-F1, two products whose specifications were
 * dropped (+0.15, +0.20), no page lost; any hidden block beside a shown one of the same classes also
 * took a service page's other locations and a listing's responsive copies (-0.02 each).
 */
export function isClosedTab(el: Element): boolean {
  const classes = classesOf(el);
  if (classes.length === 0 || classes.some((name) => OPEN_PANEL.test(name) || SLIDE_NAMES.test(name))) return false;
  const named = words(el).some((word) => TAB_PANEL_NAMES.test(word));
  const sameClasses = classes.slice().sort().join(' ');
  return textChildren(el.parentElement ?? el).some((sibling) => {
    if (sibling === el || sibling.tagName !== el.tagName || !isShown(sibling)) return false;
    const own = classesOf(sibling);
    const open = own.some((name) => OPEN_PANEL.test(name));
    return (named || open) && own.filter((name) => !OPEN_PANEL.test(name)).sort().join(' ') === sameClasses;
  });
}

/** The longest text node under `el`, whitespace collapsed: a run that reads the same in textContent and innerText. */
export function longestLine(el: Element): string {
  let longest = '';
  const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement?.matches(NOT_TEXT)) continue;
    const text = normalText(node);
    if (text.length > longest.length) longest = text;
  }
  return longest;
}

/** The text the page shows (innerText leaves out what is hidden), read once when first asked for. */
export function lazyVisibleText(body: HTMLElement): () => string {
  let text: string | undefined;
  return () => (text ??= (body.innerText ?? '').replace(/\s+/g, ' '));
}

/**
 * Whether a utility class hides the element at every screen size. Read from the markup on
 * both engines: in Chromium too, as the style sheet that says so may not have loaded
 * (blocked, failed, a copy of the page read offline), and then a shop's bar of shipping
 * notices for every country shows and outweighs its products. Unless a script showed the
 * element: jQuery's show() sets an inline display and leaves the class in place.
 */
export function hiddenByClass(el: Element): boolean {
  const classes = classesOf(el);
  if (!classes.some((name) => HIDING_CLASSES.test(name)) || classes.some((name) => SHOWING_CLASSES.test(name))) return false;
  const display = /(?:^|;)\s*display\s*:\s*([a-z-]+)/i.exec(el.getAttribute('style') || '')?.[1];
  return display === undefined || display.toLowerCase() === 'none';
}

/** Shown by its classes and its style (in the Node DOM, by its own markup alone: see nodeDom.ts). */
export const isShown = (el: Element) => !hiddenByClass(el) && el.checkVisibility({ visibilityProperty: true });

/** The ids of the panels that a disclosure's toggle opens and closes (aria-expanded and aria-controls). */
export function disclosedIds(doc: Document): Set<string> {
  const ids = new Set<string>();
  for (const toggle of Array.from(doc.querySelectorAll('[aria-expanded][aria-controls]'))) {
    for (const id of (toggle.getAttribute('aria-controls') || '').split(/\s+/)) if (id) ids.add(id);
  }
  return ids;
}

/** The page's one main region, not hidden by its markup (an application's other views are `<main hidden>`). */
export const isSoleMain = (el: Element) =>
  el.matches('main, [role="main"]') && !el.hasAttribute('hidden') && el.ownerDocument.querySelectorAll('main, [role="main"]').length === 1;

export function markHidden(doc: Document): () => void {
  const marked: Element[] = [];
  const blocks: Element[] = [];
  if (!doc.body) return () => undefined;
  const total = readableLength(doc.body);
  const visibleText = lazyVisibleText(doc.body);
  const disclosed = disclosedIds(doc);
  // The blocks hidden around the page's title that are shown all the same (see hiddenPageTitle); in
  // them, an element is hidden by its own style alone.
  const title = hiddenPageTitle(doc);
  const revealed: Element[] = [];
  const inRevealed = (el: Element) => revealed.some((block) => block.contains(el));
  const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_ELEMENT, {
    acceptNode(node) {
      const el = node as HTMLElement;
      // Closed <details> and inactive tabs hide content the reader opens with a click: it is content.
      if (el.tagName === 'DETAILS' || el.getAttribute('role') === 'tabpanel') return NodeFilter.FILTER_REJECT;
      // A part of a page React streamed, hidden until its scripts move it into place: inPage.ts does that.
      if (el.matches('div[hidden][id^="S:"]')) return NodeFilter.FILTER_REJECT;
      const cloaked = (el.matches(CLOAKED) && !(el.matches(TOGGLED) && isPanel(el))) || isIconLigature(el);
      const shown = !cloaked && (inRevealed(el) ? !hiddenByClass(el) && displayOf(el) !== 'none' : isShown(el));
      if (!shown && holds(el, title) && readableLength(el) > visibleText().length) {
        revealed.push(el);
        return NodeFilter.FILTER_ACCEPT;
      }
      if (!cloaked && !shown && isClosedTab(el)) return NodeFilter.FILTER_REJECT;
      if (!cloaked && !shown) {
        const display = displayOf(el);
        // A `display: contents` wrapper has no box of its own, so checkVisibility() says false; its children show.
        if (display === 'contents') return NodeFilter.FILTER_SKIP;
        // Collapsed is display: none; a carousel hides its other slides with visibility instead. A panel
        // its toggle says it opens (WAI-ARIA's accordion: aria-expanded, aria-controls) is collapsed however hidden.
        if ((display === 'none' || disclosed.has(el.id)) && isCollapsedPanel(el, visibleText)) return NodeFilter.FILTER_REJECT;
      }
      if (!shown) {
        // A page hidden whole until its scripts reveal it (anti-flicker, preloaders) is still the
        // page; a hidden mobile menu can hold a third of the text, never half of it. So is the
        // page's one <main> hidden by its styles until then, whatever its share beside a mega menu.
        if (readableLength(el) < total / 2 && !isSoleMain(el)) marked.push(el);
        return NodeFilter.FILTER_REJECT;
      }
      if (INLINE_TAGS.test(el.tagName) && showsAsBlock(el)) blocks.push(el);
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  while (walker.nextNode());
  for (const el of marked) el.setAttribute(HIDDEN, '');
  for (const el of blocks) el.setAttribute(BLOCK, '');
  return () => {
    for (const el of marked) el.removeAttribute(HIDDEN);
    for (const el of blocks) el.removeAttribute(BLOCK);
  };
}

/**
 * The page's title heading when the page hides it and all that goes with it until its scripts run (a
 * shop's product page whose product block is display:none, read without scripts or before they ran):
 * no h1 shows, and one the document's title names is hidden. The hidden block around it is the page
 * when it holds more text than the page shows. Measured on WCXB's dev pages: one product page
 * (0.65 -> 0.77), which came back as its JSON-LD description alone, and no other; without the share of the text,
 * an article lost 0.28 to its "Republish" dialog, which holds a copy of the article under an h1.
 */
export function hiddenPageTitle(doc: Document): Element | null {
  const h1s = Array.from(doc.body.querySelectorAll('h1'));
  const shows = (h1: Element) => [h1, ...ancestors(h1, doc.body)].every(isShown);
  if (h1s.length === 0 || h1s.some(shows)) return null;
  return h1s.find((h1) => namesPage(h1, doc)) ?? null;
}

/** Shown as a block of its own: not floated, as a drop cap is (its display is "block" too, and it begins a word). */
export function showsAsBlock(el: Element): boolean {
  const style = el.ownerDocument.defaultView?.getComputedStyle?.(el);
  return !!style && BLOCK_DISPLAY.test(style.display) && (style.float === 'none' || !style.float) && style.position !== 'absolute';
}

/**
 * An element the page shows as a block though its tag is inline (a card's brand and name in two
 * spans, each on its own line) is set apart by spaces: its words do not run into its neighbour's
 * ("MerrellMoab 3", "$32.67MSRP"), which the Markdown would join, as it knows only the tags.
 */
export function separateBlocks(doc: Document): void {
  for (const el of Array.from(doc.querySelectorAll(`[${BLOCK}]`))) {
    el.removeAttribute(BLOCK);
    el.before(' ');
    el.after(' ');
  }
}

export function removeHidden(root: Element): void {
  for (const el of Array.from(root.querySelectorAll(`[${HIDDEN}]`))) el.remove();
}

/**
 * Readability drops what the markup hides (the hidden attribute, an inline display:none or visibility:hidden).
 * What is still in the region was judged shown, or content one click away (a closed tab, a collapsed panel,
 * a page hidden whole until its scripts run: see markHidden), so the copy it reads shows it. Measured on
 * WCXB's dev pages: +0.31 page-F1 (9 pages gained up to +0.14, 5 lost up to 0.05). Not aria-hidden, which
 * Readability drops too: showing it as well lost 0.08 more (service pages' decorative copies).
 */
export function showHeldBack(root: Element): void {
  for (const el of Array.from(root.querySelectorAll('[hidden], [style]'))) {
    el.removeAttribute('hidden');
    const style = el.getAttribute('style');
    if (style) el.setAttribute('style', style.replace(/(display|visibility)\s*:\s*(none|hidden)\s*(!important)?/gi, ''));
  }
}
