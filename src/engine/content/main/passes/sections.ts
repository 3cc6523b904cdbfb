/**
 * Sections opened by a heading that says what they are ("You may also like", "Customer reviews").
 */
import { HEADINGS, level, normalText } from '../dom.js';
import type { TextTest } from '../rules/languages.js';

/**
 * Removes each section opened by such a heading: the outermost block that starts with
 * the heading and holds no other section of its rank, or else the heading and what
 * follows it up to the next heading of its rank.
 */
export function removeSectionsHeaded(root: Element, opening: TextTest): void {
  for (const heading of Array.from(root.querySelectorAll(HEADINGS))) {
    const text = normalText(heading);
    // The patterns match at the start: a long heading may end in links (see all, sort).
    if (!root.contains(heading) || text.length > 150 || !opening.test(text)) continue;
    const rank = level(heading);
    const peers = (el: Element) =>
      Array.from(el.querySelectorAll(HEADINGS)).some((h) => h !== heading && level(h) <= rank && !opening.test(normalText(h)));
    let section: Element = heading;
    for (let up = heading.parentElement; up && up !== root && !up.querySelector('h1') && !peers(up) && normalText(up).startsWith(text); up = up.parentElement) {
      section = up;
    }
    if (section === heading) {
      for (let next = heading.nextElementSibling; next; ) {
        const following = next.nextElementSibling;
        if (next.matches(HEADINGS) ? level(next) <= rank : next.querySelector(HEADINGS) !== null || next.querySelector('h1') !== null) break;
        next.remove();
        next = following;
      }
    }
    section.remove();
  }
}
