/**
 * The structuredData format's readers (src/engine/structured/) and the CSS schema
 * of extract --selectors, as pure functions on linkedom's DOM (the DOM they run on
 * in the engines' worker threads), with realistic pages from test/fixtures/structured.
 */
import { readFileSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { validateCssSchema } from '../src/api/cssSchema.js';
import { UsageError } from '../src/api/errors.js';
import { fillFromStructured } from '../src/engine/extract/fromStructured.js';
import { selectItems } from '../src/engine/structured/cssExtract.js';
import { structuredDataOf } from '../src/engine/structured/index.js';
import { jsonLdOf } from '../src/engine/structured/jsonLd.js';
import { microdataOf } from '../src/engine/structured/microdata.js';
import { rdfaOf } from '../src/engine/structured/rdfa.js';
import { readHtml } from '../src/engine/structured/readHtml.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/structured/${name}`, import.meta.url), 'utf8');
const dom = (html: string) => parseHTML(html).document as unknown as Document;

describe('JSON-LD', () => {
  it('keeps every block as written, @graph included, and counts the block that is not JSON', () => {
    const { items, invalid } = jsonLdOf(dom(fixture('shop-jsonld.html')));
    expect(invalid).toBe(1);
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({ '@type': 'Product', name: 'Trail Runner 2', offers: { price: 129.95, priceCurrency: 'EUR' } });
    expect(items[1]!['@graph']).toHaveLength(2);
    expect(items[1]).toMatchObject({ '@context': 'https://schema.org', '@graph': [{ '@id': 'https://shop.example/#org' }, { '@type': 'BreadcrumbList' }] });
  });

  it('reads a block that is an array as its items, and one wrapped in a comment', () => {
    const html = `<script type="application/ld+json">[{"@type":"Thing","name":"a"},{"@type":"Thing","name":"b"}]</script>
      <script type="application/ld+json; charset=utf-8"><!-- {"@type":"Event","name":"c"} --></script>`;
    expect(jsonLdOf(dom(html)).items.map((i) => i.name)).toEqual(['a', 'b', 'c']);
  });
});

describe('microdata', () => {
  it('nests items, follows itemref and takes each value where the spec says', () => {
    const [product, ...rest] = microdataOf(dom(fixture('shop-microdata.html')), 'https://homeware.example/catalog/kettles/k-200');
    expect(rest).toEqual([]);
    expect(product).toEqual({
      '@context': 'https://schema.org',
      '@type': 'Product',
      '@id': 'https://homeware.example/catalog/kettles/k-200',
      name: 'Kettle K-200',
      image: 'https://homeware.example/catalog/img/k200.jpg',
      sku: 'K200-STEEL',
      description: 'Brushed steel kettle, 1.7 litres, boils in three minutes.',
      brand: { '@type': 'Brand', name: 'Homely' },
      offers: {
        '@type': 'Offer',
        priceCurrency: 'USD',
        price: '49.00',
        availability: 'https://schema.org/InStock',
        url: 'https://homeware.example/catalog/kettles/k-200',
        priceValidUntil: '2026-12-31',
        gtin13: '4006381333931',
      },
      review: {
        '@type': 'Review',
        author: { '@type': 'Person', name: 'Jo Smith' },
        reviewRating: { '@type': 'Rating', ratingValue: '4' },
        reviewBody: 'Quick and quiet.',
      },
    });
  });

  it('makes several values of one property an array, and survives an itemref that points back at its item', () => {
    const html = `<div id="loop" itemscope itemtype="http://schema.org/Recipe" itemref="loop more">
      <span itemprop="recipeIngredient">flour</span><span itemprop="recipeIngredient">eggs</span></div>
      <p id="more" itemprop="name">Pancakes</p>`;
    expect(microdataOf(dom(html), 'https://x.example/')).toEqual([
      { '@context': 'https://schema.org', '@type': 'Recipe', recipeIngredient: ['flour', 'eggs'], name: 'Pancakes' },
    ]);
  });
});

describe('RDFa Lite', () => {
  it('reads vocab, typeof, property and resource; leaves Open Graph out', () => {
    expect(rdfaOf(dom(fixture('article-rdfa.html')), 'https://garden.example/blog/pruning')).toEqual([
      {
        '@context': 'https://schema.org',
        '@type': 'BlogPosting',
        '@id': 'https://garden.example/blog/pruning#post',
        headline: 'Spring pruning, a guide',
        datePublished: '2026-03-14',
        author: { '@type': 'Person', name: 'Ana Gardner', url: 'https://garden.example/authors/ana' },
        image: 'https://garden.example/img/pruning.jpg',
        articleBody: 'Cut above an outward-facing bud.',
        keywords: ['pruning', 'roses'],
      },
    ]);
  });

  it('expands the schema: prefix', () => {
    const html = `<div typeof="schema:Place"><span property="schema:name">Harbour</span></div>`;
    expect(rdfaOf(dom(html), 'https://x.example/')).toEqual([{ '@context': 'https://schema.org', '@type': 'Place', name: 'Harbour' }]);
  });
});

describe('structuredDataOf', () => {
  it('lists JSON-LD, then microdata, then RDFa, and warns of a block that is not JSON', () => {
    const html = fixture('shop-jsonld.html').replace('</main>', '<div itemscope itemtype="https://schema.org/Thing"><span itemprop="name">md</span></div></main>');
    const read = structuredDataOf(dom(html), 'https://shop.example/p/trail-runner-2');
    expect(read.items.map((i) => i['@type'] ?? '@graph')).toEqual(['Product', '@graph', 'Thing']);
    expect(read.warning).toMatch(/a JSON-LD block of the page is not valid JSON/);
  });

  it('reads a page without structured data as an empty list, without parsing it', () => {
    expect(readHtml('<p>nothing here</p>', 'https://x.example/', { structuredData: true })).toEqual({ structuredData: { items: [] } });
  });
});

describe('CSS schema (extract --selectors)', () => {
  const schema = validateCssSchema(JSON.parse(fixture('listing.selectors.json')));

  it('returns one item per repeated element, with nested, list, attribute and default fields', () => {
    expect(selectItems(dom(fixture('listing.html')), schema)).toEqual([
      { sku: 'L-100', title: 'Desk Lamp Classic', url: '/p/l-100', price: '$24.99', seller: { name: 'Bright Co', rating: '4.5' }, tags: [{ tag: 'led' }, { tag: 'dimmable' }] },
      { sku: 'L-200', title: 'Floor Lamp Arc', url: '/p/l-200', price: '$89.00', seller: { name: 'Lumo', rating: '4.1' }, tags: [{ tag: 'arc' }] },
      { sku: 'L-300', title: 'Clip Lamp Mini', url: '/p/l-300', price: null, seller: { name: 'Bright Co' }, tags: [] },
    ]);
  });

  it('reads table rows and the html type', () => {
    const rows = validateCssSchema({
      baseSelector: 'table.specs tr.row',
      fields: [
        { name: 'model', selector: 'td:nth-child(1)', type: 'text' },
        { name: 'cell', selector: 'td:nth-child(2)', type: 'html' },
      ],
    });
    expect(selectItems(dom(fixture('listing.html')), rows)).toEqual([
      { model: 'L-100', cell: '<td>8</td>' },
      { model: 'L-200', cell: '<td>15</td>' },
    ]);
  });

  it.each([
    [[], /selectors must be a JSON object/],
    [{ fields: [{ name: 'a', type: 'text' }] }, /selectors.baseSelector must be a CSS selector/],
    [{ baseSelector: 'li', fields: [] }, /selectors.fields must be a non-empty array/],
    [{ baseSelector: 'li', fields: [{ name: 'a', type: 'regex' }] }, /selectors.fields\[0\].type: "regex" is not one of text, attribute, html, nested, list, nested_list/],
    [{ baseSelector: 'li', fields: [{ name: 'a', type: 'attribute' }] }, /selectors.fields\[0\].attribute must name the attribute/],
    [{ baseSelector: 'li', fields: [{ name: 'a', type: 'nested' }] }, /selectors.fields\[0\].fields must be a non-empty array/],
    [{ baseSelector: 'li', fields: [{ name: 'a', type: 'text', selektor: 'p' }] }, /selectors.fields\[0\]: unknown key "selektor"/],
    [{ baseSelector: 'li', fields: [{ name: 'a', type: 'text' }, { name: 'a', type: 'html' }] }, /"a" is the name of an earlier field too/],
    [{ baseSelector: 'li[', fields: [{ name: 'a', type: 'text' }] }, /selectors.baseSelector: "li\[" is not a valid CSS selector/],
    [{ baseSelector: 'li', fields: [{ name: 'a', type: 'nested', selector: 'p', fields: [{ name: 'b', selector: 'a[href=]', type: 'text' }] }] }, /selectors.fields\[0\].fields\[0\].selector: "a\[href=\]" is not a valid CSS selector/],
    [
      { baseSelector: 'li', fields: [Array.from({ length: 40 }).reduce<object>((inner) => ({ name: 'n', type: 'nested', selector: 'div', fields: [inner] }), { name: 'a', type: 'text' })] },
      /nests fields more than 32 levels deep, the limit/,
    ],
  ])('refuses %j', (value, message) => {
    expect(() => validateCssSchema(value)).toThrow(UsageError);
    expect(() => validateCssSchema(value)).toThrow(message);
  });
});

describe('filling a schema from structured data (extract --schema without a model)', () => {
  const shop = () => structuredDataOf(dom(fixture('shop-jsonld.html')), 'https://shop.example/p/trail-runner-2').items;
  const kettle = () => structuredDataOf(dom(fixture('shop-microdata.html')), 'https://homeware.example/catalog/kettles/k-200').items;
  const product = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      brand: { type: 'string' },
      offers: { type: 'object', properties: { price: { type: 'number' }, priceCurrency: { type: 'string' }, availability: { enum: ['InStock', 'OutOfStock'] } } },
      gtin: { type: 'string' },
    },
    required: ['name', 'offers'],
  };

  it('follows schema.org nesting, converts types, and lists what it could not fill', () => {
    expect(fillFromStructured(product, shop())).toEqual({
      data: { name: 'Trail Runner 2', brand: 'Acme', offers: { price: 129.95, priceCurrency: 'EUR', availability: 'InStock' } },
      missing: ['gtin'],
    });
    expect(fillFromStructured(product, kettle())).toEqual({
      data: { name: 'Kettle K-200', brand: 'Homely', offers: { price: 49, priceCurrency: 'USD', availability: 'InStock' } },
      missing: ['gtin'],
    });
  });

  it('matches names case-insensitively and finds a flat property in a nested item', () => {
    const flat = { type: 'object', properties: { NAME: { type: 'string' }, price: { type: 'number' }, ratingValue: { type: 'number' }, type: { type: 'string' } } };
    expect(fillFromStructured(flat, shop()).data).toEqual({ NAME: 'Trail Runner 2', price: 129.95, ratingValue: 4.6, type: 'Product' });
  });

  it('fills a list from every item of the best type, from @graph members too', () => {
    const crumbs = { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, position: { type: 'integer' } } } };
    const list = { type: 'object', properties: { itemListElement: crumbs } };
    expect(fillFromStructured(list, shop()).data).toEqual({ itemListElement: [{ name: 'Shoes', position: 1 }, { name: 'Trail Runner 2', position: 2 }] });
  });

  it('gives nothing, and every field as missing, for a page without structured data', () => {
    expect(fillFromStructured(product, [])).toEqual({ data: undefined, missing: ['name', 'brand', 'offers.price', 'offers.priceCurrency', 'offers.availability', 'gtin'] });
  });

  it('never reads "129,95" as 12995', () => {
    const items = [{ '@type': 'Offer', price: '129,95', lowPrice: '1,299.50' }];
    const schema = { type: 'object', properties: { price: { type: 'number' }, lowPrice: { type: 'number' } } };
    expect(fillFromStructured(schema, items)).toEqual({ data: { lowPrice: 1299.5 }, missing: ['price'] });
  });
});

