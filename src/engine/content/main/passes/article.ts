/**
 * The article candidate: Readability's pick inside the region, cleaned of captions, bylines and link
 * blocks, and the choice between it and the region.
 */
import { Readability } from '@mozilla/readability';
import { isList, linkedLength, normalText, opening, proseLength, remove, textLength } from '../dom.js';
import { ANCHOR, LEVEL } from '../marks.js';
import { type PageKind } from '../pageKind.js';
import { removeWithLabel } from './furniture.js';
import { holdsGrid, removeCardGrids } from './grids.js';
import { contentLists, listsMayBeContent } from './lists.js';
import { keepsProductDetails, withPrice } from './products.js';
import { series } from './threads.js';
import { showHeldBack } from './visibility.js';
import { EMBEDDED_POST, LAYOUT_NAME } from '../rules/names.js';
import { ELSEWHERE_LABEL, SHOWN_ADDRESS, TEASER_END } from '../rules/phrases.js';
import {
  ARCHIVE_ENTRIES,
  ARCHIVE_INTRODUCTION,
  ARTICLE_PICK_PROSE,
  DATA_TABLE_ROWS,
  LABEL,
  LINK_BLOCK_DENSITY,
  LIST_PAGE_SHARE,
  NEWS_ITEM_PARAGRAPHS_OUTSIDE,
  NEWS_ITEM_PICK_PROSE,
  PARAGRAPH_PROSE,
  PICK_PROSE,
  PICK_TEXT,
  PRODUCT_PICK_PROSE,
  PROSE_AROUND_LINKS,
  SENTENCE,
  UNSAID_PICK_PROSE,
  UNSAID_PICK_TEXT,
} from '../rules/thresholds.js';

/** The text of `el` in lists: all of it for a list, else that of the lists it holds as children. */
export function listText(el: Element): number {
  if (isList(el)) return textLength(el);
  return Array.from(el.children).reduce((sum, child) => sum + (isList(child) ? textLength(child) : 0), 0);
}

/** What Readability keeps around an article that is not its text. */
export function cleanArticle(root: Element, says: PageKind): void {
  remove(root, 'figcaption');
  for (const el of Array.from(root.querySelectorAll('[class], [id]'))) {
    const names = `${el.getAttribute('class') || ''} ${el.getAttribute('id') || ''}`;
    if (/(^|[\s_-])(caption|credit|byline)s?($|[\s_-])/i.test(names) && root.contains(el)) el.remove();
  }
  // A link that shows its own address ("Source: https://...", a booking page written out) is
  // text the author wrote for the reader to see, not a menu's or a teaser's link.
  const linkDensity = (el: Element) => {
    const total = textLength(el);
    return total === 0 ? 0 : linkedLength(el, (text) => !SHOWN_ADDRESS.test(text)) / total;
  };
  // Lists and blocks made of links are related-article lists, tags and share bars.
  // Headings are left alone: a heading made of a link is an entry's title on an index page.
  const linkBlocks = new Set<Element>();
  const inLinkBlock = (el: Element) => {
    for (let up = el.parentElement; up && up !== root; up = up.parentElement) if (linkBlocks.has(up)) return true;
    return false;
  };
  // A paragraph that is one link is a "Read more" line in an article, but an entry elsewhere
  // (a round-up's project names, an index's items). Measured: WCXB's dev pages +0.6 page-F1
  // (listings +0.38). Keeping such paragraphs on articles too cost the 181 article pages 0.55.
  const blocks = says === 'article' ? 'ul, ol, p, div, section' : 'ul, ol, div, section';
  // Lists of titles that are the content (an index's posts, lists.ts) are what the page lists.
  const contentListed = listsMayBeContent(says) ? contentLists(root) : [];
  for (const el of Array.from(root.querySelectorAll(blocks))) {
    if (inLinkBlock(el) || contentListed.some((list) => list.contains(el))) continue;
    if (el.querySelector('pre, table, img, picture, video')) continue;
    const density = linkDensity(el);
    // A block with a good deal of text outside its links is prose that happens to link a lot. In one
    // paragraph, a sentence around its links will do ("Today's deals include <a>, <a> and <a>. All
    // that and more below"): a "Read more:" line has a word or two. Measured in Node: 45 characters
    // did best on the 181 pages (+0.09 page-F1; 60: +0.06, 30: +0.04), WCXB's dev pages +0.10.
    if (density <= LINK_BLOCK_DENSITY || (1 - density) * textLength(el) > (el.tagName === 'P' ? SENTENCE : PROSE_AROUND_LINKS)) continue;
    if (introduced(el)) continue;
    linkBlocks.add(el);
  }
  // When their lists are most of the article, the links are what the page lists ("List
  // of programming languages", an A-Z index): the content, not what surrounds it. Lists
  // only: a run of cards made of links (a launch site's home page) stays a link block.
  let listed = 0;
  for (const el of linkBlocks) listed += listText(el);
  if (listed > LIST_PAGE_SHARE * textLength(root)) return;
  for (const el of linkBlocks) removeWithLabel(el, { anyLabel: true });
}

