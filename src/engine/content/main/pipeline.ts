/**
 * Main content, on any kind of page: what a reader came for. This file is the order of the
 * passes; each pass lives in passes/ with its family, and the names, phrases and thresholds
 * they use are tables in rules/.
 *
 * Two candidates are built from the same clean copy of the page:
 * - the region: the page's main region (`main`, `[role=main]`, or the body) without what the
 *   reader cannot see and without page furniture (navigation, headers, footers, sidebars,
 *   cookie banners, share bars, newsletter boxes...). It keeps every post of a thread, every
 *   item of a grid, every block of a product or marketing page.
 * - the article: Readability's pick inside that region, cleaned of captions, bylines and link
 *   blocks. On an article it is cleaner than the region (comments, author boxes and teasers
 *   go); on other pages it is one fragment of the content.
 * The article wins when it holds most of the region's text; otherwise the region does
 * (passes/article.ts, picksArticle).
 *
 * The same modules run in Node (on linkedom, inNode.ts) and inside the page (bundled at build
 * time from page/entry.ts): nothing here may reach outside the DOM it is given.
 */
import { textLength } from './dom.js';
import { choiceNote, Explainer, factsNote, regionStep } from './explain.js';
import { HIDDEN } from './marks.js';
import { readPage, reviewsProducts, type PageFacts } from './pageKind.js';
import { articleOrRegion } from './passes/article.js';
import { removeAuthorBox } from './passes/authorBox.js';
import { removeCredits } from './passes/credits.js';
import { removeHeadedLinks } from './passes/headedLinks.js';
import { removePrompts } from './passes/prompts.js';
import { authorNames, removeStamps, type TakenFacts } from './passes/stamps.js';
import { neverSilentlyEmpty } from './passes/fallback.js';
import { removeFurniture } from './passes/furniture.js';
import { contentLists, listsMayBeContent } from './passes/lists.js';
import { removeCardGrids, removeCardRepeats } from './passes/grids.js';
import { addProductDescription, productEssentials, removeReviews, startAtTitle } from './passes/products.js';
import { headlineNote, headlineOf, openWithHeadline } from './passes/headline.js';
import { region } from './passes/region.js';
import { copiedShortRuns, removeRepeats, saidBlocks } from './passes/repeats.js';
import { removeSectionsHeaded } from './passes/sections.js';
import { removeCommentSections, removeOtherArticles, removePosterDetails } from './passes/threads.js';
import { markHidden, separateBlocks } from './passes/visibility.js';
import type { MainContent } from './result.js';
import { REVIEWS_HEADING } from './rules/phrases.js';

export type { MainContent } from './result.js';
export { markHidden };

/** The two steps of main-content selection, as extractInPage takes them. */
export interface MainContentSelector {
  /** Marks what the reader cannot see in the live page; returns a function that removes the marks. */
  markHidden(doc: Document): () => void;
  /**
   * Picks the main content of `doc`, a marked copy of `page`, which it may modify; `explain` is told each pass.
   * `again` makes another copy as `doc` was made (the fallback's, on the few pages that need one).
   * `author`: what the page's markup declares (articleMeta.ts), for the bylines and author boxes.
   */
  select(doc: Document, page: Document, again: () => Document, explain?: Explainer, author?: string): MainContent;
}

