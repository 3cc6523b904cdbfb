/**
 * The data of the language-free signals (passes/stamps.ts, passes/authorBox.ts, passes/headedLinks.ts): the
 * shapes of a date line, a byline, an author's box and a headed list of other articles, in numbers. Each
 * entry says what it was measured on (bench:quality, engine http: fundus' development half, Readability's
 * non-English pages, the 181 articles, WCXB dev per type). The three passes together: fundus dev 0.950 -> 0.952,
 * the 181 articles 0.9766 -> 0.9781, WCXB dev 0.8890 -> 0.8893 with no type down by more than 0.0003 (forum),
 * Readability's non-English pages 0.952 -> 0.951 (its qq page's truth keeps the date line the others leave out).
 */

/** A paragraph of the body: this many characters outside links. The body's first and last such paragraph are its edges. */
export const BODY_PARAGRAPH = 80;

/** Longest line a date line or a byline is ("Friday, 22 Nov 2024 4:55 PM MYT", "Von Nicole Opitz | 12.03.2024, 14:35 Uhr"). */
export const STAMP_MAX_CHARS = 80;

/** A year, alone or in a date ("2024", "15.4.2024", "2025年"): a date line names one. */
export const YEAR = /(?:^|[^\d])(?:19|20)\d{2}(?:[^\d]|$)/;

/** Words (tokens without a digit) a date line holds at most: a month, a weekday, "Uhr", "Publié le", "Updated". */
export const STAMP_MAX_WORDS = 6;

/**
 * Letters a date line holds per digit at most: "Friday, 22 Nov 2024 4:55 PM MYT" 14 for 9, "Publié le 12 mars 2024 à
 * 14h35" 14 for 10; a sentence in a script without spaces that names a year ("在2014年收购的人工智能公司…") many more
 * (Readability's qq page lost its first paragraph without this).
 */
export const STAMP_LETTERS_PER_DIGIT = 2.5;

/** Share of a line's text inside <time> elements that makes it a date line, whatever its words. */
export const TIME_SHARE = 0.5;

/** Longest box about the author: a name, a role, a photo and a few sentences of biography. */
export const AUTHOR_BOX_MAX_CHARS = 700;

/** Characters a box holds beyond the author's name (or a photo): a role, a line of biography. A name alone is a signature. */
export const AUTHOR_BOX_MORE = 20;

/** Body paragraphs before an author's box: at the end of an article, not its start. */
export const AUTHOR_BOX_AFTER = 2;

/**
 * A byline where the page declares no author: a word that says a name follows ("By", "Von", "Par", "Por",
 * "Autor:"), then the name, one to four capitalised words ("Jane Doe", "Nicole Opitz", "Ana García", two names
 * joined). Shape cannot tell "By the river" from "By Jane Doe" but for the capitals, so the opening words are a table.
 */
export const BYLINE_WORD = /^(?:by|von|par|por|di|av|af|door|przez|autor|autorin|author|text|texte):?$/i;

/** The name after BYLINE_WORD: capitalised words (with a "van", "de", "von" inside), one or two names joined. */
export const BYLINE_NAME =
  /^\p{Lu}[\p{L}'’.-]*(?:\s+(?:\p{Lu}[\p{L}'’.-]*|van|von|de|da|del|der|di|du|la|le)){0,3}(?:\s*(?:,|and|und|et|y|e|i|og|och|en|a)\s+\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){0,3})?/u;

/** Longest heading or label that opens a list of other articles ("Empfehlungen aus der Redaktion"). */
export const HEADING_LABEL = 60;

/** Prose the page keeps outside a headed list of titles for the list to be other articles: an article's body. */
export const HEADED_LIST_BODY = 1500;

/**
 * Share of a headed list's text in its links: a list of other articles is their titles. Without it, WCXB dev lost
 * pages whose headed lists are their content: references with a link each (0348 -0.12), a documentation page's
 * resources with their descriptions (0701 -0.09), reviews with their teasers (4150 -0.21).
 */
export const HEADED_LIST_LINKED = 0.7;

/**
 * Longest widget with its prompt (passes/prompts.ts): the controls' labels and the short text by them ("War der Artikel
 * nützlich? Ja Nein", "Bewerten: ★★★★★", "Share this: Facebook X WhatsApp E-Mail", "Kommentar schreiben").
 */
export const PROMPT_MAX_CHARS = 150;

/** Prose a page keeps outside a widget's box for its prompt to be beside an article's body, not a page of forms. */
export const PROMPT_BODY = 1000;

/**
 * A link that shares the page on another service: their share endpoints, the same on every site that uses them
 * (Facebook's sharer, X's intent, WhatsApp's send, a mail with no address...). A cluster of two or more is a share widget.
 */
export const SHARE_LINK =
  /^(?:(?:https?:)?\/\/(?:[\w-]+\.)*(?:facebook\.com\/(?:sharer|share\.php|dialog\/share)|(?:twitter|x)\.com\/(?:intent|share)|linkedin\.com\/(?:shareArticle|sharing|cws\/share)|pinterest\.[a-z.]+\/pin\/create|reddit\.com\/submit|(?:api\.)?whatsapp\.com\/send|wa\.me\/|t\.me\/share|telegram\.me\/share|vk\.com\/share|xing\.com\/(?:spi\/shares|social\/share)|tumblr\.com\/(?:share|widgets\/share)|bsky\.app\/intent|threads\.net\/intent|getpocket\.com\/(?:save|edit)|flipboard\.com\/bookmarklet|line\.me\/R\/msg|social-plugins\.line\.me|story\.kakao\.com\/share|band\.us\/plugin\/share|b\.hatena\.ne\.jp\/entry|service\.weibo\.com\/share)|mailto:\?|whatsapp:\/\/send|fb-messenger:)/i;
