/**
 * The languages main content knows beyond English, and how a page's language is told: what the page
 * declares (html lang, og:locale, Content-Language), else the words of its text. English keeps its own
 * tables in phrases.ts and is what a page of no known language gets: on it, nothing here applies.
 */
import { BOILERPLATE, BOILERPLATE_LINES, ELSEWHERE_HEADING } from './phrases.js';
import { de } from './phrases/de.js';
import { es } from './phrases/es.js';
import { fr } from './phrases/fr.js';
import { it } from './phrases/it.js';
import { nl } from './phrases/nl.js';
import { pl } from './phrases/pl.js';
import { pt } from './phrases/pt.js';
import type { LanguagePhrases } from './phrases/types.js';

/** The tables by language (ISO 639-1). */
export const LANGUAGES: Readonly<Record<string, LanguagePhrases>> = { de, fr, es, it, pt, nl, pl };

/** English's commonest short words, to weigh a page's text against the other languages'. */
export const ENGLISH_STOP_WORDS: readonly string[] = ['the', 'and', 'of', 'that', 'with', 'for', 'are', 'this', 'it', 'be', 'by', 'have', 'not', 'you', 'at', 'which', 'from', 'has', 'were', 'they'];

/**
 * A guess from the text is taken when its language's stop words are counted this many times at
 * least, and twice as often as the next language's: a page of a few lines, or one mixing languages,
 * keeps what it declares.
 */
export const GUESS_MIN_HITS = 10;
export const GUESS_MARGIN = 2;

/** The language of a tag such as "de-AT", "pt_BR", "fr" (lower case, two or three letters); '' for none. */
export function languageOfTag(tag: string | null | undefined): string {
  const match = /^\s*([a-z]{2,3})(?:[-_][a-z0-9]+)*\s*(?:[,;].*)?$/i.exec(tag || '');
  return match ? match[1]!.toLowerCase() : '';
}

/** The language whose stop words `text` holds most of ('en' among them), when it stands out; '' else. */
export function guessLanguage(text: string): string {
  const counts = new Map<string, number>();
  const lists: [string, readonly string[]][] = [['en', ENGLISH_STOP_WORDS], ...Object.entries(LANGUAGES).map(([lang, t]): [string, readonly string[]] => [lang, t.stopWords])];
  const index = new Map<string, string[]>();
  for (const [lang, list] of lists) for (const word of list) index.set(word, [...(index.get(word) ?? []), lang]);
  for (const word of text.toLowerCase().split(/[^\p{L}]+/u)) {
    for (const lang of index.get(word) ?? []) counts.set(lang, (counts.get(lang) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked;
  if (!first || first[1] < GUESS_MIN_HITS || (second && first[1] < GUESS_MARGIN * second[1])) return '';
  return first[0];
}

/**
 * The page's language: what it declares, unless its text says clearly it is another (a theme left
 * at lang="en-US" on a German blog); a page that declares nothing is what its text says. '' when
 * neither tells. `declared` in the order trusted: html lang, og:locale, Content-Language.
 */
export function chooseLanguage(declared: (string | null | undefined)[], text: string): string {
  const said = declared.map(languageOfTag).find(Boolean) ?? '';
  const guessed = guessLanguage(text);
  return guessed && guessed !== said && (said === '' || said === 'en') ? guessed : said;
}

/** A test of a line or a heading's text (a regular expression, or two of them). */
export type TextTest = Pick<RegExp, 'test'>;

/** The phrase rules of one page's language, compiled: English's, with the language's own beside them. */
export interface PagePhrases {
  /** A boilerplate line, matched whole (BOILERPLATE). */
  readonly boilerplate: TextTest;
  /** A heading that opens a block of other things to look at (ELSEWHERE_HEADING). */
  readonly elsewhere: TextTest;
  /** A heading that opens readers' comments; null in English, whose comment sections are known by their names. */
  readonly comments: RegExp | null;
}

/** English's rules: those of a page in English, or in a language without tables. */
export const ENGLISH_PHRASES: PagePhrases = { boilerplate: BOILERPLATE, elsewhere: ELSEWHERE_HEADING, comments: null };

const compiled = new Map<string, PagePhrases>();

/** The rules for a page in `language` (compiled once per language): English's alone for English and for a language without tables. */
export function phrasesFor(language: string): PagePhrases {
  const table = LANGUAGES[language];
  if (!table) return ENGLISH_PHRASES;
  let phrases = compiled.get(language);
  if (!phrases) {
    const whole = (lines: readonly string[]) => new RegExp(String.raw`^(${lines.join('|')})\s*[›»→>]?$`, 'i');
    const own = new RegExp(String.raw`^(.{0,20}\b)?(${table.elsewhere.join('|')})(?![\p{L}])`, 'iu');
    phrases = {
      boilerplate: whole([...BOILERPLATE_LINES, ...table.boilerplate]),
      elsewhere: { test: (text: string) => ELSEWHERE_HEADING.test(text) || own.test(text) },
      comments: new RegExp(String.raw`^(${table.comments.join('|')})\s*:?$`, 'i'),
    };
    compiled.set(language, phrases);
  }
  return phrases;
}
