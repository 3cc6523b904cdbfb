/**
 * Date lines and bylines by the headline or at the end of the body: a short line of mostly dates, times or
 * names ("Apr 28, 2024 10:00 AM", "30 August 2023 • 4:45pm", "Von Nicole Opitz", "SRF 4 News, 15.4.2024,
 * 10:05 Uhr"). The page's facts, not its text: they go, and what they said fills the record's metadata
 * when the markup did not (pipeline.ts). Told by shape in any language (rules/signals.ts): where the line
 * stands (before the body's first paragraph or after its last), its length, a year and digits outweighing its
 * words, or a <time> element, or the author the page declares.
 */
import { normalText, proseLength, textLength } from '../dom.js';
import { DATE_LINE } from '../rules/phrases.js';
import { BODY_PARAGRAPH, BYLINE_NAME, BYLINE_WORD, STAMP_LETTERS_PER_DIGIT, STAMP_MAX_CHARS, STAMP_MAX_WORDS, TIME_SHARE, YEAR } from '../rules/signals.js';

/** What the lines taken out of the body said: the date by the headline, the author's name. */
export interface TakenFacts {
  publishedTime?: string;
  author?: string;
}

/** The body's paragraphs (BODY_PARAGRAPH of prose or more), in document order: its first and last are its edges. */
export function bodyParagraphs(root: Element): Element[] {
  return Array.from(root.querySelectorAll('p')).filter((p) => proseLength(p) >= BODY_PARAGRAPH);
}

const follows = (el: Element, mark: Element) => (mark.compareDocumentPosition(el) & 4) !== 0 && !mark.contains(el);
const precedes = (el: Element, mark: Element) => (mark.compareDocumentPosition(el) & 2) !== 0 && !el.contains(mark);

/** Where `el` stands against the body's paragraphs: before the first, after the last, or inside. */
export function edgeOf(el: Element, paragraphs: readonly Element[]): 'start' | 'end' | null {
  if (paragraphs.length === 0) return null;
  if (precedes(el, paragraphs[0]!)) return 'start';
  if (follows(el, paragraphs[paragraphs.length - 1]!)) return 'end';
  return null;
}

/** The names of the authors a page declares ("Jane Doe, John Roe"), each of two characters or more. */
export const authorNames = (declared: string | undefined) => (declared ?? '').split(/\s*,\s*/).filter((name) => name.length >= 2);

/**
 * Whether `text` is a date line: a year, and tokens with digits at least half as many as the words around
 * them ("Publié le 12 mars 2024 à 14h35": 3 against 4), no more than STAMP_MAX_WORDS words.
 */
export function isDateText(text: string): boolean {
  if (text.length > STAMP_MAX_CHARS || !YEAR.test(text) || /[.!?]$/.test(text) && !/\d\.$/.test(text)) return false;
  const tokens = text.split(/[\s,;|•·/–—]+/).filter((token) => /[\p{L}\p{N}]/u.test(token));
  const numbers = tokens.filter((token) => /\d/.test(token)).length;
  const words = tokens.length - numbers;
  // Letters against digits too: a line in a script without spaces is one token ("在2014年收购的…" is a sentence).
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  const digits = text.match(/\d/g)?.length ?? 0;
  return numbers >= 1 && words <= STAMP_MAX_WORDS && 2 * numbers >= words && letters <= STAMP_LETTERS_PER_DIGIT * digits;
}

/** Whether `text` is a byline: an author the page declares, and around the name no more than a short word or two and dates. */
export function bylineName(text: string, authors: readonly string[]): string | null {
  if (text.length > STAMP_MAX_CHARS) return null;
  const name = authors.find((author) => text.includes(author));
  if (name) {
    const rest = text.replace(name, ' ').split(/[\s,;|•·/–—:]+/).filter((token) => /\p{L}/u.test(token) && !/\d/.test(token));
    return rest.length <= 2 ? name : null;
  }
  // No author declared: a line that says it names one ("Von Nicole Opitz", "By Jane Doe | 12.3.2024"), nothing after the name but a date.
  const opening = /^(\S+)\s+/.exec(text);
  if (!opening || !BYLINE_WORD.test(opening[1]!)) return null;
  const rest = text.slice(opening[0].length);
  const named = BYLINE_NAME.exec(rest)?.[0].trim();
  if (!named) return null;
  const after = rest.slice(named.length).split(/[\s,;|•·/–—:]+/).filter((token) => /\p{L}/u.test(token) && !/\d/.test(token));
  return after.length <= 2 ? named : null;
}

