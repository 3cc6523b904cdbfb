/**
 * The page sets in other languages bench:quality scores beside the 181 articles and WCXB (sets.ts):
 * fundus' parser test pages (scripts/fetch-fundus.sh) and Readability's test pages
 * (scripts/fetch-readability.sh), loaded into the same BenchPage shape.
 *
 * fundus is split in two halves by publisher, fixed once: a publisher whose name's FNV-1a hash is even
 * is a development publisher, one whose hash is odd is held out. Rules are tuned on the development half
 * (and the other sets); the held-out half is only reported, the figure that says whether a change
 * carries over to sites nobody looked at.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { detectLanguage } from './language.js';
import type { BenchPage, BenchSet } from './sets.js';

/** fundus' truths as scripts/fundus-pairs.mjs writes them. */
interface FundusTruth {
  country: string;
  publisher: string;
  url: string;
  title: string;
  body: string;
}

/** 32-bit FNV-1a of the name's UTF-8 bytes. */
export function fnv1a(name: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Which half of fundus a publisher is in: 'dev' (hash even) or 'held-out' (hash odd). */
export function fundusHalf(publisher: string): 'dev' | 'held-out' {
  return fnv1a(publisher) % 2 === 0 ? 'dev' : 'held-out';
}

/** fundus' pages (html/, truths.json), or undefined when absent. `half` keeps one half only. */
export function loadFundus(dir: string): BenchSet | undefined {
  const file = path.join(dir, 'truths.json');
  if (!existsSync(file)) return undefined;
  const truths = JSON.parse(readFileSync(file, 'utf8')) as Record<string, FundusTruth>;
  const pages: BenchPage[] = Object.keys(truths)
    .sort()
    .map((id) => {
      const truth = truths[id]!;
      return {
        id,
        type: 'article',
        truth: truth.body,
        url: truth.url,
        with: [],
        without: [],
        language: detectLanguage(truth.body),
        source: `fundus-${fundusHalf(truth.publisher)}`,
      };
    });
  return { name: 'fundus', title: 'fundus news pages', htmlDir: path.join(dir, 'html'), pages };
}

/** The text of Readability's expected article: its text nodes, a blank line after each block. */
export function expectedText(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const blocks = 'p,div,section,article,h1,h2,h3,h4,h5,h6,li,ul,ol,blockquote,pre,table,tr,td,th,figure,figcaption,dd,dt,br';
  for (const element of document.querySelectorAll(blocks)) element.after(document.createTextNode('\n\n'));
  return (document.body.textContent ?? '').replace(/[ \t]+/g, ' ').replace(/\n\s*\n\s*/g, '\n\n').trim();
}

/**
 * Readability's test pages whose expected text is in a language other than English (html/, expected/), or
 * undefined when absent: pages of Lorem ipsum filler ('la') or too short to tell ('und') are left out, as
 * are the English ones.
 */
export function loadReadability(dir: string): BenchSet | undefined {
  const expectedDir = path.join(dir, 'expected');
  if (!existsSync(expectedDir)) return undefined;
  const pages: BenchPage[] = [];
  for (const name of readdirSync(expectedDir).filter((n) => n.endsWith('.html')).sort()) {
    const id = name.slice(0, -'.html'.length);
    const truth = expectedText(readFileSync(path.join(expectedDir, name), 'utf8'));
    const language = detectLanguage(truth);
    if (language === 'en' || language === 'la' || language === 'und') continue;
    pages.push({ id, type: 'article', truth, url: 'http://fakehost/test/page.html', with: [], without: [], language, source: 'readability' });
  }
  return { name: 'readability', title: "Readability's test pages not in English", htmlDir: path.join(dir, 'html'), pages };
}
