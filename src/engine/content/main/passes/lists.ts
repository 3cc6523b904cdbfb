/**
 * Lists that are the content: a home page's stories, an index's posts, a category's courses, each item a
 * link to the page it names (its title), with or without a teaser. Shaped like a menu (a list of links and
 * little else), such a list went as furniture, and the article's rule for blocks of links drops it: the page kept
 * only its introduction. It is told from a menu and from a list of other articles beside the content by its
 * shape alone, in any language (rules/lists.ts): items whose links are titles, not labels, each to a page of
 * its own; lists that hold a good share of the region, beside no more prose than an introduction.
 */
import { isList, linkedLength, normalText, textChildren, textLength } from '../dom.js';
import type { PageKind } from '../pageKind.js';
import { INTRODUCTION_PROSE, LISTED_ITEMS, LISTED_SHARE, TITLE_COLUMNS, TITLED_SHARE } from '../rules/lists.js';

/** Wide characters (CJK ideographs, kana, Hangul, full-width forms), drawn two columns wide. */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/g;

/** How wide `text` is drawn, in columns: a character each, two for a wide one (a title in Chinese is as wide as one in English). */
export function columns(text: string): number {
  return text.length + (text.match(WIDE)?.length ?? 0);
}

/** The address a link leads to, without its fragment; null for a link within the page (a table of contents) or none. */
function target(a: Element): string | null {
  const href = a.getAttribute('href') || '';
  if (!href || href.startsWith('#') || /^(javascript|mailto|tel):/i.test(href)) return null;
  try {
    const url = new URL(href, a.ownerDocument.baseURI);
    const page = new URL(a.ownerDocument.baseURI);
    if (url.origin === page.origin && url.pathname === page.pathname && url.search === page.search) return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/** The item's title: its longest link that leads to another page, or null. */
function titleOf(item: Element): { text: string; to: string } | null {
  let best: { text: string; to: string } | null = null;
  for (const a of Array.from(item.querySelectorAll('a[href]'))) {
    const to = target(a);
    const text = normalText(a);
    if (to && text && (!best || text.length > best.text.length)) best = { text, to };
  }
  return best;
}

/**
 * The items of `block` when it repeats one shape: a list's items, or children of one tag and class (a grid of
 * cards, a run of <article>s), nearly all of them (TITLED_SHARE); none otherwise.
 */
export function repeatedItems(block: Element): Element[] {
  const children = textChildren(block);
  if (isList(block)) return children.filter((child) => child.tagName === 'LI');
  if (!/^(DIV|SECTION|MAIN|ARTICLE)$/.test(block.tagName) || children.length < LISTED_ITEMS) return [];
  const shape = (el: Element) => `${el.tagName} ${el.getAttribute('class') || ''}`;
  const counts = new Map<string, number>();
  for (const child of children) counts.set(shape(child), (counts.get(shape(child)) ?? 0) + 1);
  const [common, count] = [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  if (count < TITLED_SHARE * children.length || /^(P|H[1-6]|A|SPAN|BR|IMG)\b/.test(common)) return [];
  return children.filter((child) => shape(child) === common);
}

/**
 * Whether `block` lists pages by their titles (repeatedItems): LISTED_ITEMS items or more, nearly all of them
 * (TITLED_SHARE) a link to a page of its own, and the links TITLE_COLUMNS wide on average. Not a tree of lists
 * (a site map, a mega menu), and not links within the page (a table of contents).
 */
export function isListOfTitles(block: Element): boolean {
  const items = repeatedItems(block);
  if (items.length < LISTED_ITEMS || items.some((item) => item.querySelector('ul, ol'))) return false;
  const titles = items.map(titleOf).filter((title) => title !== null);
  if (titles.length < TITLED_SHARE * items.length) return false;
  if (new Set(titles.map((title) => title.to)).size < TITLED_SHARE * items.length) return false;
  const width = titles.reduce((sum, title) => sum + columns(title.text), 0) / titles.length;
  return width >= TITLE_COLUMNS;
}

/**
 * The lists of titles that are `root`'s content (see isListOfTitles): together they hold LISTED_SHARE of its
 * text or more, and the prose outside them (text outside links) is no more than an introduction
 * (INTRODUCTION_PROSE). None on a page with an article's worth of prose: a list of titles there is other
 * articles. Outermost lists only.
 */
export function contentLists(root: Element): Element[] {
  const lists: Element[] = [];
  for (const block of Array.from(root.querySelectorAll('ul, ol, div, section, main, article'))) {
    if (!lists.some((list) => list.contains(block)) && isListOfTitles(block)) lists.push(block);
  }
  if (lists.length === 0) return [];
  const listed = lists.reduce((sum, list) => sum + textLength(list), 0);
  const total = textLength(root);
  if (listed < LISTED_SHARE * total) return [];
  const proseOutside = total - linkedLength(root) - lists.reduce((sum, list) => sum + textLength(list) - linkedLength(list), 0);
  return proseOutside <= INTRODUCTION_PROSE ? lists : [];
}

/**
 * Whether a list of titles may be the content of a page that says it is `says`: only on a page that says
 * nothing of itself. Not on a thread, whose posts are its content, nor on one product's page, where a grid of
 * titles is other products; nor on a page that says it is an article: on the 181 article pages, two short
 * stories took in lists of other stories (0.9765 -> 0.9681 F1).
 */
export const listsMayBeContent = (says: PageKind) => says === 'nothing';
