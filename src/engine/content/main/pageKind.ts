/**
 * What a page says it is (an article, a thread, one product's page, or nothing), read once from
 * the live page before the passes run: its JSON-LD, Open Graph, microdata, generator, address and
 * buy buttons. The passes read these facts; none of them changes the live page.
 */
import { normalText, words } from './dom.js';
import { PRODUCT_TITLE_NAME } from './rules/names.js';
import { FORUM_ROOT_IDS, FORUM_SOFTWARE, namesOf } from './rules/sites.js';
import { chooseLanguage, phrasesFor, type PagePhrases } from './rules/languages.js';
import { ARTICLE_TYPES, DISCUSSION_TYPES, FORUM_HOST, FORUM_NAME, PRODUCT_TYPES, THREAD_PATH } from './rules/pageTypes.js';

/** The text of each JSON-LD block of the live page. */
export const jsonLdTexts = (page: Document) =>
  Array.from(page.querySelectorAll('script[type="application/ld+json"]')).map((script) => script.textContent || '');

/** Whether the page says it is an article, in JSON-LD or Open Graph (doc generators wrap pages in <article> too). */
export function declaresArticle(page: Document, jsonLd: string[]): boolean {
  if (declares(jsonLd, ARTICLE_TYPES)) return true;
  return /article/i.test(page.querySelector('meta[property="og:type"]')?.getAttribute('content') || '');
}

/** The page's own address, as it says (canonical link, og:url): where a thread's address tells it is one. */
export function declaredAddress(page: Document): URL | null {
  const href = page.querySelector('link[rel~="canonical"]')?.getAttribute('href') || page.querySelector('meta[property="og:url"]')?.getAttribute('content') || '';
  try {
    return href ? new URL(href, page.baseURI) : null;
  } catch {
    return null;
  }
}

/** Forum software by the name its generator tag gives. */
const FORUM_GENERATOR = new RegExp(namesOf(FORUM_SOFTWARE).join('|'), 'i');

/** Forum software that says its name or puts the thread at a forum's address, or a Q&A page's question-and-answers layout. */
export function isForum(page: Document): boolean {
  const generator = page.querySelector('meta[name="generator"]')?.getAttribute('content') || '';
  if (FORUM_GENERATOR.test(generator)) return true;
  if (FORUM_ROOT_IDS.some(({ html, body }) => (html !== undefined && page.documentElement.id === html) || (body !== undefined && page.body?.id === body))) return true;
  const address = declaredAddress(page);
  if (address && (FORUM_HOST.test(address.hostname) || FORUM_NAME.test(address.hostname) || THREAD_PATH.test(address.pathname + address.search))) return true;
  return page.querySelector('#question, .question') !== null && page.querySelector('#answers, .answer') !== null;
}

/**
 * Whether the page is an article that reviews products: its JSON-LD says it is an article (not
 * Open Graph alone, which WordPress sets on a shop's product pages too), and it is not one
 * product's page. It declares the products it reviews, and its blocks named for a review are
 * its own text: a magazine's "best appliances of the year" lost each product's section. Measured
 * on WCXB's dev pages: +0.78 page-F1, that page 0.19 -> 0.97, no other page moved by 0.002.
 */
export const reviewsProducts = (jsonLd: string[], isProduct: boolean) => !isProduct && declares(jsonLd, ARTICLE_TYPES);

/** Whether the page says it is one product's page (not a category of many): JSON-LD, Open Graph or microdata. */
export function declaresOneProduct(page: Document, jsonLd: string[]): boolean {
  const lists = declares(jsonLd, ['ItemList', 'CollectionPage', 'OfferCatalog', 'SearchResultsPage']);
  if (declares(jsonLd, ['Product', 'ProductGroup']) && !lists) return true;
  const og = page.querySelector('meta[property="og:type"]')?.getAttribute('content') || '';
  if (/^(og:)?product(\.item)?$|[:_](item|product)$/i.test(og.trim())) return true;
  return page.querySelectorAll('[itemtype$="schema.org/Product"]').length === 1;
}

/**
 * A product's page that says nothing of itself but names its h1 (or what the h1 holds) as the product's
 * title. On WCXB's dev pages, those whose h1 is named so are all products; the rule changed 6 of them:
 * +0.34 page-F1 (Amazon's reviews gone), one page -0.008.
 */
