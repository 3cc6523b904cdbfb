/**
 * The numbers that tell a list that is the page's content (a home page's stories, an index's posts, a
 * category's courses) from a menu or a list of other articles beside the content (passes/lists.ts). Shape
 * only, in any language: how many items, how wide their links' text is, how much of the region they hold.
 * Measured on WCXB's dev split (http engine, the rule on against off, same build): collection 0.7588 -> 0.7569,
 * listing 0.7646 -> 0.7641 (a listing 0.688 -> 0.822; a collection whose run of cards is not in the truth
 * 0.724 -> 0.604); lists only (no runs of siblings), listing +0.0015 and collection -0.0016. The 181 article
 * pages unchanged (0.9765). WCXB's weak listing and collection figures have other causes (pages whose truth is
 * empty, lists written by scripts, lists inside blocks named like a sidebar on pages that say they are articles).
 */

/** Items a list needs to be what the page lists: fewer is a "see also" pair or a breadcrumb. */
export const LISTED_ITEMS = 4;

/**
 * Columns (characters; a wide character of CJK scripts counts two, as it is drawn) a linked title needs, on
 * average over the items: a menu's labels ("Shop", "About us", "Help centre") are shorter, a story's or a
 * course's title longer.
 */
export const TITLE_COLUMNS = 20;

/** Share of the items that must be titles (a link of TITLE_COLUMNS or more): a list may end with a "More" link. */
export const TITLED_SHARE = 0.8;

/** Share of the region's text the list holds: less, and it is a list beside the content, not the content. */
export const LISTED_SHARE = 0.25;

/**
 * Prose (text outside links) the region may hold outside its lists of titles: an index's introduction is a
 * paragraph or a few, an article's body is more, and a list of titles under an article is other articles.
 */
export const INTRODUCTION_PROSE = 1500;
