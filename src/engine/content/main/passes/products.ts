/**
 * Product pages: from the title on, reviews out, the product's named description blocks and price
 * kept, its JSON-LD description added when the page lacks it.
 */
import { ancestors, normalText, opening, paragraphProse, textLength, words } from '../dom.js';
import { removeNamed } from './furniture.js';
import { DESCRIPTION_NAMES, DETAIL_NAMES, PRICE_NAME, REVIEWS } from '../rules/names.js';
import { DETAIL_BLOCK, JSONLD_DESCRIPTION, JSONLD_DESCRIPTION_PROBE, LISTING_PRICES, PRICE_TEXT, PRODUCT_DESCRIPTION, STORY_ABOVE_TITLE } from '../rules/thresholds.js';
import { holds, titleHeading } from '../titles.js';

/** Customers' reviews of a product: what others say of it, not the product's title, price, description and specifications. */
export function removeReviews(root: Element): void {
  removeNamed(root, (names) => names.some((w) => REVIEWS.test(w)));
}

/**
 * A product's page starts at its name: what a shop puts above its title heading, beside the gallery, is its own
 * (promotions, searches, breadcrumbs, a sticky bar, a summary of the reviews). Images stay: the gallery is the
 * product's. Unless the product's story is told there, above the buy column, with more prose than below it.
 * Measured on WCXB's dev pages: +0.81 page-F1 (product 0.733 -> 0.740, 30 pages gained up to +0.18, one lost
 * 0.08, no other type changed); without the exception, a shop whose description opens its page lost 0.64.
 */
export function startAtTitle(content: Element): void {
  const title = titleHeading(content);
  if (!title) return;
  const above: Element[] = [];
  for (const el of [title, ...ancestors(title, content)]) {
    for (let sibling = el.previousElementSibling; sibling; sibling = sibling.previousElementSibling) above.push(sibling);
  }
  const storyAbove = above.reduce((sum, el) => sum + paragraphProse(el, () => true), 0);
  if (storyAbove >= STORY_ABOVE_TITLE && storyAbove > paragraphProse(content, () => true) - storyAbove) return;
  for (const el of above) if (textLength(el) > 0) el.remove();
}

/**
 * A product page's own text: its title, price, description, specifications and details, without the buy box
 * around them (variants, quantities, delivery, returns, payment plans, seller badges,
 * "Loading..."). Only when the page names its description blocks and they hold most
 * of the region's paragraphs: a brand's long product story told outside them keeps
 * the region. Measured on WCXB's dev product pages (0.660 -> 0.676): paragraphs outside
 * up to as much as inside did best; a quarter or four times did half as well.
 */
export function productEssentials(content: Element): Element | null {
  const title = titleHeading(content);
  // The prices of many products: a category page that declares its products, not one product.
  if (prices(content, title).length >= LISTING_PRICES) return null;
  const isDescription = (el: Element) => el.getAttribute('itemprop') === 'description' || words(el).some((word) => DESCRIPTION_NAMES.test(word));
  const found = Array.from(content.querySelectorAll('[class], [id], [itemprop]')).filter((el) => isDescription(el) && !holds(el, title));
  const descriptions = found.filter((el) => !found.some((other) => other !== el && other.contains(el)));
  if (descriptions.reduce((sum, el) => sum + textLength(el), 0) < PRODUCT_DESCRIPTION) return null;
  if (paragraphProse(content, (el) => !descriptions.some((d) => d.contains(el))) > paragraphProse(content, (el) => descriptions.some((d) => d.contains(el)))) {
    return null;
  }
  const root = content.ownerDocument.createElement('div');
  if (title) root.append(title.cloneNode(true));
  const price = priceOf(content, title);
  if (price) root.append(price);
  for (const el of descriptions) root.append(el.cloneNode(true));
  return root;
}

