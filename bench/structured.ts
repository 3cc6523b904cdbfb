/**
 * What structured data with no model costs (issue 42), on one thread, parse
 * included: `extract --selectors` on listings of 20, 100 and 500 items, and the
 * structuredData format on a product page (JSON-LD and microdata among ~100 KB of
 * text) beside the extraction the HTTP engine runs on every page anyway (the
 * format parses the page a second time), and on a page without any markup (not
 * parsed). Medians of WEBJOBS_BENCH_RUNS (15) runs after two warm-up runs.
 *
 *   npm run build:bench && node .bench-build/bench/structured.js
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateCssSchema } from '../src/api/cssSchema.js';
import { extractInNode } from '../src/engine/content/inNode.js';
import { readHtml } from '../src/engine/structured/readHtml.js';
import { REPO_ROOT } from './paths.js';

const RUNS = Number(process.env.WEBJOBS_BENCH_RUNS ?? 15);
const fixture = (name: string) => readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'structured', name), 'utf8');

function median(fn: () => unknown): number {
  fn();
  fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const line = (what: string, ms: number, extra = '') => console.log(`${what.padEnd(58)} ${ms.toFixed(1).padStart(7)} ms${extra}`);

const listing = fixture('listing.html');
const product = /<li class="product" data-sku="L-100">[\s\S]*?<\/ul>\s*<\/li>/.exec(listing)![0];
const schema = validateCssSchema(JSON.parse(fixture('listing.selectors.json')));
for (const count of [20, 100, 500]) {
  const page = listing.replace('<ul class="results">', `<ul class="results">${Array.from({ length: count - 3 }, () => product).join('\n')}`);
  const items = readHtml(page, 'https://shop.example/search', { selectors: schema }).items!.length;
  line(`--selectors, listing of ${items} items (${Math.round(page.length / 1024)} KB)`, median(() => readHtml(page, 'https://shop.example/search', { selectors: schema })));
}

const filler = Array.from({ length: 400 }, (_, i) => `<p>Paragraph ${i} of the product's story, its reviews and <a href="/r/${i}">links</a> to more of the shop.</p>`).join('\n');
const shop = fixture('shop-microdata.html').replace('</main>', `<section>${filler}</section></main>`).replace('</head>', `${/<script type="application\/ld\+json">[\s\S]*?<\/script>/.exec(fixture('shop-jsonld.html'))![0]}</head>`);
const url = 'https://homeware.example/catalog/kettles/k-200';
const options = { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: true };
const extraction = median(() => extractInNode(shop, url, options));
const structured = median(() => readHtml(shop, url, { structuredData: true }));
const found = readHtml(shop, url, { structuredData: true }).structuredData!.items.length;
line(`extraction (markdown, links) of a product page (${Math.round(shop.length / 1024)} KB)`, extraction);
line(`structuredData of the same page (${found} items)`, structured, ` (+${Math.round((100 * structured) / extraction)}% of the extraction)`);
const bare = shop.replace(/itemscope|application\/ld\+json/g, '');
line('structuredData of a page without any markup (not parsed)', median(() => readHtml(bare, url, { structuredData: true })));
