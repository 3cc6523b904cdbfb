/**
 * The main-content passes one at a time (src/engine/content/main/passes/), on linkedom as the Node path
 * reads a page (withNodeDocument): a small page, the pass's own function, and what it removes and what
 * it keeps. Milliseconds each. The whole pipeline on whole pages is the corpus's (corpus.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { withNodeDocument } from '../../src/engine/content/nodeDom.js';
import { BLOCK } from '../../src/engine/content/main/marks.js';
import { articleOrRegion, isTeaser, picksArticle } from '../../src/engine/content/main/passes/article.js';
import { NOTHING_BUT_FURNITURE, neverSilentlyEmpty } from '../../src/engine/content/main/passes/fallback.js';
import { removeFurniture } from '../../src/engine/content/main/passes/furniture.js';
import { removeCardGrids, removeCardRepeats } from '../../src/engine/content/main/passes/grids.js';
import { productEssentials, removeReviews, startAtTitle } from '../../src/engine/content/main/passes/products.js';
import { region } from '../../src/engine/content/main/passes/region.js';
import { copiedShortRuns, removeRepeats, saidBlocks } from '../../src/engine/content/main/passes/repeats.js';
import { removeSectionsHeaded } from '../../src/engine/content/main/passes/sections.js';
import { removeCommentSections, removeOtherArticles, removePosterDetails } from '../../src/engine/content/main/passes/threads.js';
import { markHidden, removeHidden, separateBlocks } from '../../src/engine/content/main/passes/visibility.js';
import { ELSEWHERE_HEADING } from '../../src/engine/content/main/rules/phrases.js';

/** Runs `read` on `body` parsed as the Node path parses a page served at 127.0.0.1. */
function onPage<T>(body: string, read: (doc: Document) => T, title = 'Test page'): T {
  return withNodeDocument(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`, 'http://127.0.0.1/page', read);
}

/** The text of `node`, each text node apart (textContent runs the words of adjacent elements together). */
function text(node: Node | null): string {
  const parts: string[] = [];
  const visit = (n: Node) => (n.nodeType === 3 ? parts.push(n.textContent ?? '') : n.childNodes.forEach(visit));
  if (node) visit(node);
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

/** `n` paragraphs of prose on `topic`, each well over a hundred characters. */
const prose = (topic: string, n = 4) =>
  Array.from({ length: n }, (_, i) => `<p>${topic}, part ${i + 1}: a paragraph long enough to read as prose, with a sentence that runs on past a hundred characters and says something of its own.</p>`).join('');

describe('visibility (markHidden, removeHidden, separateBlocks)', () => {
  it('marks a hidden promotion, and keeps a closed <details> and a collapsed accordion panel, which are one click away', () => {
    onPage(
      `<main><h1>Growing tomatoes</h1>${prose('Sowing', 6)}
        <div style="display:none"><p>Join our club for 10% off</p></div>
        <details><summary>Which compost?</summary><p>Peat-free compost with grit.</p></details>
        <h3><button>How deep to plant?</button></h3><div style="display:none">${prose('Planting depth', 2)}</div></main>`,
      (doc) => {
        markHidden(doc);
        removeHidden(doc.body);
        const kept = text(doc.body);
        expect(kept).not.toContain('Join our club');
        expect(kept).toContain('Peat-free compost with grit.');
        expect(kept).toContain('Planting depth, part 2');
        expect(kept).toContain('Sowing, part 6');
      },
    );
  });

  it('sets apart an inline element marked as shown as a block, so its words do not run into the next', () => {
    onPage(`<a href="/p"><span ${BLOCK}>Merrell</span><span ${BLOCK}>Moab 3</span></a>`, (doc) => {
      const words = () => (doc.body.textContent ?? '').replace(/\s+/g, ' ').trim();
      expect(words()).toBe('MerrellMoab 3');
      separateBlocks(doc);
      expect(words()).toBe('Merrell Moab 3');
      expect(doc.querySelector(`[${BLOCK}]`)).toBeNull();
    });
  });
});

describe('region', () => {
  it("starts from the page's <main> when it holds a fair share of the text, not the body with its header and footer", () => {
    onPage(`<header><nav><a href="/">Home</a></nav></header><main id="content"><h1>Title</h1>${prose('Body')}</main><footer>All rights reserved</footer>`, (doc) => {
      const r = region(doc);
      expect(r.id).toBe('content');
      expect(text(r)).toContain('Body, part 4');
      expect(text(r)).not.toContain('All rights reserved');
    });
  });

  it('starts from the body when <main> holds little of the text', () => {
    onPage(`<main><p>Tiny.</p></main><div class="post"><h1>Title</h1>${prose('Outside main')}</div>`, (doc) => {
      const r = region(doc);
      expect(r.tagName).toBe('BODY');
      expect(text(r)).toContain('Outside main, part 1');
    });
  });

  it("reads the <noscript> copy of a page that shows only its header without scripts", () => {
    onPage(`<header><a href="/">Forums</a></header><section id="main"></section><noscript><div><h1>Thread</h1>${prose('Post')}</div></noscript>`, (doc) => {
      const r = region(doc);
      expect(text(r)).toContain('Post, part 3');
      expect(r.querySelector('noscript')).toBeNull();
    });
  });
});

describe('furniture (removeFurniture)', () => {
  it('removes navigation, sidebar, cookie banner, share bar and boilerplate lines, and keeps the title and the prose', () => {
    onPage(
      `<div id="root"><nav><a href="/a">Shop</a><a href="/b">Journal</a></nav>
        <div class="cookie-banner"><p>We use cookies to enhance your browsing experience.</p><button>Accept All</button></div>
        <article><h1>Growing tomatoes</h1>${prose('Sowing')}
          <div class="share-bar"><a href="https://facebook.example/">Facebook</a></div><p>Table of contents</p></article>
        <aside><h2>Recent Posts</h2><ul><li><a href="/x">Ten tips for a tidy garage</a></li></ul></aside></div>`,
      (doc) => {
        const root = doc.getElementById('root')!;
        removeFurniture(root);
        const kept = text(root);
        expect(kept).toContain('Growing tomatoes');
        expect(kept).toContain('Sowing, part 4');
        for (const gone of ['Shop', 'We use cookies', 'Accept All', 'Facebook', 'Table of contents', 'Recent Posts', 'tidy garage']) expect(kept).not.toContain(gone);
      },
    );
  });

  it('keeps a wrapper named like furniture that holds the article ("content-sidebar-wrap")', () => {
    onPage(`<div id="root"><div class="content-sidebar-wrap"><h1>Growing tomatoes</h1>${prose('Sowing')}</div><div class="sidebar"><p>Follow us</p></div></div>`, (doc) => {
      const root = doc.getElementById('root')!;
      removeFurniture(root);
      expect(text(root)).toContain('Sowing, part 1');
      expect(text(root)).not.toContain('Follow us');
    });
  });
});

describe('sections (removeSectionsHeaded)', () => {
  it('removes a "You may also like" section, heading and all, and keeps the sections of the page', () => {
    onPage(
      `<div id="root"><h2>Keeping a starter</h2>${prose('Starter', 1)}
        <div class="block"><h2>You may also like</h2><ul><li>Rye loaf</li><li>Seeded batch</li></ul></div>
        <h2>Shaping the loaf</h2>${prose('Shaping', 1)}<h3>Related articles</h3><p>Pizza dough</p><h2>Baking</h2><p>Bake hot.</p></div>`,
      (doc) => {
        const root = doc.getElementById('root')!;
        removeSectionsHeaded(root, ELSEWHERE_HEADING);
        const kept = text(root);
        for (const stays of ['Keeping a starter', 'Starter, part 1', 'Shaping the loaf', 'Baking', 'Bake hot.']) expect(kept).toContain(stays);
        for (const gone of ['You may also like', 'Rye loaf', 'Related articles', 'Pizza dough']) expect(kept).not.toContain(gone);
      },
    );
  });
});

describe('repeats (removeRepeats, copiedShortRuns)', () => {
  const long = 'Make each cup of tea or coffee feel special with a wheel-thrown mug in a white speckle finish.';
  it('removes a block said again, and keeps a short line said again', () => {
    onPage(`<div id="root"><div class="desktop"><p>${long}</p><p>Ships within two days.</p></div><div class="mobile"><p>${long}</p></div><p>Order by noon for dispatch the same day.</p><p>Ships within two days.</p></div>`, (doc) => {
      const root = doc.getElementById('root')!;
      removeRepeats(root);
      expect(text(root).split(long).length - 1).toBe(1);
      expect(text(root).split('Ships within two days.').length - 1).toBe(2);
    });
  });

  it("finds a run of short lines said again in the same order (a product's details twice), not a line alone", () => {
    const lines = ['Product code: ALD-00601', 'UPC: 722325006016', 'Package quantity: 148 g'];
    const list = `<ul>${lines.map((l) => `<li>${l}</li>`).join('')}</ul>`;
    onPage(`<div id="root"><div class="buy-box">${list}<p>In stock</p></div><div class="details"><p>In stock</p>${list}</div></div>`, (doc) => {
      const copied = copiedShortRuns(saidBlocks(doc.getElementById('root')!));
      expect(copied.map(text)).toEqual(lines);
      expect(copied.every((el) => el.closest('.details'))).toBe(true);
    });
  });
});

describe('grids (removeCardGrids, removeCardRepeats)', () => {
  const card = (name: string, price: string, again = '') =>
    `<li><a href="/p/${name.replace(/\W+/g, '-')}"><img src="/i.jpg" alt="${name}"><span>${name}</span></a>${again}<span>${price}</span></li>`;
  it("removes a grid of other products' cards and keeps the product's prose", () => {
    onPage(`<div id="root"><h1>Chain 520</h1>${prose('Chain')}<h2>People who viewed</h2><ul>${['A', 'B', 'C', 'D'].map((n) => card(`Chain ${n}`, '$10')).join('')}</ul></div>`, (doc) => {
      const root = doc.getElementById('root')!;
      removeCardGrids(root);
      expect(text(root)).toContain('Chain, part 4');
      expect(text(root)).not.toContain('Chain B');
    });
  });

  it("says each card's name once where the card says it twice, and keeps each card", () => {
    onPage(`<div id="root"><ul>${['Tempo', 'Breeze', 'Summit'].map((n) => card(n, '$89', `<div class="hover">${n}</div>`)).join('')}</ul></div>`, (doc) => {
      const root = doc.getElementById('root')!;
      removeCardRepeats(root);
      expect(text(root)).toBe('Tempo $89 Breeze $89 Summit $89');
    });
  });
});

describe('threads (removePosterDetails, removeCommentSections, removeOtherArticles)', () => {
  it("removes what a forum adds about each poster, and keeps the poster's name and the post", () => {
    onPage(
      `<div id="root"><article class="message"><div class="message-user"><a href="/u/1">breadhead</a><div class="message-userExtras">Joined Jan 2019</div><span>13,539</span></div>
        <div class="message-body">${prose('Post', 1)}</div><div class="signature">Bake bread, not excuses.</div></article></div>`,
      (doc) => {
        const root = doc.getElementById('root')!;
        removePosterDetails(root);
        const kept = text(root);
        expect(kept).toContain('breadhead');
        expect(kept).toContain('Post, part 1');
        for (const gone of ['Joined', '13,539', 'Bake bread']) expect(kept).not.toContain(gone);
      },
    );
  });

  it("removes a blog's comment section and keeps the post", () => {
    onPage(`<div id="root"><article>${prose('Post', 2)}</article><div id="comments"><h2>3 thoughts on this</h2><p>Great post!</p></div></div>`, (doc) => {
      const root = doc.getElementById('root')!;
      removeCommentSections(root);
      expect(text(root)).toContain('Post, part 2');
      expect(text(root)).not.toContain('Great post!');
    });
  });

  it('removes the other posts of an endless blog beside the article the title heading is in', () => {
    const teaser = (n: number) => `<article class="post teaser"><h2>Next post ${n}</h2>${prose(`Next ${n}`, 1)}</article>`;
    onPage(
      `<div id="root"><article class="post"><h1>Smoky beans on toast</h1>${prose('Beans', 2)}</article>${teaser(1)}${teaser(2)}</div>`,
      (doc) => {
        const root = doc.getElementById('root')!;
        removeOtherArticles(root);
        expect(text(root)).toContain('Beans, part 2');
        expect(text(root)).not.toContain('Next post');
      },
      'Smoky beans on toast – Northwind Kitchen',
    );
  });
});

describe('products (removeReviews, startAtTitle, productEssentials)', () => {
  it("removes customers' reviews and keeps the product", () => {
    onPage(`<div id="root"><h1>Walnut Board</h1><p>$48.00</p>${prose('Board', 1)}<div class="reviews"><h2>Customer Reviews</h2><p>my knives love it</p></div></div>`, (doc) => {
      const root = doc.getElementById('root')!;
      removeReviews(root);
      expect(text(root)).toContain('$48.00');
      expect(text(root)).not.toContain('my knives love it');
    });
  });

  it("starts a product's page at its name, unless the product's story is told above it", () => {
    const page = (story: string) => `<main id="root">${story}<div class="promo"><p>Spend $50 and get 10% off</p></div><div class="info"><h1>Brass Desk Lamp</h1><p>$129.00</p></div></main>`;
    onPage(page(''), (doc) => {
      const root = doc.getElementById('root')!;
      startAtTitle(root);
      expect(text(root)).toBe('Brass Desk Lamp $129.00');
    });
    onPage(page(`<div class="story">${prose('Lamp story', 4)}</div>`), (doc) => {
      const root = doc.getElementById('root')!;
      startAtTitle(root);
      expect(text(root)).toContain('Spend $50');
      expect(text(root)).toContain('Lamp story, part 4');
    });
  });

  it("keeps a product's title, price and named description blocks, without the buy box", () => {
    onPage(
      `<div id="root"><h1>Blender 1400 W</h1><div class="price">$179.00</div><div class="buy-box"><p>Colour: Red</p><button>Add to cart</button><p>Free delivery Tuesday</p></div>
        <div class="description">${prose('Blender', 3)}</div></div>`,
      (doc) => {
        const essentials = productEssentials(doc.getElementById('root')!)!;
        const kept = text(essentials);
        for (const stays of ['Blender 1400 W', '$179.00', 'Blender, part 3']) expect(kept).toContain(stays);
        for (const gone of ['Colour: Red', 'Add to cart', 'Free delivery']) expect(kept).not.toContain(gone);
      },
    );
  });
});

describe('article (articleOrRegion, picksArticle, isTeaser)', () => {
  it("takes Readability's article over the region on an article, without the block of links beside it", () => {
    const links = `<div class="more">${Array.from({ length: 12 }, (_, i) => `<a href="/s/${i}">Other story ${i}</a> `).join('')}</div>`;
    onPage(`<div id="root"><h1>Growing tomatoes</h1><div class="body">${prose('Sowing', 6)}</div>${links}</div>`, (doc) => {
      const chosen = articleOrRegion(doc, doc.getElementById('root')!, 'article');
      expect(text(chosen)).toContain('Sowing, part 6');
      expect(text(chosen)).not.toContain('Other story');
    });
  });

  it('picks the article when it holds nine tenths of the prose, not when it holds half, on a page that says nothing', () => {
    onPage(`<div id="region"><div id="a">${prose('Main', 9)}</div><div id="b">${prose('Rest', 1)}</div></div><div id="c">${prose('Half', 3)}</div>`, (doc) => {
      const region = doc.getElementById('region')!;
      expect(picksArticle(doc.getElementById('a')!, region, 'nothing')).toBe(true);
      expect(picksArticle(doc.getElementById('b')!, region, 'nothing')).toBe(false);
    });
  });

  it('knows an excerpt cut short as a teaser, and a finished sentence as none', () => {
    onPage(`<p id="t">Our testers spent eleven months with the latest kettles … Read more</p><p id="s">Our testers spent eleven months with the latest kettles.</p>`, (doc) => {
      expect(isTeaser(doc.getElementById('t')!)).toBe(true);
      expect(isTeaser(doc.getElementById('s')!)).toBe(false);
    });
  });
});

describe('fallback (neverSilentlyEmpty)', () => {
  it('returns the main region without its furniture, with a warning, when the selection kept almost nothing', () => {
    onPage(`<div id="chosen"><p>Hi.</p></div><div id="untouched"><nav><a href="/">Home</a></nav><div class="banner">${prose('Services', 4)}</div></div>`, (doc) => {
      const result = neverSilentlyEmpty(doc.getElementById('chosen')!, () => doc.getElementById('untouched')!);
      expect(result.warning).toMatch(/^the main content found was only 3 characters/);
      expect(text(result.root)).toContain('Services, part 4');
      expect(text(result.root)).not.toContain('Home');
    });
  });

  it('returns the selection as it is when it holds enough, and says so when a page with text gave nothing', () => {
    onPage(`<div id="chosen">${prose('Kept', 3)}</div><div id="empty"></div><div id="furniture"><footer>All rights reserved</footer></div>`, (doc) => {
      const kept = neverSilentlyEmpty(doc.getElementById('chosen')!, () => doc.getElementById('chosen')!);
      expect(kept).toEqual({ root: doc.getElementById('chosen') });
      expect(neverSilentlyEmpty(doc.getElementById('empty')!, () => doc.getElementById('furniture')!).warning).toBe(NOTHING_BUT_FURNITURE);
    });
  });
});
