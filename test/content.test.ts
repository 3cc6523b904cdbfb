/**
 * Main-content extraction and Markdown, through the real engine, on both of its
 * ways to read a page: a real Chromium, and plain HTTP with the same extraction
 * in worker threads (--engine http), scraping pages served on 127.0.0.1. The same
 * expectations hold for both, and the two give the same Markdown on these pages.
 */
import { Parser } from 'commonmark';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineName, ScrapeOptions } from '../src/api/types.js';
import { BrowserEngine } from '../src/engine/engine.js';

const prose = (topic: string) =>
  [
    `The ${topic} story begins in a small town, where the people had long argued about the river, the bridge and the old mill that stood beside it.`,
    `Over the years, the arguments about the ${topic} grew louder, and the town council, which met every Tuesday, could not agree on anything at all.`,
    `In the end, a young engineer proposed a plan for the ${topic}: rebuild the mill, keep the bridge, and let the river run as it always had, slowly and quietly.`,
  ]
    .map((p) => `<p>${p}</p>`)
    .join('\n');

/** Windows-1252's characters for the bytes 0x80-0x9F (five of them undefined, kept as C1 controls). */
const WINDOWS_1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** `text`'s UTF-8 bytes read back as `as`: what a server that decoded UTF-8 wrongly sends on. */
function doubleEncoded(text: string, as: 'latin1' | 'windows-1252'): string {
  const high = (byte: number) => (as === 'windows-1252' && byte >= 0x80 && byte < 0xa0 ? WINDOWS_1252_HIGH[byte - 0x80]! : String.fromCharCode(byte));
  return Array.from(Buffer.from(text, 'utf8'), high).join('');
}

const page = (body: string, head = '', lang = 'en') =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

const chrome = {
  nav: '<nav><a href="/">Home page link</a> <a href="/about">About us link</a> <a href="/contact">Contact link</a></nav>',
  header: '<header><div class="site-name">Gazette site banner</div></header>',
  aside: '<aside class="sidebar"><h3>Popular elsewhere</h3><ul><li><a href="/p1">Sidebar story one</a></li><li><a href="/p2">Sidebar story two</a></li></ul></aside>',
  footer: '<footer><p>Copyright footer text, all rights reserved.</p></footer>',
  noise:
    '<script>var marker = "SCRIPT_TEXT";</script><style>.x { content: "STYLE_TEXT"; }</style>' +
    '<svg><text>SVG_TEXT</text></svg><noscript>NOSCRIPT_TEXT</noscript>',
};

