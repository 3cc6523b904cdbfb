/**
 * Furniture: navigation, headers, footers, sidebars, banners, menus, link clouds, tickers, forms and
 * boilerplate lines, by tag, role, name and shape, unless a block holds a good share of the page's
 * text or its title.
 */
import { classesOf, isList, linkedLength, nameWords, normalText, paragraphProse, proseLength, textChildren, textLength, words } from '../dom.js';
import { holdsGrid, inGridCard } from './grids.js';
import { bodyParagraphs, edgeOf, type TakenFacts } from './stamps.js';
import { contentLists } from './lists.js';
import { removeSectionsHeaded } from './sections.js';
import { removeHidden } from './visibility.js';
import { ALWAYS_FURNITURE_NAMES, CAROUSEL_CONTROLS, DESCRIPTION_NAMES, EMBEDDED_POST, FURNITURE_NAMES, FURNITURE_TAGS, GRID_CAN_CARRY_NAMES, PAGE_FOOTER_WORD, PAGE_LAYOUT_WORD, PROSE_CAN_CARRY_NAMES, SCREEN_READER_ONLY } from '../rules/names.js';
import { ENGLISH_PHRASES, type PagePhrases } from '../rules/languages.js';
import { DATE_LINE, ELSEWHERE_LABEL, WHEN_LINE } from '../rules/phrases.js';
import { LABEL, PROSE_BLOCK, PROSE_LINKED_PART, SCREEN_READER_LABEL } from '../rules/thresholds.js';
import { holds, titleHeading } from '../titles.js';

/**
 * Prose, not links: 300 characters outside links, and links a fifth of the text at
 * most. Never inside a <nav>: a mega menu's columns of unlinked labels would pass.
 */
export const isProse = (el: Element) => !el.closest('nav, [role="navigation"]') && proseLength(el) >= PROSE_BLOCK && linkedLength(el) <= textLength(el) / PROSE_LINKED_PART;

export function isNamedPageFooter(el: Element): boolean {
  if (el.parentElement?.closest('article')) return false;
  // The id attribute, not el.id: a form's el.id is its input named "id", when it has one.
  return [...classesOf(el), el.getAttribute('id') || ''].some((name) => {
    const parts = nameWords(name);
    return parts.some((part) => PAGE_FOOTER_WORD.test(part)) && parts.every((part) => PAGE_FOOTER_WORD.test(part) || PAGE_LAYOUT_WORD.test(part));
  });
}

/**
 * Removes page furniture from `root`. An element holding a third of the text and of the
 * prose, or the page's h1, stays, whatever its name says: a wrapper called
 * "content-sidebar-wrap" is not a sidebar, and undoing such a removal is cheaper than
 * trusting names. A third of the text alone is not enough: a blog's archive of every
 * month, or its recent posts with their tags, is links (WCXB's dev pages +1.5 page-F1).
 * `phrases` are the rules of the page's language (rules/languages.ts): English's unless told. With
 * `dateLines`, a line that is only a date goes too (isDateLine): not on a thread, where it is a post's date.
 * With `lists`, lists of titles that are the region's content (lists.ts, contentLists) stay, however much they look like menus.
 * Returns what the first date line it removed before the body's first paragraph said (publishedTime).
 */
