/**
 * The numbers the passes decide by, each with the measured reason it has today.
 */
/** Items a grid needs to be a category's products rather than a row of teasers. */
export const MIN_GRID_ITEMS = 6;

/** Paragraph prose a block after the main region needs to be the page's own text. */
export const PROSE_AFTER_MAIN = 600;

export const SCREEN_READER_LABEL = 80;

/** Above this share of the article's text, the lists among its link blocks are what the page lists. */
export const LIST_PAGE_SHARE = 0.5;

/** Text outside a paragraph's links that makes it a sentence around them. */
export const SENTENCE = 45;

/** Longer than this, the text before a block is a sentence, not a label. */
export const LABEL = 60;

/** A block said again with fewer characters (a label, a price, a step) is content, unless it is part of a copy of a section (see copiedLines). */
export const COPIED_BLOCK = 60;

/** Short blocks said again in the same order as their originals, this many in a row, are a copy of them. */
export const COPIED_RUN = 3;

/** A paragraph or two of prose: less, above a product's name, is a notice rather than its story. */
export const STORY_ABOVE_TITLE = 400;

/** Shorter headings ("News", "Latest") are named by many a title that is not about them. */
export const MIN_NAMED_HEADING = 20;

/** Below this many characters, a selection that left most of the main region out is suspect. */
export const SHORT_CONTENT = 250;

/** Readability's pick this long or longer is a post, not an archive's introduction (a paragraph or two). */
export const ARCHIVE_INTRODUCTION = 1500;
