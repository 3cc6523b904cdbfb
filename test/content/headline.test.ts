/**
 * The headline pass (issue 39 §3): main content opens with the page's headline as a level-1 heading:
 * the visible h1 the title names, else the title without the site's name. On linkedom, milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { withNodeDocument } from '../../src/engine/content/nodeDom.js';
import { extractInNode } from '../../src/engine/content/inNode.js';
import { headlineOf, openWithHeadline, titleWithoutSite } from '../../src/engine/content/main/passes/headline.js';
import { HIDDEN } from '../../src/engine/content/main/marks.js';

function onPage<T>(body: string, read: (doc: Document) => T, head = '<title>Test page</title>'): T {
  return withNodeDocument(`<!doctype html><html lang="en"><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`, 'http://127.0.0.1/page', read);
}

const OPTIONS = { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: false };
const prose = (topic: string) =>
  Array.from({ length: 5 }, (_, i) => `<p>${topic}, part ${i + 1}: a paragraph long enough to read as prose, with a sentence that runs on past a hundred characters.</p>`).join('');

describe('titleWithoutSite', () => {
  const title = (text: string, head = '') => onPage('', (doc) => titleWithoutSite(doc), `<title>${text}</title>${head}`);

  it('leaves the site name out, before or after the headline, whatever the separator', () => {
    expect(title('Tomatoes on a balcony | Garden Weekly', '<meta property="og:site_name" content="Garden Weekly">')).toBe('Tomatoes on a balcony');
    expect(title('Garden Weekly » Tomatoes on a balcony', '<meta property="og:site_name" content="Garden Weekly">')).toBe('Tomatoes on a balcony');
    expect(title('Tomatoes on a balcony - Garden Weekly')).toBe('Tomatoes on a balcony');
    expect(title('Tomatoes on a balcony — GW')).toBe('Tomatoes on a balcony');
  });

  it('keeps a title without a separator, and hyphens inside words, whole', () => {
    expect(title('COVID-19: what we know')).toBe('COVID-19: what we know');
    expect(title('Sci-fi books of the year')).toBe('Sci-fi books of the year');
  });
});

describe('headlineOf', () => {
  it('is the visible h1 the title names, else the title without the site', () => {
    expect(onPage('<h1>Tomatoes on a balcony</h1>', (doc) => headlineOf(doc, doc), '<title>Tomatoes on a balcony | GW</title>')).toBe('Tomatoes on a balcony');
    expect(onPage('<h1>Garden Weekly</h1>', (doc) => headlineOf(doc, doc), '<title>Tomatoes on a balcony | Garden Weekly</title>')).toBe('Tomatoes on a balcony');
    expect(
      onPage(`<h1 ${HIDDEN}>Tomatoes on a balcony today</h1>`, (doc) => headlineOf(doc, doc), '<title>Tomatoes on a balcony today | GW</title>'),
    ).toBe('Tomatoes on a balcony today');
  });
});

describe('openWithHeadline', () => {
  const opened = (body: string, headline: string) =>
    onPage(body, (doc) => {
      const root = doc.body;
      openWithHeadline(root, headline);
      return Array.from(root.children, (el) => `${el.tagName}:${el.textContent}`);
    });

  it('adds the headline as an h1 when the content opens with text', () => {
    expect(opened('<p>First paragraph.</p>', 'Tomatoes')).toEqual(['H1:Tomatoes', 'P:First paragraph.']);
  });

  it('lets an opening h1 stand, whatever it says', () => {
    expect(opened('<div><h1>Growing tomatoes</h1></div><p>Text.</p>', 'Tomatoes on a balcony')).toEqual(['DIV:Growing tomatoes', 'P:Text.']);
  });

  it('moves the headline heading below a kicker to the top, as an h1, with its id', () => {
    const moved = onPage('<p>Gardening</p><h2 id="top">Tomatoes on a balcony</h2><p>Text.</p>', (doc) => {
      openWithHeadline(doc.body, 'Tomatoes on a balcony');
      return doc.body.innerHTML;
    });
    expect(moved).toBe('<h1 id="top">Tomatoes on a balcony</h1><p>Gardening</p><p>Text.</p>');
  });
});

describe('an article through the whole pipeline', () => {
  it('opens with "# Headline" although Readability leaves the title to the metadata', () => {
    const html = `<!doctype html><html lang="en"><head><title>Tomatoes on a balcony | Garden Weekly</title>
      <script type="application/ld+json">{"@type":"NewsArticle"}</script></head>
      <body><main><article><h1>Tomatoes on a balcony</h1>${prose('Tomatoes')}</article></main></body></html>`;
    const { markdown } = extractInNode(html, 'http://127.0.0.1/a', OPTIONS).result;
    expect(markdown.split('\n')[0]).toBe('# Tomatoes on a balcony');
    expect(markdown.match(/Tomatoes on a balcony/g)).toHaveLength(1);
  });
});