/**
 * Whether the author introduces the block with a sentence ending in a colon ("Top expert
 * recommendations:", "For more information, see:", "Click to jump to the courses:"): a list
 * of links that is part of what the text says. A short "Read more:" or "Related:" label is not.
 * Measured in Node, with such a label now going with the block it heads: WCXB's dev pages +0.41
 * page-F1 (a docs page +0.10, an electricians' tool guide +0.10), the 181 pages +0.02; without
 * the exception for such labels, the 181 pages lost 0.03.
 */
export function introduced(el: Element): boolean {
  const intro = el.previousElementSibling ? normalText(el.previousElementSibling) : '';
  return intro.endsWith(':') && (intro.length >= LABEL || !ELSEWHERE_LABEL.test(intro));
}

/**
 * Readability judges a heading by its names: it drops one named "header" before it scores,
 * and an h1 or h2 whose names say "scroll" or "media" after. On a heading those names say
 * where it sits in its block (a page builder's "et_pb_module_header", Tailwind's
 * "scroll-mt-20"), not that it is the page's header, which the furniture rules have judged
 * already; and a heading's id is its anchor, a slug of its own text ("related-work"). The copy
 * Readability reads loses them, the id kept aside for `restoreAnchors`. Names that do say
 * something stay ("dateline", "hidden-xs").
 * Measured in Node: WCXB dev +0.52 page-F1 (38 pages changed, none lost more than 0.009: a
 * service page's sections +0.07, four docs pages +0.02 to +0.06), the 181 pages unchanged.
 */
export function unnameHeadings(root: Element): void {
  for (const heading of Array.from(root.querySelectorAll('h1, h2, h3, h4, h5, h6'))) {
    const names = heading.getAttribute('class');
    if (names && LAYOUT_NAME.test(names)) heading.setAttribute('class', names.split(/\s+/).filter((name) => !LAYOUT_NAME.test(name)).join(' '));
    if (!heading.id) continue;
    heading.setAttribute(ANCHOR, heading.id);
    heading.removeAttribute('id');
  }
}

/** Gives the headings of Readability's article back the ids `unnameHeadings` took: links to them still work. */
export function restoreAnchors(root: Element): void {
  for (const heading of Array.from(root.querySelectorAll(`[${ANCHOR}]`))) {
    heading.id = heading.getAttribute(ANCHOR) ?? '';
    heading.removeAttribute(ANCHOR);
  }
}

/**
 * A copy of `doc` whose body is empty (its head, for the title Readability compares headings with, and the
 * body's own attributes kept): the page's body is not copied only to be thrown away. Its children are set
 * aside while the document is cloned, then put back as they were.
 */
function withoutBody(doc: Document): Document {
  const body = doc.body ?? doc.documentElement;
  const children = Array.from(body.childNodes);
  for (const child of children) body.removeChild(child);
  try {
    return doc.cloneNode(true) as Document;
  } finally {
    body.append(...children);
  }
}

