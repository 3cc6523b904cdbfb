/**
 * Grids of cards: a category's products, other stories, the repeats within each card.
 */
import { normalText, proseLength, textChildren, textLength } from '../dom.js';
import { PRICE } from '../rules/phrases.js';
import { MIN_GRID_ITEMS } from '../rules/thresholds.js';

/**
 * Whether `el` holds a grid of products or posts: six items or more, nearly all of them a card
 * (a link and an image, and with `priced`, a price). Unlike isCardGrid, a card may carry any
 * length of text (a shop's cards list each product's features).
 */
export function holdsGrid(el: Element, { priced = false } = {}): boolean {
  const card = (item: Element) => isCard(item) && (!priced || PRICE.test(normalText(item)));
  return Array.from(el.querySelectorAll('ul, ol, div, section')).some((block) => isGrid(block, card));
}

/** A card: a link and an image. */
export const isCard = (item: Element) => item.querySelector('a[href]') !== null && item.querySelector('img, picture') !== null;

/** Whether `block`'s items are a grid: `minItems` or more (six unless said), nearly all of them cards. */
export function isGrid(block: Element, card: (item: Element) => boolean = isCard, minItems = MIN_GRID_ITEMS): boolean {
  const items = textChildren(block);
  return items.length >= minItems && items.filter(card).length >= 0.8 * items.length;
}

/**
 * Whether `el` is a card (a link and an image) that is an item of a grid, or sits inside one up to
 * two levels down (a theme's card wrapper in each list item): a word of furniture in its name says
 * what the product is ("subscription-eligible"), not what the block is. A grid of other products
 * goes by its own name ("related-products") before its cards are reached.
 */
export function inGridCard(el: Element): boolean {
  let item: Element | null = el;
  for (let depth = 0; item && depth < 3; depth++, item = item.parentElement) {
    const block = item.parentElement;
    if (!block || !isCard(item)) return false;
    if (isGrid(block)) return true;
  }
  return false;
}

/**
 * A card of a grid says each thing once to the eye: its name under its picture, and again in a
 * block its theme shows only without a picture or on hover; its price as regular and as sale
 * price, one of them shown by the theme's styles. In each card, an element that reads the same
 * as one before it (and is not inside it) goes. Measured on WCXB's dev pages: +0.75 page-F1 (three
 * collections and listings +0.23 to +0.29; one collection whose truth keeps each card three times
 * -0.12). Before the choice of content, it also moved that choice on other pages (-0.5 on those).
 */
export function removeCardRepeats(root: Element): void {
  for (const block of Array.from(root.querySelectorAll('ul, ol, div, section'))) {
    if (!root.contains(block) || !isGrid(block, isCard, 3)) continue;
    for (const card of textChildren(block)) if (isCard(card) && linksToOne(card)) removeRepeatsIn(card);
  }
}

/**
 * Whether every link of the card goes to one place. A row of listings can pass for one card,
 * and its listings' shared words ("Brand New", "Free shipping") are not repeats.
 */
export function linksToOne(card: Element): boolean {
  const targets = new Set(Array.from(card.querySelectorAll('a[href]'), (a) => (a.getAttribute('href') || '').split(/[?#]/)[0]));
  return targets.size === 1;
}

export function removeRepeatsIn(card: Element): void {
  const first = new Map<string, Element>();
  for (const el of Array.from(card.querySelectorAll('*'))) {
    if (!card.contains(el)) continue;
    const text = normalText(el);
    if (!text) continue;
    const original = first.get(text);
    if (!original) first.set(text, el);
    else if (!original.contains(el)) el.remove();
  }
}

/** A block of three or more cards, each an image, a link and a short text: other products, other posts. */
export function isCardGrid(el: Element): boolean {
  return isGrid(el, (item) => isCard(item) && textLength(item) < 300, 3);
}

/** Grids of other products on a product's page (also viewed, also bought), of other stories in an article. */
export function removeCardGrids(root: Element): void {
  const prose = proseLength(root);
  for (const el of Array.from(root.querySelectorAll('ul, ol, div, section'))) {
    if (root.contains(el) && !el.querySelector('h1') && isCardGrid(el) && proseLength(el) < prose / 3) el.remove();
  }
}
