/**
 * The main-content corpus: test/fixtures/pages/<case>/page.html, each page as served (the shared site
 * furniture included), and expect.json, what its Markdown must hold. Read by the Node corpus test
 * (test/content/corpus.test.ts) and the Chromium parity run (test/content/corpusChromium.test.ts).
 * Self-contained (no import of the project's modules), so that a script can use it too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPUS_DIR = fileURLToPath(new URL('../fixtures/pages/', import.meta.url));

/** What one engine's extraction must give. Every field is optional; each holds its own check. */
export interface Checks {
  /** Strings the text a reader sees must hold (links as their text, escapes and bold undone, whitespace collapsed). */
  kept?: string[];
  /** Strings neither the Markdown nor its text may hold. */
  dropped?: string[];
  /** The site furniture (furniture.json) is dropped too. */
  dropsFurniture?: boolean;
  /** Each entry: a fenced code block holds these lines in order, one per line. */
  codeBlocks?: string[][];
  /** How many times each string is in the text (a line said once, or twice on purpose). */
  textCounts?: Record<string, number>;
  /** How many times each string is in the Markdown itself. */
  markdownCounts?: Record<string, number>;
  /** Strings the Markdown itself must hold (an image's syntax, say). */
  markdownIncludes?: string[];
  /** Regular expressions the Markdown must match: `count` times with flag g, else at least once. */
  markdownMatches?: { pattern: string; flags?: string; count?: number }[];
  /** A heading line of the Markdown holds this (the page's title kept as a heading). */
  titleHeading?: string;
  /** The Markdown is empty (blank). */
  empty?: boolean;
  /** The extraction's warning matches this regular expression; null: there is no warning. */
  warning?: string | null;
  /** Strings the extracted HTML must hold (the Node test extracts HTML when a case asks). */
  htmlIncludes?: string[];
}

/** An engine's checks that the other engine does not pass, with the reason. */
export interface EngineOnly extends Checks {
  why: string;
}

export interface CaseExpectations extends Checks {
  /** The path the page is served at (the rules read the page's address). */
  path: string;
  /** The tests that made these checks, as "describe > it" (the history of the case). */
  tests: string[];
  chromiumOnly?: EngineOnly;
  nodeOnly?: EngineOnly;
  /** Absent: Chromium's Markdown equals the Node path's, byte for byte. Else why they differ. */
  markdownDiffers?: string;
}

export interface Case {
  name: string;
  html: string;
  expect: CaseExpectations;
}

/** What an engine gave for a page. */
export interface Extraction {
  markdown: string;
  warning?: string | null;
  html?: string | null;
}

export function loadFurniture(): string[] {
  return JSON.parse(readFileSync(join(CORPUS_DIR, 'furniture.json'), 'utf8')) as string[];
}

export function loadCorpus(): Case[] {
  return readdirSync(CORPUS_DIR)
    .filter((name) => statSync(join(CORPUS_DIR, name)).isDirectory())
    .sort()
    .map((name) => ({
      name,
      html: readFileSync(join(CORPUS_DIR, name, 'page.html'), 'utf8'),
      expect: JSON.parse(readFileSync(join(CORPUS_DIR, name, 'expect.json'), 'utf8')) as CaseExpectations,
    }));
}

/** The text a reader sees in the Markdown: links as their text, escapes and bold undone, whitespace collapsed. */
export function plain(md: string): string {
  return md
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
    .replace(/\*\*/g, '')
    .replace(/\s+/g, ' ');
}

export const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

const times = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

/**
 * Every check of `checks` that `out` fails, one line each (empty: all passed). All are listed at
 * once, with the start of the Markdown, so one failing case shows all its problems.
 */
export function failedChecks(out: Extraction, checks: Checks, furniture: string[]): string[] {
  const md = out.markdown;
  const text = plain(md);
  const problems: string[] = [];
  for (const s of checks.kept ?? []) if (!text.includes(oneLine(s))) problems.push(`missing: ${JSON.stringify(s)}`);
  const dropped = [...(checks.dropped ?? []), ...(checks.dropsFurniture ? furniture : [])];
  for (const s of dropped) if (md.includes(s) || text.includes(oneLine(s))) problems.push(`leaked: ${JSON.stringify(s)}`);
  const blocks = [...md.matchAll(/^(```|~~~~)[^\n]*\n([\s\S]*?)\n\1$/gm)].map((m) => m[2]!);
  for (const lines of checks.codeBlocks ?? []) {
    if (!blocks.some((body) => body.includes(lines.join('\n')))) problems.push(`no fenced code block holds: ${JSON.stringify(lines)}`);
  }
  for (const [s, n] of Object.entries(checks.textCounts ?? {})) if (times(text, s) !== n) problems.push(`${times(text, s)} times in the text, not ${n}: ${JSON.stringify(s)}`);
  for (const [s, n] of Object.entries(checks.markdownCounts ?? {})) if (times(md, s) !== n) problems.push(`${times(md, s)} times in the Markdown, not ${n}: ${JSON.stringify(s)}`);
  for (const s of checks.markdownIncludes ?? []) if (!md.includes(s)) problems.push(`not in the Markdown: ${JSON.stringify(s)}`);
  for (const { pattern, flags = '', count } of checks.markdownMatches ?? []) {
    const found = md.match(new RegExp(pattern, flags))?.length ?? 0;
    if (count === undefined ? found === 0 : found !== count) problems.push(`/${pattern}/${flags} matched ${found} times${count === undefined ? '' : `, not ${count}`}`);
  }
  if (checks.titleHeading !== undefined) {
    const headings = md.split('\n').filter((line) => /^#{1,6} /.test(line));
    if (!headings.some((line) => plain(line).includes(checks.titleHeading!))) problems.push(`no heading holds the title ${JSON.stringify(checks.titleHeading)}; headings: ${JSON.stringify(headings)}`);
  }
  if (checks.empty && md.trim() !== '') problems.push('the Markdown is not empty');
  if (checks.warning === null && out.warning) problems.push(`unexpected warning: ${out.warning}`);
  if (typeof checks.warning === 'string' && !new RegExp(checks.warning).test(out.warning ?? '')) problems.push(`warning ${JSON.stringify(out.warning ?? null)} does not match /${checks.warning}/`);
  for (const s of checks.htmlIncludes ?? []) if (!(out.html ?? '').includes(s)) problems.push(`not in the HTML: ${JSON.stringify(s)}`);
  if (problems.length > 0) problems.push(`(the Markdown starts: ${JSON.stringify(md.slice(0, 700))}${md.length > 700 ? ` … ${md.length} chars in all` : ''})`);
  return problems;
}

/** The checks one engine must pass: those of both, and its own. */
export function checksFor(expectations: CaseExpectations, engine: 'chromium' | 'node'): Checks[] {
  const own = engine === 'chromium' ? expectations.chromiumOnly : expectations.nodeOnly;
  return own ? [expectations, own] : [expectations];
}
