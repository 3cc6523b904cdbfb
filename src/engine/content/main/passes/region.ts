/**
 * The region: the page's main region (`main`, `[role=main]`, or the body, or the noscript copy of a
 * page that shows nothing without scripts), the candidate every other pass starts from.
 */
import { NOT_TEXT, paragraphProse, proseLength, readableLength, textLength, words } from '../dom.js';
import { HIDDEN } from '../marks.js';
import { furnitureWords, isBoilerplate, isNamedPageFooter } from './furniture.js';
import { holdsGrid } from './grids.js';
import { ALWAYS_FURNITURE_NAMES, FURNITURE_TAGS } from '../rules/names.js';
import { PROSE_AFTER_MAIN } from '../rules/thresholds.js';

/**
 * A page that shows nothing without its scripts often carries its content in
 * `<noscript>` for crawlers (Discourse does). Chromium runs scripts, so that
 * content is raw text here: parsed, it becomes the body when the page shows
 * almost nothing else, or only little beside its furniture (a copy twice its size).
 */
export function bodyOrNoscript(doc: Document): Element {
  const body = doc.body ?? doc.documentElement;
  let best: Element | null = null;
  const noscripts = Array.from(body.querySelectorAll('noscript'));
  // Most pages have no noscript that could stand for them: the visible text is measured only for one that could.
  const visibleText = () => {
    const furniture = outermostFurniture(body);
    const outside = noscripts.filter((el) => !furniture.some((f) => f.contains(el)));
    return readableLength(body) - [...outside, ...furniture].reduce((sum, el) => sum + textLength(el), 0);
  };
  for (const noscript of noscripts) {
    const parsed = doc.createElement('div');
    parsed.innerHTML = noscript.textContent || '';
    // "You need to enable JavaScript to run this app." is no copy of the page.
    if (isBoilerplate(parsed)) continue;
    if (!best || readableLength(parsed) > readableLength(best)) best = parsed;
  }
  // Readable text only: a page's noscript can hold its whole stylesheet. One without text (a tracking pixel's image) stands for nothing.
  const copied = best ? readableLength(best) : 0;
  if (best && copied > 0) {
    const visible = visibleText();
    if (copied > Math.max(0, visible < 200 ? visible : 2 * visible)) body.replaceChildren(...Array.from(best.childNodes));
  }
  for (const noscript of Array.from(body.querySelectorAll('noscript'))) noscript.remove();
  return body;
}

/**
 * The furniture under `root` that no other furniture holds (by tag, or always furniture by name), in
 * document order: one walk that does not go into what it found, nor into a template's content.
 */
function outermostFurniture(root: Element): Element[] {
  const isFurniture = (el: Element) => el.matches(FURNITURE_TAGS) || words(el).some((word) => ALWAYS_FURNITURE_NAMES.test(word));
  const found: Element[] = [];
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_ELEMENT, {
    acceptNode(node) {
      const el = node as Element;
      if (isFurniture(el)) found.push(el);
      else if (el.tagName !== 'TEMPLATE') return NodeFilter.FILTER_SKIP;
      return NodeFilter.FILTER_REJECT;
    },
  });
  walker.nextNode();
  return found;
}

/**
 * The element the page marks as its main content. A page that marks several
 * large, separate ones (Digg: the story and a column of teasers) has its main
 * content somewhere under their common ancestor; small extra ones are ignored.
 */
export function mainRegion(doc: Document, total: number): Element | null {
  const marked = Array.from(doc.querySelectorAll('main, [role="main"]')).filter((el) => !el.closest(`[${HIDDEN}]`));
  const outermost = marked.filter((el) => !marked.some((other) => other !== el && other.contains(el)));
  const large = outermost.filter((el) => textLength(el) >= 0.15 * total);
  if (large.length < 2) return outermost.reduce<Element | null>((best, el) => (!best || proseLength(el) > proseLength(best) ? el : best), null);
  let ancestor = large[0]!.parentElement;
  while (ancestor && !large.every((el) => ancestor!.contains(el))) ancestor = ancestor.parentElement;
  return ancestor;
}

/** The page's main region: its `main` when that holds a fair share of the text, else the body. */
export function region(doc: Document): Element {
  const body = bodyOrNoscript(doc);
  const total = textLength(body);
  const best = mainRegion(doc, total);
  if (!best || textLength(best) < 0.2 * total) return body;
  // The page's one title heading may sit just outside its main region (Stack Exchange puts it there).
  const titles = Array.from(doc.querySelectorAll('h1')).filter((h1) => !h1.closest(`[${HIDDEN}]`));
  if (!best.querySelector('h1') && titles.length === 1) best.prepend(titles[0]!.cloneNode(true));
  if (holdsGrid(best)) for (const block of proseAfter(best)) best.append(block.cloneNode(true));
  return best;
}

/**
 * Blocks of prose that follow a grid's main region, outside it and before the page's footer:
 * a category's buying guide, which shop themes put there. Measured on WCXB's dev pages: +1.23 page-F1
 * (three collections +0.39 to +0.43, one whose truth leaves its guide out -0.15); on pages without a
 * grid what follows the main region is the site's (an about box, a sign-up form), not the page's.
 */
export function proseAfter(main: Element): Element[] {
  const found: Element[] = [];
  const isFurniture = (el: Element) =>
    el.matches(`${FURNITURE_TAGS}, [${HIDDEN}], ${NOT_TEXT}`) || isNamedPageFooter(el) || furnitureWords(el).length > 0;
  for (let el: Element | null = main; el && el !== el.ownerDocument.body; el = el.parentElement) {
    for (let next = el.nextElementSibling; next; next = next.nextElementSibling) {
      if (!isFurniture(next) && paragraphProse(next, (p) => !p.closest(`[${HIDDEN}], ${FURNITURE_TAGS}`)) >= PROSE_AFTER_MAIN) found.push(next);
    }
  }
  return found;
}
