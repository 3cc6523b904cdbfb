/**
 * The phrases of one language other than English, beside the English tables of ../phrases.ts: each
 * phrase a regular expression's source, matched case aside. Chosen by the page's language
 * (pageKind.ts, pageLanguage), decided once per page; on a page in English none of them applies.
 */
export interface LanguagePhrases {
  /** Lines that are boilerplate whole, as BOILERPLATE_LINES (an arrow after one too). */
  readonly boilerplate: readonly string[];
  /** Headings that open a block of other things to look at, matched at the heading's start, as ELSEWHERE_HEADING. */
  readonly elsewhere: readonly string[];
  /** Headings that open readers' comments, matched whole ("Kommentare (12)"). */
  readonly comments: readonly string[];
  /**
   * The language's commonest short words, none shared with another table's (or English's) nor common as a
   * word in the other languages ("en", "die", "to" are left out): counted in a page that does not say its
   * language, to guess it (languages.ts, guessLanguage).
   */
  readonly stopWords: readonly string[];
}