/** What the passes share: the page, what it says of itself, and the content as the passes leave it. */
export interface Selection {
  /** The marked copy of the page, which the passes change. */
  readonly doc: Document;
  /** The live page, read only. */
  readonly page: Document;
  readonly facts: PageFacts;
  /** The page's main region, cleaned pass by pass: the candidates are built from it. */
  content: Element;
  /**
   * The main region before any pass removed anything: the fallback starts again from it. Made when asked, from
   * another copy of the page: only a nearly empty selection asks (none of the 181 article pages, 31 of WCXB's 1,497).
   */
  readonly untouched: () => Element;
  /** A product's title, price and named description blocks, when its page names them (see productEssentials). */
  essentials: Element | null;
  /** What was chosen (the essentials, Readability's article or the region), from the pass `choose` on. */
  chosen: Element | null;
  /** Readability's pick, chosen or not (null when it found nothing, or when the essentials were chosen). */
  picked: Element | null;
  /** The page's headline, read before any pass ran (passes/headline.ts). */
  readonly headline: string;
  /** What the selection gives, from the pass `never-silently-empty` on. */
  result: MainContent | null;
  /** The authors the page's markup names (articleMeta.ts), for the bylines and author boxes. */
  readonly authors: readonly string[];
  /** What the date lines and bylines taken out of the body said (passes/stamps.ts). */
  taken: TakenFacts;
}

/** One pass: its name (as --explain will show it), when it applies, and what it does. */
export interface Pass {
  readonly name: string;
  readonly when?: (s: Selection) => boolean;
  readonly run: (s: Selection) => void;
}

/** Passes on the whole copy of the page, before its main region is found. */
const BEFORE_REGION: ReadonlyArray<{ name: string; run: (doc: Document) => void }> = [
  {
    // A text area's text is a form field's value (a republishing tool's copy of the whole article as
    // HTML, a reply's draft), never written out (markdown.ts): in the shares of the text it would
    // outweigh the article itself. The element stays, for the rules that know a reply box by it.
    name: 'empty-text-areas',
    run: (doc) => {
      for (const field of Array.from(doc.querySelectorAll('textarea'))) field.textContent = '';
    },
  },
  { name: 'separate-blocks', run: separateBlocks },
];

const isProduct = (s: Selection) => s.facts.isProduct;

/** The passes on the main region, in order: cleaning, the choice of a candidate, then finishing the chosen one. */
export const PASSES: readonly Pass[] = [
  {
    name: 'furniture',
    run: (s) => {
      s.taken = removeFurniture(s.content, s.facts.phrases, { dateLines: !s.facts.isThread, lists: listsMayBeContent(s.facts.says) });
    },
  },
  // A photo's credit, a rights notice: by shape, in any language (passes/credits.ts).
  { name: 'credits', when: (s) => !s.facts.isThread, run: (s) => removeCredits(s.content, { article: s.facts.says === 'article' }) },
  // Language-free signals (rules/signals.ts): date lines and bylines at the body's edges, the author's box after it,
  // a heading over a list of other articles.
  {
    name: 'date-lines',
    when: (s) => !s.facts.isThread,
    run: (s) => {
      // The date line the furniture took first stands first: it was above these.
      const stamps = removeStamps(s.content, s.authors);
      s.taken = { ...stamps, ...s.taken };
    },
  },
  {
    name: 'author-box',
    when: (s) => !s.facts.isThread,
    run: (s) => removeAuthorBox(s.content, s.taken.author && s.authors.length === 0 ? [s.taken.author] : s.authors),
  },
  {
    name: 'headed-links',
    when: (s) => !s.facts.isThread && !s.facts.isProduct,
    run: (s) => removeHeadedLinks(s.content, listsMayBeContent(s.facts.says) ? contentLists(s.content) : []),
  },
  // A short prompt by a form, a button, a rating or share links, at the body's edges (passes/prompts.ts). On a page that
  // says it is an article only: on WCXB's collection pages every product card is a short box around a button.
  { name: 'prompts', when: (s) => s.facts.says === 'article' && !s.facts.isThread && !s.facts.isProduct, run: (s) => removePrompts(s.content) },
  { name: 'repeats', run: (s) => removeRepeats(s.content) },
  // Readers' comments under a post are not the post; in a thread, the posts are the content.
  { name: 'poster-details', when: (s) => s.facts.isThread, run: (s) => removePosterDetails(s.content) },
  { name: 'comment-sections', when: (s) => !s.facts.isThread, run: (s) => removeCommentSections(s.content) },
  { name: 'other-articles', when: (s) => !s.facts.isThread, run: (s) => removeOtherArticles(s.content) },
  {
    name: 'reviews',
    when: ({ facts }) => (facts.declaresProduct || facts.sells) && !reviewsProducts(facts.jsonLd, facts.isProduct),
    run: (s) => removeReviews(s.content),
  },
  { name: 'start-at-title', when: isProduct, run: (s) => startAtTitle(s.content) },
  {
    name: 'copied-short-runs',
    when: isProduct,
    run: (s) => {
      for (const el of copiedShortRuns(saidBlocks(s.content))) el.remove();
    },
  },
  { name: 'card-grids', when: isProduct, run: (s) => removeCardGrids(s.content) },
  { name: 'review-sections', when: isProduct, run: (s) => removeSectionsHeaded(s.content, REVIEWS_HEADING) },
  {
    // Open Graph's "product" alone is not enough: shops put it on their category pages too.
    name: 'product-essentials',
    when: (s) => s.facts.isProduct && (s.facts.declaresProduct || s.page.querySelector('[itemtype$="schema.org/Product"]') !== null),
    run: (s) => {
      s.essentials = productEssentials(s.content);
    },
  },
  {
    name: 'choose',
    run: (s) => {
      s.chosen = s.essentials ?? articleOrRegion(s.doc, s.content, s.facts.says, (picked) => (s.picked = picked));
    },
  },
  { name: 'product-description', run: (s) => addProductDescription(s.facts.jsonLd, s.chosen!) },
  // After the choice: the repeats count in the shares of text that choose between the candidates.
  { name: 'card-repeats', run: (s) => removeCardRepeats(s.chosen!) },
  {
    name: 'never-silently-empty',
    run: (s) => {
      s.result = neverSilentlyEmpty(s.chosen!, s.untouched);
    },
  },
  // Last: the headline is no part of the shares of text above.
  { name: 'headline', run: (s) => openWithHeadline(s.result!.root, s.headline) },
];