/** Readability's article inside `content`, in an inert document, its h1 headings kept as h1. */
export function article(doc: Document, content: Element, says: PageKind): Element | null {
  const copy = withoutBody(doc);
  const body = copy.body ?? copy.documentElement;
  body.appendChild(copy.importNode(content, true));
  // Readability turns every h1 into an h2; the mark lets us undo that.
  for (const h1 of Array.from(body.querySelectorAll('h1'))) h1.setAttribute(LEVEL, '1');
  unnameHeadings(body);
  showHeldBack(body);
  // Readability drops the divs around a quoted post (named "social", or made of links and
  // little prose): the post stands alone in the copy, where it judges only divs.
  for (const post of Array.from(body.querySelectorAll(EMBEDDED_POST))) {
    const text = normalText(post);
    for (let wrapper: Element | null = post.parentElement; wrapper && wrapper !== body && wrapper.tagName === 'DIV' && normalText(wrapper) === text; ) {
      const above: Element | null = wrapper.parentElement;
      wrapper.replaceWith(...Array.from(wrapper.childNodes));
      wrapper = above;
    }
  }
  // Readability's own threshold (500 characters): below it, it tries again keeping the blocks
  // it first judged unlikely by their names (a "testimonial-social" wrapper around the reviews a
  // service page shows). At 200, a short introduction passed alone. Measured on WCXB's dev pages:
  // +0.76 page-F1 (8 pages gained, 6 lost less), the 181 pages unchanged but one (-0.04).
  const parsed = new Readability(copy, { keepClasses: true }).parse();
  if (!parsed?.content || parsed.textContent!.trim().length === 0) return null;
  // An inert document: nothing in the article starts loading again.
  const holder = doc.implementation.createHTMLDocument('').createElement('div');
  holder.innerHTML = parsed.content;
  for (const heading of Array.from(holder.querySelectorAll(`[${LEVEL}="1"]`))) {
    const h1 = holder.ownerDocument.createElement('h1');
    while (heading.firstChild) h1.appendChild(heading.firstChild);
    heading.replaceWith(h1);
  }
  cleanArticle(holder, says);
  // Cards of other stories can pass Readability as prose when an empty link laid over each card
  // takes the click. Articles only: on a page that says nothing, such a grid is as often a
  // category's products (measured: WCXB's collections lost 0.4 page-F1).
  if (says === 'article') removeCardGrids(holder);
  restoreAnchors(holder);
  return holder;
}

/** Readability's pick when it is the content (see picksArticle), else the region; `seen` is told the pick (--explain). */
export function articleOrRegion(doc: Document, content: Element, says: PageKind, seen?: (picked: Element | null) => void): Element {
  const picked = article(doc, content, says);
  seen?.(picked);
  if (!picked || !picksArticle(picked, content, says)) return content;
  if (says === 'product') return withPrice(withTitle(picked, content), content);
  return says === 'article' ? picked : withTitle(picked, content);
}

/**
 * Whether Readability's pick is the content rather than the region. It is when it
 * holds nine tenths of the region's prose (links are menus and teasers more often
 * than content). On a page that says it is an article, three fifths will do, and a
 * short news item on a busy page (a quarter of the prose) wins as long as the rest
 * of the region is not itself made of many paragraphs (a thread, a listing).
 * Measured by scoring both candidates of every page of WCXB's dev split and of the
 * 181 benchmark pages: below three fifths the region did better on articles. A page
 * that says nothing of itself is often an article too: there three quarters of the
 * prose will do when the pick also holds half of the text (see below).
 */
