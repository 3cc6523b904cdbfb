/**
 * A heading followed by a list of links to other articles ("Neueste Artikel", "Most Popular", "【関連記事】",
 * "Mehr zum Thema"): other pages, not this one's text. Told in any language by shape: a short heading or label,
 * then a list of titles (passes/lists.ts isListOfTitles), on a page whose body is an article's worth of prose
 * outside the list. Not a list that is the page's content (lists.ts contentLists): the pass is given those to keep.
 */
import { linkedLength, normalText, proseLength, textChildren, textLength } from '../dom.js';
import { HEADED_LIST_BODY, HEADED_LIST_LINKED, HEADING_LABEL } from '../rules/signals.js';
import { isListOfTitles } from './lists.js';

/** A heading, or a short line that labels what follows (no link in it, no sentence's end). */
function isHeading(el: Element): boolean {
  // Lengths are counted without building the text (dom.ts textLength): most blocks asked are too long.
  if (el.matches('h2, h3, h4, h5, h6')) return textLength(el) <= HEADING_LABEL;
  if (!/^(P|DIV|SPAN|STRONG|B)$/.test(el.tagName) || el.querySelector('a, img, p, ul, ol')) return false;
  const length = textLength(el);
  return length > 0 && length <= HEADING_LABEL && !/[.!?]$/.test(normalText(el));
}

/** The list right after `heading`: its next sibling with text, or that sibling's only child with text. */
function listAfter(heading: Element): Element | null {
  let next = heading.nextElementSibling;
  while (next && textLength(next) === 0) next = next.nextElementSibling;
  for (let depth = 0; next && depth < 3; depth++) {
    if (isListOfTitles(next)) return next;
    const children = textChildren(next).filter((child) => textLength(child) > 0);
    next = children.length === 1 ? children[0]! : null;
  }
  return null;
}

/** Removes each heading followed by a list of other articles from `root`; `kept`: the lists that are its content. */
export function removeHeadedLinks(root: Element, kept: readonly Element[] = []): void {
  const body = proseLength(root);
  for (const heading of Array.from(root.querySelectorAll('h2, h3, h4, h5, h6, p, div, span, strong, b'))) {
    if (!root.contains(heading) || !isHeading(heading)) continue;
    const list = listAfter(heading);
    if (!list || kept.some((own) => own === list || own.contains(list) || list.contains(own))) continue;
    // Titles alone, not titles with their teasers or references with a link each: those are as often the page's own.
    if (body - proseLength(list) < HEADED_LIST_BODY || linkedLength(list) < HEADED_LIST_LINKED * textLength(list)) continue;
    // The heading and the list in a wrapper of their own go with it.
    let section: Element = list;
    const parent = heading.parentElement;
    if (parent && parent !== root && parent.contains(list) && textLength(parent) <= textLength(heading) + textLength(list) + 2) section = parent;
    if (section !== parent) heading.remove();
    section.remove();
  }
}