export function removeFurniture(root: Element, phrases: PagePhrases = ENGLISH_PHRASES, { dateLines = false, lists = false } = {}): TakenFacts {
  const taken: TakenFacts = {};
  removeHidden(root);
  removeScreenReaderText(root);
  // Measured before banners go: on a thin page a banner is a fair share of the text.
  const total = textLength(root);
  removeBanners(root);
  // Before the boilerplate lines below, which would take such a heading ("You may also like") alone.
  removeSectionsHeaded(root, phrases.elsewhere);
  // Readers' comments opened by a heading in the page's language ("Kommentare (12)"); English's are known by their names (threads.ts).
  if (phrases.comments) removeSectionsHeaded(root, phrases.comments);
  const title = titleHeading(root);
  const prose = proseLength(root);
  const guarded = (el: Element) => {
    if (holds(el, title)) return true;
    // proseLength(el), its text measured once.
    const length = textLength(el);
    return length >= total / 3 && length - linkedLength(el) >= prose / 3;
  };
  for (const el of Array.from(root.querySelectorAll(FURNITURE_TAGS))) {
    if (root.contains(el) && !holds(el, title) && (isPageLandmark(el) || !guarded(el))) el.remove();
  }
  // Read once the page's header, navigation and footer are gone: shares of the region's text decide.
  const listed = lists ? contentLists(root) : [];
  // The body's first paragraph, read before the lines below go: a date line above it is the story's date (the record's publishedTime).
  let paragraphs: Element[] | undefined;
  const takeDate = (el: Element) => {
    paragraphs = (paragraphs ?? bodyParagraphs(root)).filter((p) => root.contains(p));
    if (taken.publishedTime === undefined && edgeOf(el, paragraphs) === 'start') taken.publishedTime = normalText(el);
  };
  for (const el of Array.from(root.querySelectorAll('[class], [id]'))) {
    if (!root.contains(el) || guarded(el) || el.querySelector(EMBEDDED_POST) || listed.some((list) => list !== el && el.contains(list))) continue;
    const names = furnitureWords(el);
    if (names.length > 0 && !carriesContent(el, names) && !inGridCard(el) && !namesDetails(words(el))) el.remove();
    else if (isNamedPageFooter(el)) el.remove();
  }
  // What the page asks search engines to leave out of their snippets (Google's data-nosnippet): an
  // author's bio, a date line, a teaser box. Guarded, as a page may mark a whole paywalled story so.
  for (const el of Array.from(root.querySelectorAll('[data-nosnippet]'))) if (root.contains(el) && !guarded(el)) el.remove();
  for (const el of Array.from(root.querySelectorAll('a[role="button"], a[class]'))) if (isCallToAction(el)) el.remove();
  for (const el of Array.from(root.querySelectorAll('ul, ol, form, fieldset, p, div, section, span, a, button, label, h2, h3, h4, h5, h6'))) {
    if (!root.contains(el) || holds(el, title) || listed.includes(el)) continue;
    // A block of short links goes whatever its share of the text, unless it holds a share of the prose;
    // a ticker goes whatever its share.
    const links = (isMenu(el) || isLinkCloud(el)) && proseLength(el) < prose / 3;
    if (links) removeWithLabel(el, { anyLabel: false });
    else if (isMarquee(el) || (!guarded(el) && (isControlPanel(el) || isFieldLabel(el) || isBoilerplate(el, phrases)))) el.remove();
    else if (dateLines && !guarded(el) && isDateLine(el)) {
      takeDate(el);
      el.remove();
    }
  }
  return taken;
}

/**
 * The words of the element's class and id that name it furniture (FURNITURE_NAMES). Not "nav"
 * before "btns", "arrows" or "dots": a carousel names its controls so, and a row of products can
 * carry the name as a modifier ("category-carousel dark-nav-btns").
 */
export function furnitureWords(el: Element): string[] {
  return [...classesOf(el), el.getAttribute('id') || ''].flatMap(furnitureWordsIn);
}

/** The words of one class or id that name it furniture (see furnitureWords). */
export function furnitureWordsIn(name: string): string[] {
  const parts = nameWords(name);
  return parts.filter((part, i) => FURNITURE_NAMES.test(part) && !(/^(nav|navigation)$/i.test(part) && CAROUSEL_CONTROLS.test(parts[i + 1] ?? '')));
}

/** Whether a block named like furniture (`names`) carries content all the same: prose, or a grid of products. */
export function carriesContent(el: Element, names: readonly string[]): boolean {
  const carry = (pattern: RegExp) => names.every((word) => pattern.test(word));
  return (carry(PROSE_CAN_CARRY_NAMES) && isProse(el)) || (carry(GRID_CAN_CARRY_NAMES) && holdsGrid(el));
}