export function picksArticle(picked: Element, content: Element, says: PageKind): boolean {
  const share = proseLength(picked) / Math.max(1, proseLength(content));
  if (says !== 'article') {
    // A category page whose guide outweighs its products' cards: the products are content too. Priced
    // cards only: a grid of other posts is no part of the article beside it. Measured on WCXB's dev
    // pages: +0.11 page-F1; with any grid +0.08, articles beside a grid of teasers losing up to 0.15.
    if (says === 'nothing' && holdsGrid(content, { priced: true }) && !holdsGrid(picked)) return false;
    // Most of the prose, but a small part of the text: the rest is a listing whose items have no paragraphs (a job board).
    const ofText = textLength(picked) / Math.max(1, textLength(content));
    if (share >= PICK_PROSE && ofText >= PICK_TEXT) return true;
    // A product's page whose pick kept every block named for the product's details: what the pick left out
    // is the buy box and the shop around it, and half of the prose will do (see keepsProductDetails).
    if (says === 'product') return share >= PRODUCT_PICK_PROSE && ofText >= PICK_TEXT && keepsProductDetails(picked, content);
    // An article that does not say it is one: three quarters of the prose and half of the text. Measured on
    // WCXB's dev pages, where this pick won 1.7 page-F1 more than it lost (three quarters of the text: 0.8).
    // Not on a thread, where Readability drops the posters' names.
    return says === 'nothing' && share >= UNSAID_PICK_PROSE && ofText >= UNSAID_PICK_TEXT;
  }
  // A list page (Wikipedia's lists) is its tables, whose linked names Readability drops: more text in them than in the pick.
  if (dataTableText(content) - dataTableText(picked) > textLength(picked)) return false;
  if (isArchive(content, picked)) return false;
  return share >= ARTICLE_PICK_PROSE || (share >= NEWS_ITEM_PICK_PROSE && paragraphsOutside(content, picked) <= NEWS_ITEM_PARAGRAPHS_OUTSIDE);
}

/**
 * An archive (a category's posts, each an <article> of one series) whose entries the pick
 * left out: a category page that calls itself an article, Readability picking its introduction.
 */
export function isArchive(content: Element, picked: Element): boolean {
  if (textLength(picked) >= ARCHIVE_INTRODUCTION) return false;
  const articles = Array.from(content.querySelectorAll('article')).filter((el) => !el.parentElement?.closest('article'));
  const entries = series(articles);
  if (entries.length < ARCHIVE_ENTRIES) return false;
  const pickedText = normalText(picked);
  // A post in an <article> of its own, its teasers beside it, is no archive.
  const start = opening(picked);
  if (articles.some((el) => !entries.includes(el) && normalText(el).includes(start))) return false;
  const inPick = entries.filter((el) => pickedText.includes(opening(el))).length;
  return inPick <= 1 && entries.reduce((sum, el) => sum + textLength(el), 0) > textLength(picked);
}

/** The text of the data tables in `root`: outermost tables with a header cell and at least five rows. */
export function dataTableText(root: Element): number {
  const tables = Array.from(root.querySelectorAll('table')).filter((table) => !table.parentElement?.closest('table'));
  return tables.filter((table) => table.querySelector('th') && table.querySelectorAll('tr').length >= DATA_TABLE_ROWS).reduce((sum, table) => sum + textLength(table), 0);
}

/** How many paragraphs of the region (80 characters of prose or more) are not in the pick. */
export function paragraphsOutside(content: Element, picked: Element): number {
  const pickedText = normalText(picked);
  const BLOCKS = 'p, li, dd, td, blockquote, pre, div';
  return Array.from(content.querySelectorAll(BLOCKS)).filter(
    (el) => !el.querySelector(BLOCKS) && proseLength(el) >= PARAGRAPH_PROSE && !isTeaser(el) && !pickedText.includes(opening(el)),
  ).length;
}

/** An excerpt cut short ("…", "[...]", "... Read more"): a teaser of another page, not a paragraph of this one. */
export const isTeaser = (el: Element) => TEASER_END.test(normalText(el));

/**
 * Readability takes the title heading out; an article's title is metadata.title, but
 * a thread, a docs page or an index without its title heading reads as a fragment.
 */
export function withTitle(picked: Element, content: Element): Element {
  const title = content.querySelector('h1');
  const text = title ? normalText(title) : '';
  const has = Array.from(picked.querySelectorAll('h1, h2')).some((h) => normalText(h) === text);
  if (text && !has) {
    const h1 = picked.ownerDocument.createElement('h1');
    h1.textContent = text;
    picked.prepend(h1);
  }
  return picked;
}