export function namesProductTitle(page: Document): boolean {
  const named = (el: Element) => PRODUCT_TITLE_NAME.test(words(el).join(' '));
  return Array.from(page.querySelectorAll('h1')).some((h1) => named(h1) || Array.from(h1.children).some(named));
}

/** A product's page that says nothing of itself: one "Add to basket" button (two with a sticky bar), not one per card. */
export function sellsOneThing(page: Document): boolean {
  const label = (el: Element) => normalText(el) || el.getAttribute('value') || '';
  const buttons = Array.from(page.querySelectorAll('button, input[type="submit"]')).filter((el) => /^(add to (cart|basket|bag)|buy (it )?now)$/i.test(label(el).trim()));
  return buttons.length >= 1 && buttons.length <= 2;
}

/** Whether one of the page's JSON-LD blocks (`jsonLd`, their texts) has an @type among `types`. */
export function declares(jsonLd: string[], types: string[]): boolean {
  const pattern = new RegExp(`"@type"\\s*:\\s*\\[?\\s*"(${types.join('|')})"`);
  return jsonLd.some((text) => pattern.test(text));
}

/** What a page says it is: an article, a thread, one product's page, or nothing. */
export type PageKind = 'article' | 'thread' | 'product' | 'nothing';

/** What the page says of itself, as the passes need it. */
export interface PageFacts {
  /** The text of each JSON-LD block. */
  jsonLd: string[];
  /** A forum thread or a Q&A page: its replies are its content. */
  isThread: boolean;
  /** Its JSON-LD declares a Product (one or several). */
  declaresProduct: boolean;
  /** A shop's product page that declares nothing (no JSON-LD, Open Graph or microdata), known by its one buy button or by the name of its title. */
  sells: boolean;
  /** One product's page, declared or known by `sells`. */
  isProduct: boolean;
  says: PageKind;
  /** Its language (ISO 639-1: "de", "fr"), as it declares or its text says (pageLanguage); '' when neither tells. */
  language: string;
  /** The phrase rules of its language (English's beside its own); no comment headings on a thread, whose replies are its content. */
  phrases: PagePhrases;
}

export function readPage(page: Document): PageFacts {
  const jsonLd = jsonLdTexts(page);
  const isThread = declares(jsonLd, DISCUSSION_TYPES) || isForum(page);
  const sells = sellsOneThing(page) || namesProductTitle(page);
  const isProduct = declaresOneProduct(page, jsonLd) || sells;
  const says: PageKind = declaresArticle(page, jsonLd) ? 'article' : isThread ? 'thread' : isProduct ? 'product' : 'nothing';
  const language = pageLanguage(page);
  const own = phrasesFor(language);
  const phrases = isThread && own.comments ? { ...own, comments: null } : own;
  return { jsonLd, isThread, declaresProduct: declares(jsonLd, PRODUCT_TYPES), sells, isProduct, says, language, phrases };
}

/** How many of the page's paragraphs, and how much of their text, the guess of its language reads: enough words, cheaply. */
const SAMPLE_PARAGRAPHS = 80;
const SAMPLE_CHARS = 6000;

/**
 * The page's language, decided once before the passes: what it declares (html lang, og:locale, the
 * Content-Language meta), unless the text of its paragraphs says clearly it is another (see chooseLanguage).
 */
export function pageLanguage(page: Document): string {
  const metas = Array.from(page.querySelectorAll('meta'));
  const meta = (attribute: string, value: string) => metas.find((m) => (m.getAttribute(attribute) || '').toLowerCase() === value)?.getAttribute('content');
  const declared = [page.documentElement?.getAttribute('lang'), meta('property', 'og:locale'), meta('http-equiv', 'content-language'), meta('name', 'language')];
  let sample = '';
  for (const p of Array.from(page.querySelectorAll('p')).slice(0, SAMPLE_PARAGRAPHS)) {
    sample += ` ${p.textContent || ''}`;
    if (sample.length >= SAMPLE_CHARS) break;
  }
  return chooseLanguage(declared, sample.slice(0, SAMPLE_CHARS));
}
