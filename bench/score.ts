/**
 * Scoring of extracted text against a ground truth, two ways:
 * - the ScrapingHub article-extraction-benchmark's (181 pages): `\w+` tokens (Unicode,
 *   case kept), multisets of overlapping 4-token shingles, per-page precision and
 *   recall, F1 of the mean precision and the mean recall;
 * - WCXB's (its evaluate.py): lower-cased `\w+` tokens as a multiset, per-page word
 *   precision, recall and F1, each averaged over pages (the mean of per-page F1s).
 * Pure functions, no I/O.
 */

/**
 * Python's `\w` on str: Unicode letters and numbers (L*, N*: Python's isalnum), and
 * the underscore. Checked against CPython 3.11 over every code point: the two agree
 * on all characters assigned in its Unicode 14 tables; combining marks split words in both.
 */
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

/** WCXB's tokens: `re.findall(r'\w+', text.lower())`. */
export function wordTokens(text: string): string[] {
  return tokenize(text.toLowerCase());
}

export interface WordScore {
  precision: number;
  recall: number;
  f1: number;
}

/**
 * WCXB's `word_f1`: clipped word overlap over the predicted and the reference token
 * counts. An empty reference scores 1 when nothing was predicted and 0 otherwise; an
 * empty prediction against a non-empty reference scores 0.
 */
export function wordScore(reference: string, predicted: string): WordScore {
  const want = wordTokens(reference);
  const got = wordTokens(predicted);
  if (want.length === 0) return got.length === 0 ? { precision: 1, recall: 1, f1: 1 } : { precision: 0, recall: 0, f1: 0 };
  if (got.length === 0) return { precision: 0, recall: 0, f1: 0 };
  const left = countTokens(want);
  let overlap = 0;
  for (const token of got) {
    const count = left.get(token) ?? 0;
    if (count > 0) {
      overlap++;
      left.set(token, count - 1);
    }
  }
  const precision = overlap / got.length;
  const recall = overlap / want.length;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

function countTokens(tokens: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

/**
 * WCXB's `snippet_check`: the share of snippets found, case-insensitively, as
 * substrings of the text (1 when there are none). For `with` snippets higher is
 * better, for `without` (boilerplate) lower is better.
 */
export function snippetRate(text: string, snippets: string[]): number {
  if (snippets.length === 0) return 1;
  const lower = text.toLowerCase();
  return snippets.filter((snippet) => lower.includes(snippet.toLowerCase())).length / snippets.length;
}

/** The mean of each field over pages, as evaluate.py reports them (0 for no pages). */
export function meanOf<K extends string>(rows: Record<K, number>[], keys: readonly K[]): Record<K, number> {
  const result = {} as Record<K, number>;
  for (const key of keys) {
    result[key] = rows.length ? rows.reduce((sum, row) => sum + row[key], 0) / rows.length : 0;
  }
  return result;
}
