/**
 * bench:quality's per-language and per-type tables: every page of every set scored the same way,
 * WCXB's word scoring (score.ts, wordScore: per-page word P, R, F1 over lower-cased `\w+` tokens,
 * means over pages), with one change that leaves text in spaced scripts as it is: each Han, kana or
 * Thai character counts as a word of its own (`\w+` reads a whole Japanese or Chinese sentence as one
 * token, so one stray character would fail it all). Rows by source (a set, or fundus' two halves) and
 * by the language of the page's truth (language.ts).
 */
import { detectLanguage } from './language.js';
import { wordScore } from './score.js';
import type { BenchSet } from './sets.js';

export interface LanguageRow {
  source: string;
  language: string;
  type: string;
  id: string;
  f1: number;
  precision: number;
  recall: number;
}

/** Text with each character of an unspaced script set apart, so `\w+` reads it as one word. */
export function spacedIdeographs(text: string): string {
  return text.replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/gu, ' $& ');
}

/** Each page's row: its source, language, type and word scores. */
export function languageRows(set: BenchSet, texts: Map<string, string>): LanguageRow[] {
  return set.pages.map((page) => {
    page.language ??= detectLanguage(page.truth);
    const score = wordScore(spacedIdeographs(page.truth), spacedIdeographs(texts.get(page.id) ?? ''));
    return { source: page.source ?? set.name, language: page.language, type: page.type, id: page.id, ...score };
  });
}

function mean(rows: LanguageRow[], key: 'f1' | 'precision' | 'recall'): number {
  return rows.length ? rows.reduce((sum, row) => sum + row[key], 0) / rows.length : 0;
}

function line(label: string, rows: LanguageRow[]): string {
  return `    ${label.padEnd(22)} ${String(rows.length).padStart(5)}  ${mean(rows, 'f1').toFixed(3)}  ${mean(rows, 'precision').toFixed(3)}  ${mean(rows, 'recall').toFixed(3)}`;
}

function groupBy(rows: LanguageRow[], key: (row: LanguageRow) => string): Map<string, LanguageRow[]> {
  const groups = new Map<string, LanguageRow[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return new Map([...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0])));
}

/** One set's figures by source (fundus: its two halves), for the set's own report. */
export function reportWords(rows: LanguageRow[], who: string): void {
  console.log(`  ${who}:`);
  console.log(`    ${'source'.padEnd(22)} ${'pages'.padStart(5)}  F1     P      R`);
  for (const [source, ofSource] of groupBy(rows, (row) => row.source)) console.log(line(source, ofSource));
}

/**
 * The closing tables over every set run: by language (all sources, then each source's languages), by
 * source for pages not in English, and by page type. Languages with one page are listed with the rest.
 */
export function printLanguageTables(rows: LanguageRow[]): void {
  if (rows.length === 0) return;
  const header = (label: string) => console.log(`    ${label.padEnd(22)} ${'pages'.padStart(5)}  F1     P      R`);
  console.log('\nPer language (word scoring on every set, Han/kana/Thai characters as words):');
  header('language');
  for (const [language, ofLanguage] of groupBy(rows, (row) => row.language)) console.log(line(language, ofLanguage));
  console.log("  not in English, by source (pages whose language was told: 'und' left out):");
  header('source');
  const foreign = rows.filter((row) => row.language !== 'en' && row.language !== 'und');
  console.log(line('all', foreign));
  for (const [source, ofSource] of groupBy(foreign, (row) => row.source)) console.log(line(source, ofSource));
  console.log('  by source and language:');
  header('source/language');
  for (const [source, ofSource] of groupBy(rows, (row) => row.source)) {
    for (const [language, ofLanguage] of groupBy(ofSource, (row) => row.language)) console.log(line(`${source}/${language}`, ofLanguage));
  }
  console.log('Per page type (every set):');
  header('type');
  for (const [type, ofType] of groupBy(rows, (row) => row.type)) console.log(line(type, ofType));
}
