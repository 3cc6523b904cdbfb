/**
 * Repeats: a block the page says twice (responsive copies, carousels' cloned slides, a section shown
 * twice) goes, a line said again on its own stays.
 */
import { classesOf, normalText, textLength } from '../dom.js';
import { COPIED_BLOCK, COPIED_RUN } from '../rules/thresholds.js';

/** A block of text, the block that said the same before it and where that one stands, and whether it is shorter than COPIED_BLOCK. */
export type Said = { el: Element; original: Element | undefined; originalAt: number | undefined; short: boolean };

/**
 * Responsive pages often carry the same block twice (a desktop and a mobile
 * version) and carousels repeat their slides: a copy of a block already seen goes.
 */
export function removeRepeats(root: Element): void {
  const said = saidBlocks(root);
  const copies = copiedBlocks(said.filter(({ short }) => !short));
  for (const el of copiedLines(said, copies)) copies.add(el);
  for (const el of copies) el.remove();
}

/** The blocks of text under `root`, in order, each with the block that said it first, if another did. */
export function saidBlocks(root: Element): Said[] {
  const first = new Map<string, number>();
  const BLOCKS = 'p, li, h1, h2, h3, h4, h5, h6, dd, blockquote, pre';
  const said: Said[] = [];
  for (const el of Array.from(root.querySelectorAll(BLOCKS))) {
    // A table repeats itself by design (the same instruction every day of a plan).
    if (el.querySelector(BLOCKS) || el.closest('table')) continue;
    const text = normalText(el);
    if (!text) continue;
    const originalAt = first.get(text);
    said.push({ el, original: originalAt === undefined ? undefined : said[originalAt]!.el, originalAt, short: text.length < COPIED_BLOCK });
    if (originalAt === undefined) first.set(text, said.length - 1);
  }
  return said;
}

/**
 * On a product's page, a run of short blocks said again in the same order, in another block, is a copy of a
 * section (a details list in the buy box and again under "Details": "Product code: …", "UPC: …", "Package
 * quantity: …"), though no long block in it says so (see copiedLines). Not the fields of items of one kind.
 * A comparison says its labels again, but each time with another value between them: never three in a row.
 * Measured on WCXB's dev pages: +0.11 page-F1 on products (8 pages, none lost); on every page type it lost
 * 0.31 more (a listing whose two lists of the same links its truth keeps: -0.41).
 */
export function copiedShortRuns(said: Said[]): Element[] {
  const runs: Element[] = [];
  let start = 0;
  while (start < said.length) {
    let end = start + 1;
    while (said[start]!.originalAt !== undefined && end < said.length && said[end]!.originalAt === said[end - 1]!.originalAt! + 1) end++;
    const { el, original } = said[start]!;
    if (original && end - start >= COPIED_RUN && el.parentElement !== original.parentElement) {
      for (let i = start; i < end; i++) if (said[i]!.short && !ofItemsOfAKind(said[i]!.el, said[i]!.original!)) runs.push(said[i]!.el);
    }
    start = end;
  }
  return runs;
}

/**
 * A copy comes as a run of blocks (a second version of a section, cloned slides), as part
 * of a larger copy (a promotion shown twice), right after its original (a card's desktop
 * and mobile text), or quoted. One line said again on its own, away from where it was first
 * said (the same meal in each week of a plan), is content: measured over HTTP, WCXB's dev
 * pages +0.37 page-F1 and the 181 pages +0.10 (no page of those lost more than 0.03).
 * So is a run said again in the same flow of paragraphs as its original (a plan's meals,
 * each with its portions, in every week): a second version of a section sits in a block of
 * its own, a slide's copy in another slide.
 */
export function copiedBlocks(blocks: Said[]): Set<Element> {
  const copies = new Set<Element>();
  const isRepeat = (i: number) => blocks[i]?.original !== undefined;
  blocks.forEach(({ el, original }, i) => {
    if (!original) return;
    const besideOriginal = blocks[i - 1]?.el === original;
    const inRun = el.parentElement !== original.parentElement && (isRepeat(i - 1) || isRepeat(i + 1));
    if (besideOriginal || inRun || el.closest('blockquote') || inLargerCopy(el, original)) copies.add(el);
  });
  return copies;
}

/**
 * The short blocks of a copied section: in a run of blocks said again that holds a copy, those
 * that stand where the copy's original has them ("Handmade stoneware.", "Size: 9.5 x 13 cm" under
 * a product's description said twice). Not the fields of items of one kind (the same terms
 * under each coupon, each plan's features, the same words around each tab's code): their blocks
 * share a class and read differently. Measured on WCXB's dev pages: +0.87 page-F1 (product
 * 0.740 -> 0.743, collection 0.755 -> 0.759; 46 pages, one listing losing 0.11 whose truth keeps
 * each coupon's terms); without the exception for items, +0.94 but a docs page lost its tabs'
 * words (-0.03).
 */
export function copiedLines(said: Said[], copies: Set<Element>): Element[] {
  const lines: Element[] = [];
  let start = 0;
  while (start < said.length) {
    let end = start;
    while (end < said.length && said[end]!.original) end++;
    // said[start..end) is a run of blocks said again (empty when said[start] is said first).
    const copied = [];
    for (let i = start; i < end; i++) if (copies.has(said[i]!.el)) copied.push(i);
    for (let i = start; i < end; i++) {
      const { el, original, short } = said[i]!;
      if (!short) continue;
      // Where the copy at `c` has its original, the block at `i` has its own original `i - c` further on.
      const inPlace = copied.some((c) => said[said[c]!.originalAt! + (i - c)]?.el === original);
      if (inPlace && !ofItemsOfAKind(el, original!)) lines.push(el);
    }
    start = Math.max(end, start + 1);
  }
  return lines;
}

/** Whether `el` and `original` sit in two items of one kind: blocks beside each other that share a class and read differently. */
export function ofItemsOfAKind(el: Element, original: Element): boolean {
  let item: Element = el;
  while (item.parentElement && !item.parentElement.contains(original)) item = item.parentElement;
  let peer: Element = original;
  while (peer.parentElement && peer.parentElement !== item.parentElement) peer = peer.parentElement;
  return classesOf(item).some((name) => classesOf(peer).includes(name)) && normalText(item) !== normalText(peer);
}

/** Whether `el` and `original` sit in blocks that read the same and hold more than them. */
export function inLargerCopy(el: Element, original: Element): boolean {
  const own = textLength(el);
  for (let a = el.parentElement, b = original.parentElement; a && b && !a.contains(b) && !b.contains(a); a = a.parentElement, b = b.parentElement) {
    const text = normalText(a);
    if (text !== normalText(b)) return false;
    if (text.length > own) return true;
  }
  return false;
}
