/**
 * An article's facts apart from its body (issue 58): publishedTime, modifiedTime, author, language and
 * siteName in the page's metadata, from meta tags, JSON-LD, microdata and <time>. On linkedom, milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { withNodeDocument } from '../../src/engine/content/nodeDom.js';
import { articleFacts } from '../../src/engine/content/inPage/articleMeta.js';
import { metadataOf } from '../../src/engine/content/inPage/metadata.js';

const metadata = (head: string, body = '', html = '<html>') =>
  withNodeDocument(`<!doctype html>${html}<head><meta charset="utf-8"><title>T</title>${head}</head><body>${body}</body></html>`, 'http://127.0.0.1/a', (doc) => metadataOf(doc, articleFacts(doc)));

describe("an article's facts in metadata", () => {
  it('reads Open Graph and article meta tags', () => {
    const meta = metadata(
      '<meta property="article:published_time" content="2026-11-12T09:10:00+01:00"><meta property="article:modified_time" content="2026-11-13T10:00:00+01:00">' +
        '<meta name="author" content="Anna Weber"><meta property="og:site_name" content="Tagesblatt"><meta property="og:locale" content="de_DE">',
    );
    expect(meta).toMatchObject({ publishedTime: '2026-11-12T09:10:00+01:00', modifiedTime: '2026-11-13T10:00:00+01:00', author: 'Anna Weber', siteName: 'Tagesblatt', language: 'de-DE' });
  });

  it('reads JSON-LD, in a @graph too: the article first, authors named, the publisher as the site', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', name: 'Le Quotidien' },
        {
          '@type': 'NewsArticle',
          datePublished: '2026-05-01T08:00:00Z',
          dateModified: '2026-05-02T08:00:00Z',
          author: [{ '@type': 'Person', name: 'Marie Dupont' }, { '@type': 'Person', name: 'Luc Martin' }, { '@type': 'Person', url: 'https://example.org/x' }],
          publisher: { '@type': 'Organization', name: 'Le Quotidien SA' },
          inLanguage: 'fr-FR',
        },
      ],
    };
    const meta = metadata(`<script type="application/ld+json">${JSON.stringify(ld)}</script><script type="application/ld+json">{not json</script>`);
    expect(meta).toMatchObject({ publishedTime: '2026-05-01T08:00:00Z', modifiedTime: '2026-05-02T08:00:00Z', author: 'Marie Dupont, Luc Martin', siteName: 'Le Quotidien SA', language: 'fr-FR' });
  });

  it("reads what the page shows: microdata, the article's <time>, an author link, the lang attribute", () => {
    const meta = metadata(
      '',
      '<aside><time datetime="2020-01-01">teaser</time></aside><article><h1>Headline</h1><p>By <a rel="author" href="/p/ana">Ana Souza</a>, ' +
        '<time datetime="2026-03-04T05:06:00Z">4 March</time></p><p>Text.</p></article>',
      '<html lang="pt-BR">',
    );
    expect(meta).toMatchObject({ publishedTime: '2026-03-04T05:06:00Z', author: 'Ana Souza', language: 'pt-BR' });
    expect(meta.modifiedTime).toBeUndefined();
    expect(meta.siteName).toBeUndefined();
  });

  it('takes the lang attribute over what the meta tags say, and a named author over a profile address', () => {
    const meta = metadata('<meta http-equiv="content-language" content="en"><meta property="article:author" content="https://example.org/people/x"><meta name="parsely-author" content="Jo Lee">', '', '<html lang="es">');
    expect(meta.language).toBe('es');
    expect(meta.author).toBe('Jo Lee');
  });

  it('gives none of them on a page that says nothing, and no <time> of a teaser list', () => {
    const meta = metadata('', '<main><h2>Latest</h2><ul><li><time datetime="2026-01-01">1 Jan</time></li><li><time datetime="2026-01-02">2 Jan</time></li></ul></main>');
    for (const field of ['publishedTime', 'modifiedTime', 'author', 'language', 'siteName']) expect(meta[field]).toBeUndefined();
  });
});
