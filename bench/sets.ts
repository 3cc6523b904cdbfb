/**
 * The page sets bench:quality scores, loaded from disk into one shape, and the
 * selections its environment knobs make (ids, WCXB page types, an even sample).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { REPO_ROOT } from './paths.js';

export type SetName = 'articles' | 'wcxb' | 'fundus' | 'readability';
export const SET_NAMES: readonly SetName[] = ['articles', 'wcxb', 'fundus', 'readability'];

/** WCXB's page types, in the order evaluate.py prints them. */
export const WCXB_TYPES = ['article', 'forum', 'product', 'collection', 'listing', 'documentation', 'service'] as const;

export interface BenchPage {
  id: string;
  /** WCXB's page type; 'article' for every page of the 181 set. */
  type: string;
  /** The ground-truth text. */
  truth: string;
  /** The page's original address: the peer resolves relative links against it. */
  url: string;
  /** WCXB's snippets that must appear (`with`) and must not (`without`); empty for the 181 set. */
  with: string[];
  without: string[];
  /** The language of the truth's text (language.ts), for the per-language table; told when loaded or when scored. */
  language?: string;
  /** The row of the per-language table the page counts in, when not its set's name (fundus' two halves). */
  source?: string;
}

export interface BenchSet {
  name: SetName;
  title: string;
  /** Holds <id>.html.gz for every page. */
  htmlDir: string;
  pages: BenchPage[];
}

/** A page's HTML as stored in a set's htmlDir (<id>.html.gz). */
export function pageHtml(htmlDir: string, id: string): string {
  return gunzipSync(readFileSync(path.join(htmlDir, `${id}.html.gz`))).toString('utf8');
}

/** Where the 181 article pages are: WEBJOBS_BENCH_DATA, else where `npm run bench:fetch-aeb` writes them. */
export function articlesDir(): string {
  return path.resolve(process.env.WEBJOBS_BENCH_DATA || path.join(REPO_ROOT, '.bench-data', 'aeb'));
}

/** The ScrapingHub article-extraction-benchmark: ground-truth.json and html/, or undefined when absent. */
export function loadArticles(dir: string): BenchSet | undefined {
  const file = path.join(dir, 'ground-truth.json');
  if (!existsSync(file)) return undefined;
  const truth = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { articleBody: string; url: string }>;
  const pages = Object.keys(truth)
    .sort()
    .map((id) => ({ id, type: 'article', truth: truth[id]!.articleBody, url: truth[id]!.url, with: [], without: [] }));
  return { name: 'articles', title: '181 article pages', htmlDir: path.join(dir, 'html'), pages };
}

/** The fields of a WCXB ground-truth file this benchmark reads. */
export interface WcxbTruthFile {
  url?: string;
  _internal?: { page_type?: { primary?: string } | string } | null;
  ground_truth?: {
    main_content?: string | null;
    with?: string[] | null;
    without?: string[] | null;
  } | null;
}

/**
 * WCXB's development split as scripts/fetch-wcxb.sh writes it (dev/ground-truth,
 * dev/html), or undefined when absent. Only dev/ is ever read: the test split is
 * held out and never scored here.
 */
export function loadWcxbDev(dir: string): BenchSet | undefined {
  const truthDir = path.join(dir, 'dev', 'ground-truth');
  if (!existsSync(truthDir)) return undefined;
  const pages: BenchPage[] = [];
  for (const name of readdirSync(truthDir).filter((n) => n.endsWith('.json')).sort()) {
    const data = JSON.parse(readFileSync(path.join(truthDir, name), 'utf8')) as WcxbTruthFile;
    const gt = data.ground_truth;
    // evaluate.py skips a file whose ground_truth is not an object.
    if (typeof gt !== 'object' || gt === null || Array.isArray(gt)) continue;
    pages.push({
      id: name.slice(0, -'.json'.length),
      type: wcxbPageType(data),
      truth: gt.main_content ?? '',
      url: data.url ?? 'http://localhost/',
      with: gt.with ?? [],
      without: gt.without ?? [],
    });
  }
  return { name: 'wcxb', title: 'WCXB dev', htmlDir: path.join(dir, 'dev', 'html'), pages };
}

/** evaluate.py's get_page_type: `_internal.page_type.primary` (or a plain string), 'category' read as 'collection'. */
export function wcxbPageType(data: WcxbTruthFile): string {
  const pageType = data._internal?.page_type;
  const primary = typeof pageType === 'string' ? pageType : (pageType?.primary ?? 'article');
  return primary === 'category' ? 'collection' : primary;
}

/** Pages whose id starts with one of `prefixes` (all pages when there are none). */
export function byIdPrefix(pages: BenchPage[], prefixes: string[]): BenchPage[] {
  return prefixes.length ? pages.filter((p) => prefixes.some((prefix) => p.id.startsWith(prefix))) : pages;
}

/**
 * About `total` pages spread over page types in proportion to their counts
 * (largest remainders, so exactly `total` when there are that many), each type's
 * share taken evenly through its pages: every k-th page, not the first ones, so
 * a quick run sees the same mix of sites as a full one.
 */
export function sampleByType(pages: BenchPage[], total: number): BenchPage[] {
  if (total >= pages.length) return pages;
  const groups = new Map<string, BenchPage[]>();
  for (const page of pages) groups.set(page.type, [...(groups.get(page.type) ?? []), page]);
  const shares = largestRemainders(
    [...groups.values()].map((group) => group.length),
    total,
  );
  const chosen = new Set<BenchPage>();
  [...groups.values()].forEach((group, i) => {
    const share = shares[i]!;
    for (let k = 0; k < share; k++) chosen.add(group[Math.floor((k * group.length) / share)]!);
  });
  return pages.filter((page) => chosen.has(page));
}

/** Splits `total` in proportion to `counts`, whole numbers summing to `total`. */
function largestRemainders(counts: number[], total: number): number[] {
  const sum = counts.reduce((a, b) => a + b, 0);
  const exact = counts.map((count) => (count * total) / sum);
  const shares = exact.map(Math.floor);
  const order = exact.map((value, i) => ({ i, rest: value - Math.floor(value) })).sort((a, b) => b.rest - a.rest);
  const missing = total - shares.reduce((a, b) => a + b, 0);
  for (let k = 0; k < missing; k++) shares[order[k]!.i]!++;
  return shares;
}
