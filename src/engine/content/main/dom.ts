/**
 * Measures of the DOM every pass reads: text as a reader sees it, text inside and outside links, the
 * words of a class or id, an element's ancestors.
 */
import { CSS_MODULE_HASH, STYLED_COMPONENT } from './rules/names.js';

const wordsByDocument = new WeakMap<Document, Map<string, readonly string[]>>();

/**
 * The words of an element's class and id. The passes ask each element's again and again, and a page repeats its
 * class names: they are remembered per document (a name is a slice of the page's HTML, which a memory of every
 * page's would keep).
 */
export function words(el: Element): readonly string[] {
  const names = `${el.getAttribute('class') || ''} ${el.getAttribute('id') || ''}`;
  let known = wordsByDocument.get(el.ownerDocument);
  if (!known) {
    known = new Map();
    wordsByDocument.set(el.ownerDocument, known);
  }
  let found = known.get(names);
  if (found === undefined) {
    found = nameWords(names);
    known.set(names, found);
  }
  return found;
}

export function nameWords(names: string): string[] {
  // Split on separators and camelCase: "cookieBanner site_nav" -> cookie banner site nav.
  return names
    .replace(CSS_MODULE_HASH, (hash) => (/[A-Z0-9]/.test(hash) ? '' : hash))
    .replace(STYLED_COMPONENT, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}

/** The element's classes, as written in its class attribute. */
export const classesOf = (el: Element) => (el.getAttribute('class') || '').split(/\s+/).filter(Boolean);

/** The elements above `el`, up to (not including) `top`. */
export function ancestors(el: Element, top: Element): Element[] {
  const above: Element[] = [];
  for (let up = el.parentElement; up && up !== top; up = up.parentElement) above.push(up);
  return above;
}

/** Text as a reader sees it: runs of white space as one space. */
export const normalText = (node: Node) => (node.textContent || '').replace(/\s+/g, ' ').trim();

/** The characters `\s` matches in a regular expression: white space and line ends, Unicode's too. */
export function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 ||
    code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

/** normalText's length of a text fed in pieces, counted without building it: each run of white space between words counts one. */
export class TextCount {
  length = 0;
  private gap = false;

  add(text: string): void {
    // In locals while counting: the loop runs over every character of the page, often more than once.
    let length = this.length;
    let gap = this.gap;
    for (let i = 0; i < text.length; i++) {
      if (isSpace(text.charCodeAt(i))) {
        gap = length > 0;
      } else {
        if (gap) length++;
        gap = false;
        length++;
      }
    }
    this.length = length;
    this.gap = gap;
  }
}

/**
 * A faster way to measure an element's text than its textContent, where the DOM has one (nodeText.ts, on
 * linkedom in Node: its textContent joins every text node into a new string); each answers undefined for
 * a node it does not measure, and the measure falls back to textContent.
 */
export interface TextWalk {
  /** textLength(node). */
  textLength(node: Node): number | undefined;
  /** lengthOutside(el, names). */
  lengthOutside(el: Element, names: string): number | undefined;
  /** textHolds(el, character). */
  textHolds(el: Element, character: RegExp): boolean | undefined;
}

let textWalk: TextWalk | undefined;

/** Measures text with `walk` from now on in this thread (nodeDom.ts, once). */
export function measureTextWith(walk: TextWalk): void {
  textWalk = walk;
}

/** normalText(node).length, counted without building that text. */
export function textLength(node: Node): number {
  const walked = textWalk?.textLength(node);
  if (walked !== undefined) return walked;
  const count = new TextCount();
  count.add(node.textContent || '');
  return count.length;
}

/**
 * Whether a character of `el`'s text matches `character`, a class of single characters (no flags: a test
 * of each text node alone finds what a test of their text joined would).
 */
export function textHolds(el: Element, character: RegExp): boolean {
  return textWalk?.textHolds(el, character) ?? character.test(el.textContent || '');
}

/**
 * The text of `el` without that of the elements of a list of tag names (`names`: "script, style") in it:
 * textLength(el) less each one's textLength.
 */
export function lengthOutside(el: Element, names: string): number {
  const walked = textWalk?.lengthOutside(el, names);
  if (walked !== undefined) return walked;
  let code = 0;
  for (const inner of Array.from(el.querySelectorAll(names))) code += textLength(inner);
  return textLength(el) - code;
}

/** The text inside links; inside only the links whose text `counts` accepts, when given. */
export function linkedLength(el: Element, counts?: (text: string) => boolean): number {
  let linked = 0;
  for (const a of Array.from(el.querySelectorAll('a'))) {
    // Without a judge of the text, its length alone, counted without building it.
    if (!counts) linked += textLength(a);
    else {
      const text = normalText(a);
      if (counts(text)) linked += text.length;
    }
  }
  return linked;
}

/** The text outside links. */
export const proseLength = (el: Element) => textLength(el) - linkedLength(el);

/** Elements whose text is code, never shown to a reader. */
export const NOT_TEXT = 'script, style, template';

/** The element's children but its scripts, styles and templates: the blocks a reader could be shown. */
export const textChildren = (el: Element) => Array.from(el.children).filter((child) => !child.matches(NOT_TEXT));

/**
 * Text a reader could be shown: the live page's scripts and styles can outweigh it a hundredfold,
 * and a text area's value (a republishing tool's copy of the whole article as HTML) is a form
 * field's, not the page's (see select). Counted, that copy made its hidden dialog more than half
 * of the page, which is kept as the page hidden whole until its scripts run (see markHidden).
 */
export function readableLength(el: Element): number {
  if (el.matches(NOT_TEXT)) return 0;
  return lengthOutside(el, `${NOT_TEXT}, textarea`);
}

export const isList = (el: Element) => el.tagName === 'UL' || el.tagName === 'OL';

export function remove(root: ParentNode, selector: string): void {
  for (const el of Array.from(root.querySelectorAll(selector))) el.remove();
}

export const HEADINGS = 'h2, h3, h4, h5, h6';

export const level = (heading: Element) => Number(heading.tagName.slice(1));

/** The prose of the region's paragraphs (blocks of 80 characters of prose or more) that `where` accepts. */
export function paragraphProse(content: Element, where: (el: Element) => boolean): number {
  const BLOCKS = 'p, li, dd, td, blockquote, pre, div';
  let prose = 0;
  for (const el of Array.from(content.querySelectorAll(BLOCKS))) {
    if (el.querySelector(BLOCKS)) continue;
    const length = proseLength(el);
    if (length >= 80 && where(el)) prose += length;
  }
  return prose;
}

/** The start of the element's text: enough to find the block again in a copy (Readability's pick). */
export const opening = (el: Element) => normalText(el).slice(0, 60);
