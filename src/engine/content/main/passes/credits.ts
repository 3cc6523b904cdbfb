/**
 * Credits: the line under a picture that names its photographer or agency, and the rights notice that
 * opens with ©, are no part of the text a reader reads (WCXB's and fundus' truths leave them out).
 * Told by shape, in any language (rules/credits.ts): a line opening with ©; next to a picture, a
 * short line of slash-joined names or one labelled as a credit. A caption's own sentence stays.
 */
import { normalText, textLength } from '../dom.js';
import { COPYRIGHT_OPENING, CREDIT_LABEL, CREDIT_MAX_CHARS, CREDIT_MAX_WORDS, SLASHED_NAMES } from '../rules/credits.js';

/** Elements a credit line is written in: a line of its own, not a block of many. */
const LINES = 'p, span, small, cite, div, figcaption, em, i';
const BLOCK_INSIDE = 'p, div, ul, ol, table, h1, h2, h3, h4, h5, h6, blockquote, figure, section, article';

/** Whether `el` stands by a picture: inside a figure, or in a small container that holds one. */
function byPicture(el: Element): boolean {
  if (el.closest('figure, figcaption')) return true;
  const parent = el.parentElement;
  return parent !== null && parent.querySelector('img, picture, video') !== null && textLength(parent) <= 400;
}

/**
 * Whether the text of a line is a credit (see the file's header); `nearPicture` allows the shapes that need
 * one: only on a page that says it is an article, as a shop's cards are pictures with slashed lines beside
 * them ("Red/Pink M", "HSA / FSA eligible": WCXB dev's collection pages 4207 and 4351 lost them, -0.06 each).
 */
export function isCreditLine(text: string, nearPicture: boolean): boolean {
  if (text.length === 0 || text.length > CREDIT_MAX_CHARS) return false;
  if (COPYRIGHT_OPENING.test(text)) return true;
  if (!nearPicture) return false;
  if (CREDIT_LABEL.test(text)) return true;
  return SLASHED_NAMES.test(text) && text.split(/\s+/).length <= CREDIT_MAX_WORDS;
}

/** Removes the credit lines of `root`; `article`: the page says it is one, and a line by a picture may be a credit. */
export function removeCredits(root: Element, { article = true } = {}): void {
  for (const el of Array.from(root.querySelectorAll(LINES))) {
    if (!root.contains(el) || el.querySelector(BLOCK_INSIDE)) continue;
    // Measured before its text is built: most lines are no credit by their length alone (isCreditLine).
    const length = textLength(el);
    if (length === 0 || length > CREDIT_MAX_CHARS) continue;
    const text = normalText(el);
    const near = article && byPicture(el);
    // Away from a picture, a credit is a line of its own, not a part of a sentence ("… © 2024 Acme …").
    if (!near && el.parentElement && /^(SPAN|SMALL|CITE|EM|I)$/.test(el.tagName) && textLength(el.parentElement) !== length) continue;
    if (isCreditLine(text, near)) el.remove();
  }
}
