/**
 * Scoring of extracted text against a ground truth, the way the ScrapingHub
 * article-extraction-benchmark does it: `\w+` tokens (Unicode, case kept), multisets
 * of overlapping 4-token shingles, per-page precision and recall, F1 of the means.
 * Pure functions, no I/O.
 */

/** Python's `\w` on str: Unicode letters and numbers, and the underscore. */
const TOKEN = /[\p{L}\p{N}_]+/gu;

export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** The multiset of overlapping n-token shingles of `text`, keyed by the joined tokens. */
export function shingles(text: string, n = 4): Map<string, number> {
  const tokens = tokenize(text);
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = tokens.slice(i, i + n).join('\u0001');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

export interface PageScore {
  /** Shared shingles, extra predicted ones and missing ones, each divided by their sum. */
  tp: number;
  fp: number;
  fn: number;
  /** tp / (tp + fp), or null when nothing was predicted. */
  precision: number | null;
  /** tp / (tp + fn), or null when the truth has no shingles. */
  recall: number | null;
}

export function scorePage(truth: string, predicted: string, n = 4): PageScore {
  const want = shingles(truth, n);
  const got = shingles(predicted, n);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [key, count] of got) {
    const shared = Math.min(count, want.get(key) ?? 0);
    tp += shared;
    fp += count - shared;
  }
  for (const [key, count] of want) fn += Math.max(0, count - (got.get(key) ?? 0));
  const total = tp + fp + fn;
  if (total > 0) {
    tp /= total;
    fp /= total;
    fn /= total;
  }
  return {
    tp,
    fp,
    fn,
    precision: tp + fp > 0 ? tp / (tp + fp) : null,
    recall: tp + fn > 0 ? tp / (tp + fn) : null,
  };
}

export interface Summary {
  precision: number;
  recall: number;
  f1: number;
}

/** Mean precision over pages that predicted something, mean recall over pages with a truth, F1 of the two. */
export function summarise(scores: PageScore[]): Summary {
  const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
  const precision = mean(scores.flatMap((s) => (s.precision === null ? [] : [s.precision])));
  const recall = mean(scores.flatMap((s) => (s.recall === null ? [] : [s.recall])));
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

/** F1 of one page (0 when either side is empty). */
export function pageF1(score: PageScore): number {
  const p = score.precision ?? 0;
  const r = score.recall ?? 0;
  return p + r > 0 ? (2 * p * r) / (p + r) : 0;
}

/** A link or image destination with an optional title: `(url "title")`; turndown escapes parentheses in urls. */
const DESTINATION = String.raw`\((?:<[^>\n]*>|(?:\\.|[^\s()\\]|\([^\s()]*\))*)(?:\s+(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'))?\s*\)`;
const IMAGE = new RegExp(String.raw`!\[((?:\\.|[^\]\\])*)\]` + DESTINATION, 'g');
const LINK = new RegExp(String.raw`\[((?:\\.|[^\]\\])*)\]` + DESTINATION, 'g');

/**
 * The readable text of Markdown: no syntax, link targets or images. Link text stays,
 * as does the content of code blocks. An image is not text on the page, so its alt
 * text goes with its address (Readability's textContent, which the published
 * figures score, has no alt text either).
 */
export function stripMarkdown(markdown: string): string {
  let text = markdown.replace(/\r\n?/g, '\n');
  // Fence lines (with their language) go, the code inside stays.
  text = text.replace(/^[ \t]*(`{3,}|~{3,})[^\n]*$/gm, '');
  // Reference definitions.
  text = text.replace(/^[ \t]*\[[^\]\n]+\]:[ \t]*\S+.*$/gm, '');
  // Images inside links first, then links; repeat for nesting.
  for (let i = 0; i < 3; i++) {
    const before = text;
    text = text.replace(IMAGE, '').replace(LINK, (_m, label: string) => label);
    if (text === before) break;
  }
  // Autolinks.
  text = text.replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1');
  text = text
    .split('\n')
    .map((line) => {
      let l = line;
      // Table delimiter rows.
      if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(l) && l.includes('|')) return '';
      // Horizontal rules.
      if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(l)) return '';
      // Blockquote markers, headings, list markers (unescaped), in that order.
      l = l.replace(/^(\s*>)+\s?/, '');
      l = l.replace(/^\s{0,3}#{1,6}(\s+|$)/, '').replace(/\s+#+\s*$/, '');
      l = l.replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/, '');
      // Table cell separators.
      l = l.replace(/(^|[^\\])\|/g, '$1 ');
      return l;
    })
    .join('\n');
  // Emphasis, strong, strike-through and inline code markers (unescaped).
  text = text.replace(/(^|[^\\\w])(\*{1,3}|_{1,3}|~{1,2})(?=\S)/gm, '$1');
  text = text.replace(/(?<=\S)(?<!\\)(\*{1,3}|_{1,3}|~{1,2})(?=[^\w]|$)/gm, '');
  text = text.replace(/(?<!\\)`+/g, '');
  // Backslash escapes.
  text = text.replace(/\\([!-/:-@[-`{-~])/g, '$1');
  return text.replace(/[ \t]+/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
}