describe('hostile pages', () => {
  it('reads items nested thousands deep without ending the stack', () => {
    const depth = 20_000;
    const nested = `${'<div itemprop="part" itemscope typeof="Thing" property="part">'.repeat(depth)}x${'</div>'.repeat(depth)}`;
    const doc = dom(`<body vocab="https://schema.org/"><div itemscope itemtype="https://schema.org/Thing" typeof="Thing">${nested}</div></body>`);
    const [microdata] = microdataOf(doc, 'https://x.example/');
    let levels = 0;
    for (let item = microdata as Record<string, unknown> | undefined; item; item = item.part as Record<string, unknown> | undefined) levels++;
    expect(levels).toBe(64);
    expect(rdfaOf(doc, 'https://x.example/')).toHaveLength(1);
  });

  it('fails a schema that repeats the page over and over, instead of filling the memory', () => {
    const doc = dom(`<body>${'<div><p>lorem ipsum dolor sit amet</p>'.repeat(3000)}${'</div>'.repeat(3000)}</body>`);
    const schema = validateCssSchema({ baseSelector: 'div', fields: [{ name: 'all', type: 'html' }] });
    expect(() => selectItems(doc, schema)).toThrow(/the selectors' items hold more than 20,000,000 characters of this page; narrow them \(field "all"\)/);
  });
});
