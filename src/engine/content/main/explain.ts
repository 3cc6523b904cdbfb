/**
 * --explain: which pass removed which block of the page, and why; what the page says it is; and
 * Readability's pick against the region, with their shares of the text. Built only when asked:
 * without it, the passes run as they always do.
 */
import { classesOf, nameWords, normalText, proseLength, textLength } from './dom.js';
import { HIDDEN } from './marks.js';
import type { PageFacts } from './pageKind.js';
import { ENGLISH_PHRASES, type PagePhrases } from './rules/languages.js';
import { furnitureWordsIn, isBoilerplate } from './passes/furniture.js';
import { ALWAYS_FURNITURE_NAMES, FURNITURE_TAGS, SCREEN_READER_ONLY } from './rules/names.js';

/** A block a pass removed: what it was, its text, and why it went. */
export interface Removed {
  block: string;
  chars: number;
  why: string;
}

/** One pass, as --explain tells it. */
export interface ExplainStep {
  pass: string;
  /** Milliseconds the pass took. */
  ms: number;
  removed: Removed[];
  /** What the pass decided, when it decides rather than removes. */
  note?: string;
}

/** Why a pass removes what it removes, when the block itself does not say more (see whyRemoved). */
const PASS_REASONS: Record<string, string> = {
  furniture: 'page furniture: a menu, a list of links, a ticker, a form or a label',
  credits: "a photo's credit or a rights notice (©, slash-joined names or a credit label by a picture)",
  'date-lines': "a date line or a byline by the headline or after the body (the record's metadata keeps what it said)",
  'author-box': 'a box about the author after the body',
  'headed-links': 'a heading over a list of links to other articles',
  prompts: 'a form, a button, a rating or share links with the short prompt by them, at the edge of the body',
  repeats: 'said before on the page (a responsive copy, a cloned slide)',
  'poster-details': "what a forum shows beside each post about its poster",
  'comment-sections': "readers' comments under the post",
  'other-articles': "another post beside the page's own",
  reviews: "customers' reviews of the product",
  'start-at-title': "above the product's title: the shop's, not the product's",
  'copied-short-runs': 'a copy of a section said before',
  'card-grids': 'a grid of other products or stories',
  'review-sections': 'a section of reviews or questions',
  'card-repeats': 'said twice in one card of a grid',
};

const MAX_REMOVED_LISTED = 12;

export class Explainer {
  readonly steps: ExplainStep[] = [];
  /** The page's phrase tables, once its language is known (pageKind.ts): a boilerplate line is told in them. */
  phrases: PagePhrases = ENGLISH_PHRASES;

  /** Runs `pass`, noting the blocks it takes out of `root`. */
  run(pass: string, root: () => Element, run: () => void): void {
    const top = root();
    const before = Array.from(top.querySelectorAll('*'));
    const start = performance.now();
    run();
    const ms = performance.now() - start;
    const gone = new Set(before.filter((el) => !top.contains(el)));
    // The outermost of the removed blocks: those whose parent stayed (or went with them as its root).
    const outermost = [...gone].filter((el) => !el.parentElement || !gone.has(el.parentElement));
    const removed = outermost
      .map((el) => ({ block: describe(el), chars: textLength(el), why: whyRemoved(el, pass, this.phrases) }))
      .filter((entry) => entry.chars > 0);
    this.steps.push({ pass, ms, removed });
  }

  note(pass: string, note: string, ms = 0): void {
    this.steps.push({ pass, ms, removed: [], note });
  }
}

/** `<div class="cookie-banner">` "We use cookies…" */
export function describe(el: Element): string {
  const attributes = ['id', 'class', 'role']
    .map((name) => [name, el.getAttribute(name)] as const)
    .filter(([, value]) => value)
    .map(([name, value]) => ` ${name}="${value!.length > 60 ? `${value!.slice(0, 59)}…` : value}"`)
    .join('');
  const text = normalText(el);
  return `<${el.tagName.toLowerCase()}${attributes}>${text ? ` "${text.length > 50 ? `${text.slice(0, 49)}…` : text}"` : ''}`;
}

