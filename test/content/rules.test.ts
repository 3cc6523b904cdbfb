/**
 * What a page says it is (src/engine/content/main/pageKind.ts) and the phrase tables
 * (src/engine/content/main/rules/phrases.ts), on linkedom: milliseconds, no browser.
 */
import { describe, expect, it } from 'vitest';
import { withNodeDocument } from '../../src/engine/content/nodeDom.js';
import { readPage, reviewsProducts, type PageFacts } from '../../src/engine/content/main/pageKind.js';
import { BOILERPLATE, BOILERPLATE_LINES, ELSEWHERE_HEADING, PRICE, REVIEWS_HEADING, WHEN_LINE } from '../../src/engine/content/main/rules/phrases.js';

/** What readPage says of a page with `head` and `body`, served at `url`. */
function factsOf(head: string, body = '<main><h1>Title</h1><p>Text.</p></main>', url = 'http://127.0.0.1/page'): PageFacts {
  return withNodeDocument(`<!doctype html><html lang="en"><head><title>Title</title>${head}</head><body>${body}</body></html>`, url, readPage);
}

const jsonLd = (type: string) => `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': type, name: 'Title' })}</script>`;

describe('pageKind (readPage)', () => {
  it('reads an article, a thread, a product and a page that says nothing from what each declares', () => {
    const says = (head: string, body?: string) => factsOf(head, body).says;
    expect(says(jsonLd('NewsArticle'))).toBe('article');
    expect(says('<meta property="og:type" content="article">')).toBe('article');
    expect(says(jsonLd('DiscussionForumPosting'))).toBe('thread');
    expect(says(jsonLd('QAPage'))).toBe('thread');
    expect(says(jsonLd('Product'))).toBe('product');
    expect(says('')).toBe('nothing');
  });

  it("knows a thread by its forum's address or software, and a Q&A page by its layout", () => {
    expect(factsOf('<link rel="canonical" href="https://www.growersforum.example/seed-starting/4821-windowsill.html">').isThread).toBe(true);
    expect(factsOf('<link rel="canonical" href="https://community.example.com/t/topic/4821">').isThread).toBe(true);
    expect(factsOf('<meta name="generator" content="Discourse 3.2">').isThread).toBe(true);
    expect(factsOf('', '<div id="question"><p>Why?</p></div><div id="answers"><div class="answer"><p>Because.</p></div></div>').isThread).toBe(true);
    expect(factsOf('<link rel="canonical" href="https://www.northwind.example/journal/tidy-garage">').isThread).toBe(false);
  });

  it("knows one product's page that declares nothing by its one buy button, not a category's buttons on every card", () => {
    expect(factsOf('', '<main><h1>Mug</h1><p>$60.00</p><button>Add to cart</button></main>')).toMatchObject({ sells: true, isProduct: true, says: 'product', declaresProduct: false });
    const cards = Array.from({ length: 6 }, (_, i) => `<li><a href="/p/${i}">Mug ${i}</a><button>Add to cart</button></li>`).join('');
    expect(factsOf('', `<main><h1>Mugs</h1><ul>${cards}</ul></main>`)).toMatchObject({ sells: false, isProduct: false, says: 'nothing' });
  });

  it('takes a page that declares a list of products for no one product', () => {
    const head = `${jsonLd('Product')}${jsonLd('ItemList')}`;
    expect(factsOf(head)).toMatchObject({ declaresProduct: true, isProduct: false });
  });

  it('knows an article that reviews products: it declares an article, and is no product page', () => {
    expect(reviewsProducts([JSON.stringify({ '@type': 'Article' }), JSON.stringify({ '@type': 'Product' })], false)).toBe(true);
    expect(reviewsProducts([JSON.stringify({ '@type': 'Article' })], true)).toBe(false);
    expect(reviewsProducts([JSON.stringify({ '@type': 'Product' })], false)).toBe(false);
  });
});

describe('phrases', () => {
  it('BOILERPLATE matches its lines whole, case aside, an arrow after one too', () => {
    const lines = [
      'Sort by: Best match',
      'Table of contents',
      'TABLE OF CONTENTS ›',
      'Best Seller',
      'Skip to search results',
      'Showing 1 – 24 of 311 results',
      'Last edited by mkowalski: Mar 3, 2025',
      'Posts: 710',
      '12 replies',
      'You need to enable JavaScript to run this app.',
      'Powered by Northwind Cloud',
    ];
    expect(lines.filter((line) => !BOILERPLATE.test(line))).toEqual([]);
  });

  it('BOILERPLATE never matches a sentence that only holds one of its phrases', () => {
    const sentences = [
      'The table of contents of this book lists twelve chapters.',
      'Our best sellers of 2024, tested by the team',
      'Sort the seeds by size before you sow them.',
      'He registered 42 patents.',
      'We skip to the good part: planting out.',
    ];
    expect(sentences.filter((sentence) => BOILERPLATE.test(sentence))).toEqual([]);
  });

  it('BOILERPLATE_LINES holds one phrase a line, each a valid pattern of its own', () => {
    expect(BOILERPLATE_LINES.length).toBeGreaterThan(20);
    for (const line of BOILERPLATE_LINES) {
      expect(() => new RegExp(`^(${line})$`), line).not.toThrow();
      expect(line, 'a phrase is not anchored alone: BOILERPLATE anchors them all').not.toMatch(/^\^|\$$/);
    }
  });

  it("WHEN_LINE matches a listing's line of how long ago or how long to read, not a sentence", () => {
    for (const line of ['5 hours ago', 'Anthony Ha 13 hours ago', '4 min read']) expect(WHEN_LINE.test(line), line).toBe(true);
    expect(WHEN_LINE.test('Two years ago we moved the allotment to the south side of the hill, where the soil drains well.')).toBe(false);
  });

  it('ELSEWHERE_HEADING and REVIEWS_HEADING open sections of other things and of reviews, not the page\'s own sections', () => {
    for (const heading of ['You may also like', 'Related posts', 'Customers who viewed this item also viewed', 'Similar threads']) expect(ELSEWHERE_HEADING.test(heading), heading).toBe(true);
    for (const heading of ['Customer Reviews', 'Ratings and reviews', 'What our customers say']) expect(REVIEWS_HEADING.test(heading), heading).toBe(true);
    for (const heading of ['Keeping a starter', 'How to choose a running shoe']) {
      expect(ELSEWHERE_HEADING.test(heading) || REVIEWS_HEADING.test(heading), heading).toBe(false);
    }
  });

  it('PRICE reads a price as cards show it, in several currencies', () => {
    for (const price of ['$19.99', '€ 82', '82 €', '149 kr', '20 zł']) expect(PRICE.test(price), price).toBe(true);
    expect(PRICE.test('Size 42')).toBe(false);
  });
});