/** The main region of `doc`, a marked copy of the page, once the passes before the region ran (they change `doc`). */
function regionOf(doc: Document): Element {
  for (const pass of BEFORE_REGION) pass.run(doc);
  return region(doc);
}

/** Picks the main content of `doc`, a marked copy of `page` (see markHidden), which it may modify; `explain` is told each pass. */
export function select(doc: Document, page: Document, again: () => Document, explain?: Explainer, author?: string): MainContent {
  if (explain) {
    const hidden = doc.querySelectorAll(`[${HIDDEN}]`).length;
    explain.note('visibility', `${hidden} block${hidden === 1 ? '' : 's'} the reader cannot see marked, to go with the furniture`);
  }
  const headline = headlineOf(doc, page);
  const content = regionOf(doc);
  const facts = readPage(page);
  if (explain) {
    explain.phrases = facts.phrases;
    explain.note('page', factsNote(facts));
    explain.steps.push(regionStep(content, doc));
  }
  const s: Selection = { doc, page, facts, content, untouched: () => regionOf(again()).cloneNode(true) as Element, essentials: null, chosen: null, picked: null, headline, result: null, authors: authorNames(author), taken: {} };
  for (const pass of PASSES) {
    if (pass.when && !pass.when(s)) continue;
    if (!explain) pass.run(s);
    else if (pass.name === 'choose') {
      const start = performance.now();
      pass.run(s);
      explain.note('choose', choiceNote(s.picked, s.content, s.chosen!, s.essentials !== null), performance.now() - start);
    } else explain.run(pass.name, () => s.result?.root ?? s.chosen ?? s.content, () => pass.run(s));
  }
  const result = s.result!;
  if (s.taken.publishedTime !== undefined || s.taken.author !== undefined) result.taken = s.taken;
  if (explain) explain.note('headline', headlineNote(result.root, headline, doc));
  if (explain) explain.note('result', `${textLength(result.root)} characters of text${result.warning ? `; ${result.warning}` : ''}`);
  return result;
}

export const mainContentSelector: MainContentSelector = { markHidden, select };