/** Short blocks named "price" that hold a number, outermost first. */
export function prices(content: Element, title: Element | null): Element[] {
  const named = Array.from(content.querySelectorAll('[itemprop="price"], [class], [id]')).filter(
    (el) => !holds(el, title) && (el.getAttribute('itemprop') === 'price' || words(el).some((word) => PRICE_NAME.test(word))) && /\d/.test(normalText(el)) && textLength(el) <= PRICE_TEXT,
  );
  return named.filter((el) => !named.some((other) => other !== el && other.contains(el)));
}

/** The product's price, as a paragraph. */
export function priceOf(content: Element, title: Element | null): Element | null {
  const [first] = prices(content, title);
  if (!first) return null;
  const p = content.ownerDocument.createElement('p');
  p.textContent = normalText(first);
  return p;
}

/**
 * A product's price under its title, when Readability's pick left it out with the buy box: a product's
 * page is its title, price, description and details (as productEssentials keeps them). WCXB's truths
 * mostly leave prices out: on its dev pages this cost 0.004 page-F1 over three pages.
 */
export function withPrice(picked: Element, content: Element): Element {
  const price = priceOf(content, titleHeading(content));
  if (!price || normalText(picked).includes(normalText(price))) return picked;
  const title = picked.querySelector('h1');
  if (title) title.after(price);
  else picked.prepend(price);
  return picked;
}

/**
 * Whether Readability's pick of a product's page kept every block named for the product's details (description,
 * specifications, features, overview, comparison, attributes). When it did, what it left out is the buy box
 * (variants, offers, delivery) and the shop's blocks around it. Measured on WCXB's dev pages, with a pick that holds
 * three quarters of the prose: +0.40 page-F1 (six products and a listing, up to +0.14; none losing more than
 * 0.001), where picking without this test also gained 0.38 but lost 0.22 on pages whose feature grids and
 * comparison tables the pick dropped (a shop's category page that sells, a service's overview). Half of the prose:
 * +0.74 more (nine pages, three losing up to 0.09); three fifths +0.30, two fifths +0.92, and below that pages lose
 * up to 0.76. A block counts from a line of text (20 characters): a short specifications table too.
 */
export function keepsProductDetails(picked: Element, content: Element): boolean {
  const pickedText = normalText(picked);
  const details = Array.from(content.querySelectorAll('[class], [id]')).filter(
    (el) => textLength(el) >= DETAIL_BLOCK && words(el).some((word) => DESCRIPTION_NAMES.test(word) || DETAIL_NAMES.test(word)),
  );
  return details.every((el) => pickedText.includes(opening(el)));
}

/** The fields of a JSON-LD node addProductDescription reads. */
interface JsonLdNode {
  '@type'?: unknown;
  '@graph'?: unknown;
  description?: unknown;
}

/**
 * A product's description is often only in its JSON-LD (the visible one sits in a
 * tab filled by script, or is cut short): when the content lacks it, it is added.
 */
export function addProductDescription(jsonLd: string[], root: Element): void {
  // Letters and digits only: in the page's text, the items of a list run together ("Low FatNo Added Salt").
  const squash = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const seen = squash(root.textContent || '');
  for (const text of jsonLd) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      continue;
    }
    // A JSON-LD node is read for two fields; whatever else it is (a string, a number), they read undefined.
    const graph = ((data as JsonLdNode | null)?.['@graph'] ?? []) as Iterable<unknown>;
    const items: unknown[] = Array.isArray(data) ? data : [data, ...graph];
    for (const entry of items) {
      const item = entry as JsonLdNode | null | undefined;
      const type = item?.['@type'];
      if (!item || !(type === 'Product' || (Array.isArray(type) && type.includes('Product')))) continue;
      const description = typeof item.description === 'string' ? item.description.replace(/\s+/g, ' ').trim() : '';
      if (description.length < JSONLD_DESCRIPTION || seen.includes(squash(description).slice(0, JSONLD_DESCRIPTION_PROBE))) continue;
      const p = root.ownerDocument.createElement('p');
      p.textContent = description;
      root.appendChild(p);
      return;
    }
  }
}
