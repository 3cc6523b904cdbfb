/**
 * A box about the author at the end of an article: the author's name, a role, a photo, a few sentences of
 * biography ("Nicole Opitz · Redakteurin · Seit 2019 bei der taz…", "ABOUT THE AUTHOR · Yasmine Hassan is a
 * producer…"). Told in any language by the name the page gives for its author (its markup or its byline) and
 * by where the box stands: after the body, short, holding no more of the body (rules/signals.ts).
 */
import { normalText, textLength } from '../dom.js';
import { AUTHOR_BOX_AFTER, AUTHOR_BOX_MAX_CHARS, AUTHOR_BOX_MORE } from '../rules/signals.js';
import { bodyParagraphs } from './stamps.js';

const OPENERS = 'p, div, span, a, strong, b, h2, h3, h4, h5, h6, section, aside, address';

/** Removes the box about one of `authors` after the body (see the file's header). */
export function removeAuthorBox(root: Element, declared: readonly string[]): void {
  // A person's name, two words or more: an organisation named as the author ("Beachbody", "Reuters") opens many a line of the body.
  const all = root.textContent || '';
  const authors = declared.filter((name) => /\S\s+\S/.test(name) && all.includes(name));
  if (authors.length === 0) return;
  const paragraphs = bodyParagraphs(root);
  if (paragraphs.length < AUTHOR_BOX_AFTER) return;
  for (const el of Array.from(root.querySelectorAll(OPENERS))) {
    if (!root.contains(el) || el.closest('h1, li, table, blockquote, figure')) continue;
    // Its length first, counted without building the text: most blocks are too long to be the box.
    if (textLength(el) > AUTHOR_BOX_MAX_CHARS) continue;
    const text = normalText(el);
    const author = authors.find((name) => text.startsWith(name));
    if (!author) continue;
    // The box: the largest block around the name that stays short.
    let box = el;
    for (let up = el.parentElement; up && up !== root && textLength(up) <= AUTHOR_BOX_MAX_CHARS && !up.querySelector('h1'); up = up.parentElement) box = up;
    // After the body: enough of it before the box, and none of it after.
    const before = paragraphs.filter((p) => !box.contains(p) && (box.compareDocumentPosition(p) & 2) !== 0).length;
    const after = paragraphs.some((p) => !box.contains(p) && (box.compareDocumentPosition(p) & 4) !== 0);
    // More than a name: a role, a biography, a photo.
    const more = textLength(box) > author.length + AUTHOR_BOX_MORE || box.querySelector('img, picture') !== null;
    if (before >= AUTHOR_BOX_AFTER && !after && more) {
      box.remove();
      return;
    }
  }
}