const PAGES: Record<string, { type: string; body: Buffer | string }> = {
  '/article': {
    type: 'text/html; charset=utf-8',
    body: page(
      `${chrome.header}${chrome.nav}
       <main><article>
         <h1>Rivers of the valley</h1>
         ${prose('valley')}
         <h2>Plans for the mill</h2>
         ${prose('mill')}
         <ul><li>first point of the plan</li><li>second point of the plan</li></ul>
         <ol><li>step one of the work</li><li>step two of the work</li></ol>
         <p>Read the <a href="/docs/guide">engineering guide</a> or jump to the <a href="#top">top of the page</a>, which the council reviewed twice.</p>
         <p class="keep">Paragraph kept by includeTags, with its own sentence, long enough to matter.</p>
         <p class="drop">Paragraph dropped by excludeTags, with its own sentence, long enough to matter.</p>
       </article></main>
       ${chrome.aside}${chrome.noise}${chrome.footer}`,
      `<title>River article</title>
       <meta name="description" content="All about the rivers of the valley">
       <meta property="og:title" content="OG rivers title">
       <meta property="og:image" content="https://example.com/river.jpg">
       <meta property="og:type" content="article">`,
    ),
  },
  '/video': {
    type: 'text/html; charset=utf-8',
    body: page(
      `<article><h1>Kneading by hand</h1><video controls width="640"><source src="/media/knead.mp4" type="video/mp4">Your browser does not support the video tag.</video>` +
        `<audio controls><source src="/media/knead.mp3" type="audio/mpeg"><p>Sorry, your browser doesn't support embedded audio.</p></audio>${prose('dough')}</article>`,
      '<title>Kneading</title>',
    ),
  },
  '/cards': {
    type: 'text/html; charset=utf-8',
    body: page(
      `<section class="grid">${['Oak desk', 'Ash shelf', 'Elm chair']
        .map(
          (name, i) =>
            `<a class="card" href="/products/${i}"><div class="card__media"><img src="/img/${i}.png" alt="${name} photo"></div><h3>${name}</h3><p>Solid wood, made to order. <span class="price">$${100 + i}</span></p></a>`,
        )
        .join('')}<div class="picks">
          <a href="/books/6"><span><div class="clamp">Thorns and roses</div></span></a>
          <a href="/deals/1"><output class="image-container"><img src="/img/d.png" alt="Crystal controller"></output></a>
          <a href="/deals/2"><center>Free delivery</center></a>
          <a href="/wallets/matte"><img src="/img/w.png" alt=""><b><div>New edition</div></b></a>
          <a aria-label="Maker" href="/makers/1">
            <picture>
              <source srcset="/img/m.webp 1x" media="(min-width: 1800px)" type="image/webp">
              <source srcset="/img/m.webp 1x" media="(min-width: 1300px)" type="image/webp">
              <source srcset="/img/m.webp 1x" media="(min-width: 800px)" type="image/webp">
              <source srcset="/img/m.webp 1x" type="image/webp">
              <img src="/img/m.png" alt="Maker logo">
            </picture>
          </a>
          <a href="/trails/1"><h4>Creek trail</h4><div class="muted">
            <span class="stars">
              <img src="/img/star.svg" alt="">
              <img src="/img/star.svg" alt="">
              <img src="/img/star.svg" alt="">
              <img src="/img/star.svg" alt="">
              <img src="/img/half.svg" alt="">
            </span>
            <span class="place">Spring, TX</span>
          </div></a>
        </div><form><input type="hidden" name="a"> <input type="hidden" name="b"> <input type="hidden" name="c"> <input type="hidden" name="d"> <input type="hidden" name="e"> Sign up for the catalogue</form></section>`,
      '<title>Furniture</title>',
    ),
  },
  '/table': {
    type: 'text/html; charset=utf-8',
    body: page(
      `${chrome.nav}<article><h1>Results</h1>${prose('league')}
       <table><thead><tr><th>Name</th><th>Score</th></tr></thead>
         <tbody><tr><td>Ann</td><td>7</td></tr><tr><td>Bob | Jr</td><td>9</td></tr></tbody></table>
       <p>And the same table without a header row, as many pages write it, for the second season of the league.</p>
       <table><tr><td>Team</td><td>Wins</td></tr><tr><td>Reds</td><td>12</td></tr></table>
       ${prose('season')}</article>${chrome.footer}`,
      '<title>Table page</title>',
    ),
  },
  '/code': {
    type: 'text/html; charset=utf-8',
    body: page(
      `${chrome.nav}<article><h1>Code samples</h1>${prose('compiler')}
       <pre><code class="language-js">const answer = 42;
if (answer &gt; 1) {
  console.log("big");
}
</code></pre>
       <p>The same idea in Python, with <code>print</code> inline, reads just as plainly to most people.</p>
       <pre class="lang-python"><code>print("hello")</code></pre>
       ${prose('runtime')}</article>${chrome.footer}`,
      '<title>Code page</title>',
    ),
  },
  // ISO-8859-1 bytes, declared only in the HTTP header.
  '/latin1': {
    type: 'text/html; charset=ISO-8859-1',
    body: Buffer.from(
      `<!doctype html><html lang="de"><head><title>Caf\u00e9 Stra\u00dfe</title></head><body>${chrome.nav}<article><h1>\u00dcber das Caf\u00e9</h1>` +
        `<p>Das Caf\u00e9 an der Stra\u00dfe war na\u00efve gebaut, \u00e4hnlich wie die \u00fcbrigen H\u00e4user; man sa\u00df dort gern, \u00e0 la fran\u00e7aise, bei Kuchen f\u00fcr zw\u00f6lf Gro\u00dfen.</p>` +
        `${prose('caf\u00e9')}</article></body></html>`,
      'latin1',
    ),
  },
  // windows-1252 declared only in a meta tag: 0x93/0x94 are curly quotes, 0x80 is the euro sign.
  '/cp1252': {
    type: 'text/html',
    body: Buffer.concat([
      Buffer.from(
        '<!doctype html><html lang="en"><head><meta charset="windows-1252"><title>Prices</title></head><body><article><h1>Prices</h1><p>He said ',
        'latin1',
      ),
      Buffer.from([0x93]),
      Buffer.from('it costs ', 'latin1'),
      Buffer.from([0x80]),
      Buffer.from('5 in the caf\u00e9', 'latin1'),
      Buffer.from([0x94]),
      Buffer.from(`, and nobody argued with the price at all that day.</p>${prose('price')}</article></body></html>`, 'latin1'),
    ]),
  },
  // UTF-8 text decoded as Latin-1 (and as windows-1252) by the site's own software, then
  // served as UTF-8: the page itself says "letâ\u0080\u0099s" and "cafÃ©".
  '/double-encoded': {
    type: 'text/html; charset=utf-8',
    body: page(
      `<article><h1>${doubleEncoded('Café notes', 'latin1')}</h1><p>${doubleEncoded('But hey, let’s not just throw numbers at you: the café costs €5 a day.', 'latin1')}</p>` +
        `<p>${doubleEncoded('He said “the crème brûlée is fine” and left.', 'windows-1252')}</p>${prose('café')}</article>`,
      `<title>${doubleEncoded('Café notes – a blog', 'latin1')}</title>`,
    ),
  },
  // Latin-1 letters that only look like the above: nothing here is double-encoded.
  '/not-double-encoded': {
    type: 'text/html; charset=utf-8',
    body: page(`<article><h1>SÃO PAULO Â» Notícias</h1><p>A praça nº 5 de SÃO PAULO, Ângela disse: »sim«, e é isso.</p>${prose('praça')}</article>`, '<title>SÃO PAULO</title>', 'pt'),
  },
};