/**
 * A link styled as a button ("Start free trial", "Choose Growth"): it leads elsewhere and
 * tells the reader nothing. Its label also weighs as a link in Readability's judgement of
 * the block around it, which then drops a short block (a pricing card) as a link list.
 */
export function isCallToAction(el: Element): boolean {
  if (textLength(el) > 40) return false;
  return el.getAttribute('role') === 'button' || words(el).some((word) => /^(btn|button|cta)$/i.test(word));
}

/**
 * The page's own header or footer (HTML's banner and contentinfo: not inside an
 * article, aside, main, nav or section). It is furniture even when it holds most of
 * the page's text: a shop that builds its product with scripts leaves only its footer.
 */
export function isPageLandmark(el: Element): boolean {
  if (!el.matches('footer, header, [role="contentinfo"], [role="banner"]')) return false;
  return el.matches('[role]') || !el.parentElement?.closest('article, aside, main, nav, section, [role="main"], [role="article"]');
}

export function removeScreenReaderText(root: Element): void {
  for (const el of Array.from(root.querySelectorAll(SCREEN_READER_ONLY))) {
    if (textLength(el) < SCREEN_READER_LABEL && !el.matches('h1') && !el.querySelector('h1')) el.remove();
  }
}

/** Removes every element of `root` whose class and id words `match`, except one holding the page's title heading. */
export function removeNamed(root: Element, match: (names: readonly string[], el: Element) => boolean): void {
  const title = titleHeading(root);
  for (const el of Array.from(root.querySelectorAll('[class], [id]'))) {
    if (root.contains(el) && !holds(el, title) && match(words(el), el)) el.remove();
  }
}

/** What is never content, whatever share of the page it holds: cookie banners, popups, skip links. */
export function removeBanners(root: Element): void {
  for (const a of Array.from(root.querySelectorAll('a[href^="#"]'))) if (words(a).some((word) => /^skip/i.test(word))) a.remove();
  const title = titleHeading(root);
  // A modal dialog (terms of service, a size guide), shown when the page's scripts open it.
  for (const el of Array.from(root.querySelectorAll('[aria-modal="true"]'))) if (root.contains(el) && !holds(el, title)) el.remove();
  // A wrapper named for a part of it ("newsletter-wrapper" around a whole post) holds most of the page and its prose: no banner.
  const total = textLength(root);
  const isWrapper = (el: Element) => textLength(el) >= total / 2 && paragraphProse(el, () => true) >= 1000;
  removeNamed(root, (names, el) => names.some((word) => ALWAYS_FURNITURE_NAMES.test(word)) && !isWrapper(el) && !namesDetails(names));
}

/**
 * Whether a block's name says it is a product's details shown in a modal or a popup ("pipf-product-details-modal"):
 * those are one click away, as a tab's panel is, and content. Not when the name says more furniture than that
 * ("sidebar-details"). Measured on WCXB's dev pages: +0.29 page-F1 (IKEA's materials, care and measurements
 * +0.30, one product -0.005). Without the second condition, +0.24: two articles lost a block named "…-details".
 */
export function namesDetails(names: readonly string[]): boolean {
  if (!names.some((word) => DESCRIPTION_NAMES.test(word))) return false;
  return names.filter((word) => ALWAYS_FURNITURE_NAMES.test(word) || FURNITURE_NAMES.test(word)).every((word) => /^(modal|popup)$/i.test(word));
}

/** A list of short links and nothing else: a menu, a tag cloud, a category list. */
export function isMenu(el: Element): boolean {
  if (!isList(el)) return false;
  const items = Array.from(el.children).filter((li) => li.tagName === 'LI');
  if (items.length < 3) return false;
  const total = textLength(el);
  return linkedLength(el) >= 0.9 * total && total / items.length < 40;
}