/** Why a removed block went: what about the block itself the rule read, else what the pass removes. */
function whyRemoved(el: Element, pass: string, phrases: PagePhrases): string {
  if (el.hasAttribute(HIDDEN)) return 'not shown on the page';
  if (pass === 'furniture') {
    if (el.matches(FURNITURE_TAGS)) return `furniture by its ${el.hasAttribute('role') ? `role "${el.getAttribute('role')}"` : `<${el.tagName.toLowerCase()}> tag`}`;
    // The class or id the rules read as furniture: furnitureWords' (removeFurniture) or a banner's (removeBanners).
    const name = [...classesOf(el), el.getAttribute('id') || ''].find(
      (value) => furnitureWordsIn(value).length > 0 || nameWords(value).some((word) => ALWAYS_FURNITURE_NAMES.test(word)),
    );
    if (name) return `furniture by its name "${name}"`;
    if (el.matches(SCREEN_READER_ONLY)) return 'text for screen readers only';
    if (isBoilerplate(el, phrases)) return 'a boilerplate line';
  }
  return PASS_REASONS[pass] ?? pass;
}

const percent = (part: number, whole: number) => `${Math.round((100 * part) / Math.max(1, whole))}%`;

/** What the page says it is, as a line. */
export function factsNote(facts: PageFacts): string {
  const kinds = { article: 'an article (JSON-LD or Open Graph)', thread: 'a forum thread or Q&A page', product: "one product's page", nothing: 'nothing of itself' };
  return `the page says it is ${kinds[facts.says]}${facts.language ? `; its language is read as ${facts.language}` : ''}`;
}

/** The region: which element, its share of the page's text, and the blocks of the page it leaves out. */
export function regionStep(region: Element, doc: Document): ExplainStep {
  const body = doc.body ?? doc.documentElement;
  const outside: Element[] = [];
  for (let el: Element = region; el !== body && el.parentElement; el = el.parentElement) {
    for (const sibling of Array.from(el.parentElement.children)) if (sibling !== el && !sibling.matches('script, style, template')) outside.push(sibling);
  }
  const removed = outside.map((el) => ({ block: describe(el), chars: textLength(el), why: 'outside the main region' })).filter((entry) => entry.chars > 0);
  const note = `the main region is ${describe(region).replace(/ ".*$/, '')}: ${textLength(region)} characters, ${percent(textLength(region), textLength(body))} of the page's text`;
  return { pass: 'region', ms: 0, removed, note };
}

/** Readability's pick against the region, and which was chosen. */
export function choiceNote(picked: Element | null, region: Element, chosen: Element, essentials: boolean): string {
  if (essentials) return "the product's named title, price and description blocks are the content";
  if (!picked) return 'Readability found no article in the region: the region is the content';
  const shares = `Readability's pick holds ${percent(proseLength(picked), proseLength(region))} of the region's prose (text outside links) and ${percent(textLength(picked), textLength(region))} of its text`;
  return `${shares}: ${chosen === region ? 'the region is the content' : 'the pick is the content'}`;
}

/** The trace as text: one line a pass, then one line a removed block (the largest first). */
export function formatExplain(steps: ExplainStep[]): string {
  const lines: string[] = [];
  for (const step of steps) {
    const time = step.ms >= 0.5 ? ` (${step.ms.toFixed(0)} ms)` : '';
    const chars = step.removed.reduce((sum, entry) => sum + entry.chars, 0);
    const removed = step.removed.length === 0 ? 'removed nothing' : `removed ${step.removed.length} block${step.removed.length === 1 ? '' : 's'}, ${chars} characters`;
    if (step.note) lines.push(`${step.pass}: ${step.note}${step.removed.length > 0 ? `; ${removed}` : ''}${time}`);
    else lines.push(`${step.pass}: ${removed}${time}`);
    const largest = [...step.removed].sort((a, b) => b.chars - a.chars);
    for (const entry of largest.slice(0, MAX_REMOVED_LISTED)) lines.push(`  - ${entry.block} (${entry.chars} characters): ${entry.why}`);
    if (largest.length > MAX_REMOVED_LISTED) lines.push(`  - and ${largest.length - MAX_REMOVED_LISTED} smaller blocks`);
  }
  return lines.join('\n');
}