let server: http.Server;
let base: string;
let engine: BrowserEngine;
/** The engine each describe block below reads pages with. */
let reading: EngineName = 'browser';

const scrapeWith = (name: EngineName, path: string, options?: ScrapeOptions) =>
  engine.scrape(`${base}${path}`, { timeout: 20_000, ...options, engine: name });
const scrape = (path: string, options?: ScrapeOptions) => scrapeWith(reading, path, options);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const found = PAGES[(req.url ?? '/').split('?')[0]!];
    if (!found) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': found.type }).end(found.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  engine = new BrowserEngine();
}, 30_000);

afterAll(async () => {
  await engine?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

describe.each(['browser', 'http'] as const)('engine %s', (name) => {
  beforeAll(() => {
    reading = name;
  });

  it('says which engine read the page', async () => {
    const { metadata } = await scrape('/article');
    expect(metadata.engine).toBe(name);
  }, 30_000);

  describe('main content', () => {
    it('keeps the article and drops navigation, header, sidebar, footer, scripts, styles and svg', async () => {
      const { markdown = '' } = await scrape('/article');
      expect(markdown).toContain('The valley story begins in a small town');
      expect(markdown).toContain('rebuild the mill, keep the bridge');
      for (const gone of ['Home page link', 'About us link', 'Gazette site banner', 'Sidebar story one', 'Popular elsewhere', 'Copyright footer text']) {
        expect(markdown).not.toContain(gone);
      }
      for (const gone of ['SCRIPT_TEXT', 'STYLE_TEXT', 'SVG_TEXT', 'NOSCRIPT_TEXT', '<script', '<svg']) expect(markdown).not.toContain(gone);
    }, 30_000);

    it('writes headings and lists as Markdown', async () => {
      const { markdown = '' } = await scrape('/article');
      expect(markdown).toMatch(/^## Plans for the mill$/m);
      expect(markdown).toMatch(/^-\s+first point of the plan$/m);
      expect(markdown).toMatch(/^-\s+second point of the plan$/m);
      expect(markdown).toMatch(/^1\.\s+step one of the work$/m);
      expect(markdown).toMatch(/^2\.\s+step two of the work$/m);
    }, 30_000);

    it('makes links absolute and leaves fragment links alone', async () => {
      const { markdown = '' } = await scrape('/article');
      expect(markdown).toContain(`[engineering guide](${base}/docs/guide)`);
      expect(markdown).toContain('[top of the page](#top)');
    }, 30_000);

    it('moves a link around blocks (a product card) into the blocks, so that the Markdown reads back as links', async () => {
      const { markdown = '' } = await scrape('/cards', { onlyMainContent: false });
      const links: { text: string; url: string }[] = [];
      const texts: string[] = [];
      const walker = new Parser().parse(markdown).walker();
      for (let event = walker.next(); event; event = walker.next()) {
        if (event.entering && event.node.type === 'text') texts.push(event.node.literal ?? '');
        if (event.entering && event.node.type === 'link') {
          let text = '';
          const inner = event.node.walker();
          for (let e = inner.next(); e; e = inner.next()) if (e.entering && e.node.type === 'text') text += e.node.literal;
          links.push({ text: text.replace(/\s+/g, ' ').trim(), url: event.node.destination ?? '' });
        }
      }
      // Read back, no link target is left as text.
      expect(texts.filter((text) => text.includes(']('))).toEqual([]);
      expect(links).toContainEqual({ text: 'Oak desk', url: `${base}/products/0` });
      expect(links).toContainEqual({ text: 'Solid wood, made to order. $102', url: `${base}/products/2` });
      expect(markdown).toMatch(/^### \[Ash shelf\]\(/m);
      // A link around an inline element that holds a block (Amazon's <span><div>), and
      // emphasis around a block, are pushed into the block too.
      expect(links).toContainEqual({ text: 'Thorns and roses', url: `${base}/books/6` });
      expect(links).toContainEqual({ text: 'New edition', url: `${base}/wallets/matte` });
      // And around the other elements turndown writes as blocks (an image in an <output>, IGN's).
      expect(links).toContainEqual({ text: 'Crystal controller', url: `${base}/deals/1` });
      expect(links).toContainEqual({ text: 'Free delivery', url: `${base}/deals/2` });
      // Elements that write nothing (<source>, hidden inputs) leave no run of spaces that
      // would indent the next line into a code block.
      const codeBlocks: string[] = [];
      const blocks = new Parser().parse(markdown).walker();
      for (let event = blocks.next(); event; event = blocks.next()) {
        if (event.entering && event.node.type === 'code_block') codeBlocks.push(event.node.literal ?? '');
      }
      expect(codeBlocks).toEqual([]);
      expect(links).toContainEqual({ text: 'Spring, TX', url: `${base}/trails/1` });
      expect(texts).toContain('Sign up for the catalogue');
    }, 30_000);

    it("leaves out what <video> and <audio> hold for browsers without them", async () => {
      const { markdown = '', html = '' } = await scrape('/video', { formats: ['markdown', 'html'] });
      expect(markdown).toContain('# Kneading by hand');
      expect(markdown).not.toContain('does not support');
      expect(markdown).not.toContain("doesn't support");
      expect(html).not.toContain('does not support');
    }, 30_000);

    it('turns tables into GFM tables, with or without a header row', async () => {
      const { markdown = '' } = await scrape('/table');
      expect(markdown).toContain(['| Name | Score |', '| --- | --- |', '| Ann | 7 |', '| Bob \\| Jr | 9 |'].join('\n'));
      expect(markdown).toContain(['| Team | Wins |', '| --- | --- |', '| Reds | 12 |'].join('\n'));
      expect(markdown).not.toMatch(/<\/?(table|tr|td|th)\b/);
    }, 30_000);

    it('fences code blocks with their language', async () => {
      const { markdown = '' } = await scrape('/code');
      expect(markdown).toContain(['```js', 'const answer = 42;', 'if (answer > 1) {', '  console.log("big");', '}', '```'].join('\n'));
      expect(markdown).toContain(['```python', 'print("hello")', '```'].join('\n'));
      expect(markdown).toContain('with `print` inline');
    }, 30_000);
  });

  describe('character sets', () => {
    it('decodes an ISO-8859-1 page to UTF-8', async () => {
      const { markdown = '', metadata } = await scrape('/latin1');
      expect(markdown).toContain('# Über das Café');
      expect(markdown).toContain('Das Café an der Straße war naïve gebaut, ähnlich wie die übrigen Häuser; man saß dort gern, à la française');
      expect(markdown).not.toContain('\ufffd');
      expect(metadata.title).toBe('Café Straße');
      expect(metadata.language).toBe('de');
    }, 30_000);

    it('decodes a windows-1252 page declared in a meta tag', async () => {
      const { markdown = '' } = await scrape('/cp1252');
      expect(markdown).toContain('He said “it costs €5 in the café”, and nobody argued');
      expect(markdown).not.toContain('\ufffd');
    }, 30_000);

    it('repairs UTF-8 text that the site decoded as Latin-1 or windows-1252 before serving it', async () => {
      const { markdown = '', metadata } = await scrape('/double-encoded');
      expect(markdown).toContain('# Café notes');
      expect(markdown).toContain('But hey, let’s not just throw numbers at you: the café costs €5\u00a0a day.');
      expect(markdown).toContain('He said “the crème brûlée is fine” and left.');
      expect(metadata.title).toBe('Café notes – a blog');
    }, 30_000);

    it('leaves Latin-1 letters that only look double-encoded alone', async () => {
      const { markdown = '', metadata } = await scrape('/not-double-encoded');
      expect(markdown).toContain('# SÃO PAULO Â» Notícias');
      expect(markdown).toContain('A praça nº 5 de SÃO PAULO, Ângela disse: »sim«, e é isso.');
      expect(metadata.title).toBe('SÃO PAULO');
    }, 30_000);
  });

  describe('scrape options', () => {
    it('includeTags keeps only the matching elements', async () => {
      const { markdown = '' } = await scrape('/article', { includeTags: ['.keep', 'h1'] });
      expect(markdown).toContain('Paragraph kept by includeTags');
      expect(markdown).toContain('Rivers of the valley');
      expect(markdown).not.toContain('The valley story begins');
      expect(markdown).not.toContain('Paragraph dropped by excludeTags');
    }, 30_000);

    it('excludeTags removes the matching elements and keeps the rest', async () => {
      const { markdown = '' } = await scrape('/article', { excludeTags: ['.drop', 'ol'] });
      expect(markdown).not.toContain('Paragraph dropped by excludeTags');
      expect(markdown).not.toContain('step one of the work');
      expect(markdown).toContain('Paragraph kept by includeTags');
      expect(markdown).toContain('The valley story begins');
    }, 30_000);

    it('onlyMainContent false keeps the page around the article, still without scripts and styles', async () => {
      const main = (await scrape('/article')).markdown ?? '';
      const full = (await scrape('/article', { onlyMainContent: false })).markdown ?? '';
      expect(full.length).toBeGreaterThan(main.length);
      for (const kept of ['Home page link', 'Sidebar story one', 'Copyright footer text', 'The valley story begins']) expect(full).toContain(kept);
      for (const gone of ['SCRIPT_TEXT', 'STYLE_TEXT', 'SVG_TEXT']) expect(full).not.toContain(gone);
    }, 30_000);

    it('html format gives the main content as HTML', async () => {
      const { html = '', markdown } = await scrape('/article', { formats: ['html'] });
      expect(html).toContain('<h2');
      expect(html).toContain('The valley story begins');
      expect(html).not.toContain('Copyright footer text');
      expect(markdown).toBeUndefined();
    }, 30_000);
  });

  describe('metadata', () => {
    it('has title, description, language and og:* tags', async () => {
      const { metadata } = await scrape('/article');
      expect(metadata.title).toBe('River article');
      expect(metadata.description).toBe('All about the rivers of the valley');
      expect(metadata.language).toBe('en');
      expect(metadata['og:title']).toBe('OG rivers title');
      expect(metadata['og:image']).toBe('https://example.com/river.jpg');
      expect(metadata['og:type']).toBe('article');
      expect(metadata.sourceURL).toBe(`${base}/article`);
      expect(metadata.statusCode).toBe('200');
    }, 30_000);
  });
});

describe('parity between the engines', () => {
  for (const [path, options] of [
    ['/article', {}],
    ['/article', { onlyMainContent: false }],
    ['/article', { formats: ['html', 'links'] }],
    ['/cards', { onlyMainContent: false }],
    ['/table', {}],
    ['/code', {}],
    ['/latin1', {}],
    ['/cp1252', {}],
  ] as Array<[string, ScrapeOptions]>) {
    it(`gives the same result over HTTP as in the browser: ${path} ${JSON.stringify(options)}`, async () => {
      const [browser, http] = await Promise.all([scrapeWith('browser', path, options), scrapeWith('http', path, options)]);
      // linkedom writes the attributes of an element created by script (Readability's wrapper) in another order.
      const sortedAttributes = (html?: string) =>
        html?.replace(/<([a-z0-9]+)((?:\s+[a-z-]+="[^"]*")+)>/g, (_, tag: string, attrs: string) => `<${tag} ${attrs.trim().split(/\s+(?=[a-z-]+=")/).sort().join(' ')}>`);
      const comparable = (data: typeof browser) => ({ ...data, html: sortedAttributes(data.html), metadata: { ...data.metadata, scrapedAt: '', engine: '' } });
      expect(comparable(http)).toEqual(comparable(browser));
    }, 30_000);
  }
});