/** Many short links run together outside a list, and nothing else: a tag cloud, a row of categories. */
export function isLinkCloud(el: Element): boolean {
  if (!/^(P|DIV|SECTION|SPAN)$/.test(el.tagName) || el.querySelector('h1, h2, h3, h4, h5, h6, p, li, img')) return false;
  const links = el.querySelectorAll('a').length;
  const total = textLength(el);
  // The spaces, commas and dots between the links count as text: 80% is all links.
  return links >= 8 && linkedLength(el) >= 0.8 * total && total / links < 25;
}

/**
 * A ticker: one short phrase said over and over by four or more children ("Book now * Book
 * now * ..."), which a script scrolls across the screen, or a swatch's label on each colour.
 * Never a table's row: a comparison repeats "Yes" by design.
 */
export function isMarquee(el: Element): boolean {
  const children = textChildren(el);
  if (children.length < 4 || el.closest('table')) return false;
  const phrase = normalText(children[0]!);
  if (phrase.length === 0 || phrase.length > 40 || !children.every((child) => normalText(child) === phrase)) return false;
  // Nothing else in the element: its text is the phrase, said once per child.
  return textLength(el) <= children.length * (phrase.length + 1);
}

/** Filters, sorting and reply boxes: a form made of choices or a text area. */
export function isControlPanel(el: Element): boolean {
  if (el.tagName !== 'FORM' && el.tagName !== 'FIELDSET') return false;
  return el.querySelector('textarea') !== null || el.querySelectorAll('input[type="checkbox"], input[type="radio"]').length >= 5;
}

/**
 * The label of a form's field ("First Name*", "Email address", "Password"), or a label that
 * names no control at all: it names a box that writes nothing, and reads as a stray line
 * without it. Not the label of a choice (a radio button's, a checkbox's), which is the
 * choice itself: a colour, a plan, an answer.
 */
export function isFieldLabel(el: Element): boolean {
  if (el.tagName !== 'LABEL') return false;
  const id = el.getAttribute('for');
  const control = el.querySelector('input, select, textarea') ?? (id ? el.ownerDocument.getElementById(id) : null);
  return !control?.matches('input[type="radio"], input[type="checkbox"]');
}

export function isBoilerplate(el: Element, phrases: PagePhrases = ENGLISH_PHRASES): boolean {
  // A block that holds an image is more than its label: a card's picture with "View details" laid over it.
  if (el.querySelector('img, picture, video')) return false;
  // Its length first, counted without building the text: most blocks are too long to be a line of boilerplate.
  const length = textLength(el);
  if (length === 0 || length >= 120) return false;
  const text = normalText(el);
  return phrases.boilerplate.test(text) || (length <= 50 && WHEN_LINE.test(text));
}

/**
 * A paragraph or a line that is only a date in digits (DATE_LINE), with no language to read: a story's date
 * stamp. Not in a table, a list or a heading, nor around one, where dates are what the page lists (a changelog's
 * releases, a timetable), and not a block that holds an image (a logo above the date).
 */
export function isDateLine(el: Element): boolean {
  const listed = 'table, li, dl, h1, h2, h3, h4, h5, h6';
  if (!/^(P|DIV|SPAN)$/.test(el.tagName) || el.closest(listed) || el.querySelector(`${listed}, img, picture, video`)) return false;
  // Its length first: most blocks are too long to be a date line, and their text need not be built.
  return textLength(el) <= 30 && DATE_LINE.test(normalText(el));
}

/**
 * Removes a block of links and the short label right before it that sends the reader elsewhere
 * ("Related:", "See also:"); with `anyLabel`, any short heading or label that is not a sentence
 * ("More from the garden"). A menu's plain label stays: it is as often a heading the page keeps.
 */
export function removeWithLabel(el: Element, { anyLabel }: { anyLabel: boolean }): void {
  const label = el.previousElementSibling;
  const text = label ? normalText(label) : '';
  const isLabel = ELSEWHERE_LABEL.test(text) || (anyLabel && !/[.!?:"”]$/.test(text));
  if (label && text.length < LABEL && label.querySelectorAll('a, img').length === 0 && isLabel) label.remove();
  el.remove();
}
