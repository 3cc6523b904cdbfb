/**
 * The structuredData format against hostile pages (issue 54, findings 2 and 4), through the real CLI on
 * both engines: property names of Object.prototype are plain data, and structured data that nests or
 * fans out without end is read up to a bound (structured/bounds.ts) with a warning, the page's Markdown
 * kept. What is asserted is the outcome and the warning, never the time taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DEPTH } from '../src/engine/structured/bounds.js';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const env = { WEBJOBS_HOME: tempHome() };
let site: FixtureServer;

const NAMES = ['constructor', 'hasOwnProperty', 'toString', 'valueOf', '__proto__'];

/** JSON-LD nested `levels` deep: each level a Thing whose `part` is the next. */
function nestedJsonLd(levels: number): string {
  return `${'{"@type":"Thing","part":'.repeat(levels)}"bottom"${'}'.repeat(levels)}`;
}

/** Microdata whose itemrefs fan out: each of two items at a level names both items of the next, `levels` deep. */
function fanOut(levels: number): string {
  let body = '<div itemscope itemtype="https://schema.org/Thing" itemref="a0 b0"></div>';
  for (let i = 0; i < levels; i++) body += `<div id="a${i}" itemprop="part" itemscope itemref="a${i + 1} b${i + 1}"></div><div id="b${i}" itemprop="other" itemscope itemref="a${i + 1} b${i + 1}"></div>`;
  return `${body}<span id="a${levels}" itemprop="name">end</span><span id="b${levels}" itemprop="name">end</span>`;
}

const ARTICLE = `<article><h1>Kept</h1>${articleText('hostile structured data')}</article>`;
const jsonLdPage = (json: string) => html(ARTICLE, { head: `<script type="application/ld+json">${json}</script>` });

beforeAll(async () => {
  site = await startFixtureServer({
    '/names': (_req, res) =>
      sendHtml(
        res,
        jsonLdPage(`{"@context":"https://schema.org","@type":"Thing",${NAMES.map((n) => `"${n}":"json ${n}"`).join(',')}}`).replace(
          '</body>',
          `<div itemscope itemtype="https://schema.org/Thing">${NAMES.map((n) => `<span itemprop="${n}">micro ${n}</span>`).join('')}</div>` +
            `<div vocab="https://schema.org/" typeof="Thing">${NAMES.map((n) => `<span property="${n}">rdfa ${n}</span>`).join('')}</div></body>`,
        ),
      ),
    '/deep-1600': (_req, res) => sendHtml(res, jsonLdPage(nestedJsonLd(1_600))),
    '/deep-50000': (_req, res) => sendHtml(res, jsonLdPage(nestedJsonLd(50_000))),
    '/fan-out': (_req, res) => sendHtml(res, html(`${ARTICLE}${fanOut(20)}`)),
  });
});

afterAll(async () => {
  await site?.close();
});

interface Scraped {
  data: { metadata: Record<string, string>; markdown?: string; structuredData?: Record<string, unknown>[] };
}

async function scrape(path: string, engine: string): Promise<{ data: Scraped['data']; stderr: string }> {
  const result = await runCli(['scrape', site.at(path), '--engine', engine, '--formats', 'markdown,structuredData', '--json'], { env, timeoutMs: 120_000 });
  expect(result.code, result.stderr).toBe(0);
  const { data } = JSON.parse(result.stdout) as Scraped;
  expect(data.markdown).toContain('# Kept');
  return { data, stderr: result.stderr };
}

/** Levels of `part` under `item`, counted without recursion. */
function levels(item: unknown): number {
  let count = 0;
  for (let at = item as Record<string, unknown> | undefined; typeof at === 'object' && at !== null; at = at.part as Record<string, unknown> | undefined) count++;
  return count;
}

describe("property names of Object.prototype", () => {
  for (const engine of ['http', 'browser']) {
    it(`are plain data in JSON-LD, microdata and RDFa (${engine} engine)`, async () => {
      const { data } = await scrape('/names', engine);
      const [jsonLd, microdata, rdfa] = data.structuredData!;
      for (const name of NAMES.filter((n) => n !== '__proto__')) {
        expect(Object.hasOwn(jsonLd!, name) && jsonLd![name], name).toBe(`json ${name}`);
        expect(Object.hasOwn(microdata!, name) && microdata![name], name).toBe(`micro ${name}`);
        expect(Object.hasOwn(rdfa!, name) && rdfa![name], name).toBe(`rdfa ${name}`);
      }
      // __proto__ is data, or left out: never the item's prototype.
      for (const item of [jsonLd, microdata, rdfa]) expect([undefined, 'json __proto__', 'micro __proto__', 'rdfa __proto__']).toContain(Object.getOwnPropertyDescriptor(item, '__proto__')?.value);
    }, 120_000);
  }
});

describe('structured data that nests or fans out without end', () => {
  for (const depth of [1_600, 50_000]) {
    it(`reads JSON-LD nested ${depth.toLocaleString('en-US')} levels up to the bound, with a warning, the Markdown kept`, async () => {
      const { data, stderr } = await scrape(`/deep-${depth}`, 'http');
      expect(levels(data.structuredData![0])).toBe(MAX_DEPTH);
      expect(data.metadata.warning).toContain(`what nests more than ${MAX_DEPTH} levels deep was left out of structuredData`);
      expect(stderr).toContain('structured data was cut');
    }, 120_000);
  }

  it('reads microdata whose itemrefs fan out over 20 levels up to the node budget, with a warning', async () => {
    const { data } = await scrape('/fan-out', 'http');
    expect(data.structuredData![0]).toMatchObject({ '@type': 'Thing', part: { part: { part: {} } } });
    expect(data.metadata.warning).toMatch(/structured data was cut: what lies past the first [\d,]+ values and elements was left out/);
  }, 120_000);
});
