/**
 * The page's title heading, and whether the document's title names a heading.
 */
import { normalText } from './dom.js';
import { MIN_NAMED_HEADING } from './rules/thresholds.js';

/**
 * The page's title heading: its one h1, or of several the one the document's title
 * names (a terms-of-service dialog or a widget can carry an h1 of its own), else the first.
 */
export function titleHeading(root: Element): Element | null {
  const h1s = Array.from(root.querySelectorAll('h1'));
  if (h1s.length <= 1) return h1s[0] ?? null;
  return h1s.find((h1) => namesPage(h1, root.ownerDocument)) ?? h1s[0]!;
}

export const holds = (el: Element, title: Element | null) => title !== null && el.contains(title);

/** Words only: "Só quem se Ama…" and a title "Só quem se Ama... — Site" compare equal. */
export const wordsOf = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/** Whether the document's title names `heading` (holds its words). */
export function namesPage(heading: Element, doc: Document): boolean {
  const text = wordsOf(normalText(heading));
  return text.length > 0 && wordsOf(doc.title || '').includes(text);
}

/**
 * The heading the document's title names: its h1, or on a front page that puts a featured
 * story's h1 above the page's own story, an h2 or h3 of an article. Null when none is named.
 */
export function namedHeading(root: Element): Element | null {
  const doc = root.ownerDocument;
  const title = titleHeading(root);
  if (title && namesPage(title, doc)) return title;
  return Array.from(root.querySelectorAll('article h2, article h3')).find((h) => wordsOf(normalText(h)).length >= MIN_NAMED_HEADING && namesPage(h, doc)) ?? null;
}
