/**
 * The numbers that tell a list that is the page's content (a home page's stories, an index's posts, a
 * category's courses) from a menu or a list of other articles beside the content (passes/lists.ts). Shape
 * only, in any language: how many items, how wide their links' text is, how much of the region they hold.
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
