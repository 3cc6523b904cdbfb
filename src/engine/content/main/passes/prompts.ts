/**
 * A short prompt by a widget: a form, a button or a group of them, a rating (a group of radio buttons), a
 * cluster of share links, with the few words that ask for them ("War der Artikel nützlich? Ja Nein",
 * "Bewerten: ★★★★★", "Kommentar schreiben", "Share this: Facebook X E-Mail"). The page's controls, not its text.
 * Told by shape in any language (rules/signals.ts): a box around a widget whose whole text stays short,
 * holding no paragraph of the body, no picture or video, standing before the body's first paragraph or after
 * its last, on a page that keeps an article's worth of prose outside it. Never by a site's class names.
 */
import { normalText, proseLength, textLength } from '../dom.js';
import { HEADING_LABEL, PROMPT_BODY, PROMPT_MAX_CHARS, SHARE_LINK } from '../rules/signals.js';
import { bodyParagraphs, edgeOf } from './stamps.js';

/** A control a reader clicks or fills in. */
const CONTROL = 'button, [role="button"], [role="radiogroup"], [role="slider"], input:not([type="hidden"]), select, textarea';

/** What a prompt's box never holds: the page's media and its text's own blocks. */
const NOT_A_PROMPT = 'h1, video, audio, iframe, picture, figure, table, pre, blockquote, img:not(a img)';

/**
 * A box never holds a heading: it is the page's outline (on WCXB dev, boxes climbing from a vote button took a
 * product's name in a review, and from an FAQ's button its question). A heading right before a form may be its
 * prompt ("Kommentar schreiben").
 */
const HEADINGS = 'h2, h3, h4, h5, h6';
/** What a box neither is nor holds, nor stands in. */
const NEVER_IN_A_BOX = `${NOT_A_PROMPT}, ${HEADINGS}`;

/** The widgets of `root`: its controls, and each cluster of share links. */
export function widgetsOf(root: Element): Element[] {
  const found: Element[] = Array.from(root.querySelectorAll(CONTROL));
  const shares = Array.from(root.querySelectorAll('a[href]')).filter((a) => SHARE_LINK.test(a.getAttribute('href') || ''));
  for (const link of shares) {
    // The smallest block around the link holding another share link: the cluster.
    let at = link.parentElement;
    while (at && at !== root && !shares.some((other) => other !== link && at!.contains(other))) at = at.parentElement;
    if (at && at !== root) found.push(at);
  }
  // Each once: two share links may name the same cluster.
  return found.filter((el, i) => found.indexOf(el) === i);
}

/** The box of a widget and its prompt: the largest block around it whose text stays short (see the file's header). */
function boxOf(widget: Element, root: Element, paragraphs: readonly Element[]): Element | null {
  const fits = (el: Element) =>
    textLength(el) <= PROMPT_MAX_CHARS && !el.matches(NEVER_IN_A_BOX) && !el.querySelector(NEVER_IN_A_BOX) && !paragraphs.some((p) => el.contains(p));
  if (!fits(widget) || widget.parentElement?.closest(NEVER_IN_A_BOX)) return null;
  let box = widget;
  for (let up = widget.parentElement; up && up !== root && fits(up); up = up.parentElement) box = up;
  return box;
}

/** Removes each widget with its prompt at the body's edges (see the file's header). */
export function removePrompts(root: Element): void {
  const paragraphs = bodyParagraphs(root);
  if (paragraphs.length === 0) return;
  const body = proseLength(root);
  for (const widget of widgetsOf(root)) {
    if (!root.contains(widget)) continue;
    const box = boxOf(widget, root, paragraphs);
    if (!box || normalText(box) === '' || !edgeOf(box, paragraphs) || body - proseLength(box) < PROMPT_BODY) continue;
    // The prompt's own line right before the box ("Kommentar schreiben" over the form), when the two stay short.
    const before = box.previousElementSibling;
    if (before && isPromptLine(before) && !paragraphs.includes(before) && textLength(before) + textLength(box) <= PROMPT_MAX_CHARS && (!isHeading(before) || asksToFillIn(box))) {
      before.remove();
    }
    box.remove();
  }
}

/** A heading, or a line that is one: a prompt only over a form ("Kommentar schreiben"); over a button, it names what the button is for. */
const isHeading = (el: Element) => el.matches(HEADINGS) || el.querySelector(HEADINGS) !== null;
/** A form, or fields a reader fills in. */
const asksToFillIn = (box: Element) => box.matches('form, textarea, input, select') || box.querySelector('form, textarea, input, select') !== null;

/** A line of a few words: no link, no block, no media in it. */
const isPromptLine = (el: Element) => normalText(el) !== '' && textLength(el) <= HEADING_LABEL && !el.matches(`a, ${NOT_A_PROMPT}`) && !el.querySelector(`a, p, div, ul, ol, ${NOT_A_PROMPT}`);