/**
 * A byline with no word that opens it: a name, then the date ("Max Mustermann, 12.03.2024", "Ana García | 4 de marzo de
 * 2024"). The name is two to four capitalised words with no digit; the date after a comma, a bar or a dot is a date line.
 * Where the date holds words ("Published Tuesday, 12 March 2024" has the shape too), the name must stand in an element of
 * its own in `el` (a link to the author's page, a span): a date in digits alone needs no more.
 */
export function nameBeforeDate(el: Element): { name: string; date: string } | null {
  const text = normalText(el);
  const split = /^([^,|•·–—]+?)\s*[,|•·–—]\s*(.*\d.*)$/u.exec(text);
  if (!split) return null;
  const [, name, date] = split as unknown as [string, string, string];
  const named = BYLINE_NAME.exec(name)?.[0];
  if (named !== name || /\d/.test(name) || !/^\S+(\s+\S+){1,3}$/.test(name) || !isDateText(date)) return null;
  const own = Array.from(el.querySelectorAll('*')).some((child) => normalText(child) === name);
  return DATE_LINE.test(date) || own ? { name, date } : null;
}

/** Whether `el` holds text of its own, outside its child elements. */
const hasOwnText = (el: Element) => Array.from(el.childNodes).some((node) => node.nodeType === 3 && /\S/.test(node.textContent || ''));

const LINE = 'p, div, span, small, time, address, em, i, b, strong';
const BLOCK_INSIDE = 'p, div, ul, ol, table, h1, h2, h3, h4, h5, h6, blockquote, figure, section, article, img, picture, video';

/**
 * Removes the date lines and bylines at the body's edges (see the file's header); `authors`: the names the page
 * declares. Returns what the first date line by the headline and the first byline said.
 */
export function removeStamps(root: Element, authors: readonly string[]): TakenFacts {
  const taken: TakenFacts = {};
  const paragraphs = bodyParagraphs(root);
  if (paragraphs.length === 0) return taken;
  for (const el of Array.from(root.querySelectorAll(LINE))) {
    if (!root.contains(el) || el.closest('table, li, dl, h1, h2, h3, h4, h5, h6, figure, blockquote') || el.querySelector(BLOCK_INSIDE)) continue;
    const text = normalText(el);
    if (!text) continue;
    // A part of a sentence is not a line ("Posted by Ann on <time>12.3.2024</time>").
    if (!/^(P|DIV|ADDRESS)$/.test(el.tagName) && el.parentElement && hasOwnText(el.parentElement)) continue;
    const edge = edgeOf(el, paragraphs);
    if (!edge) continue;
    const times = Array.from(el.matches('time') ? [el] : el.querySelectorAll('time'));
    const timed = times.reduce((sum, time) => sum + textLength(time), 0) >= TIME_SHARE * textLength(el) && text.length <= STAMP_MAX_CHARS;
    const date = timed || isDateText(text);
    const byline = date || edge !== 'start' ? null : bylineName(text, authors);
    if (!date && !byline) continue;
    // A name before the date is the byline ("Max Mustermann, 12.03.2024"): the author, and the date alone.
    const both = date && edge === 'start' && authors.length === 0 ? nameBeforeDate(el) : null;
    if (date && edge === 'start' && taken.publishedTime === undefined) {
      taken.publishedTime = times.map((time) => time.getAttribute('datetime')?.trim()).find(Boolean) ?? both?.date ?? text;
    }
    if (both && taken.author === undefined) taken.author = both.name;
    if (byline && taken.author === undefined) taken.author = byline;
    el.remove();
  }
  return taken;
}
