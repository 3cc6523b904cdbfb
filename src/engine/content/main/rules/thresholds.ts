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

/*
 * Readability's pick against the region (passes/article.ts picksArticle): shares of the region's prose
 * (proseLength) and of its text (textLength) the pick must hold to be the content. Measured by scoring both
 * candidates of every page of WCXB's dev split and of the 181 benchmark pages.
 */

/** Any page: the pick holds nine tenths of the region's prose (links are menus and teasers more often than content)... */
export const PICK_PROSE = 0.9;
/** ...and a quarter of its text: less, and the rest is a listing whose items have no paragraphs (a job board). */
export const PICK_TEXT = 0.25;
/**
 * A product's page whose pick kept every block named for its details (keepsProductDetails): half of the prose.
 * WCXB dev: +0.74 page-F1 over three quarters (three fifths +0.30, two fifths +0.92, below that pages lose up to 0.76).
 */
export const PRODUCT_PICK_PROSE = 0.5;
/** A page that says nothing of itself, often an article: three quarters of the prose... (WCXB dev: won 1.7 page-F1 more than it lost) */
export const UNSAID_PICK_PROSE = 0.75;
/** ...and half of the text (three quarters of the text: 0.8 page-F1). */
export const UNSAID_PICK_TEXT = 0.5;
/** A page that says it is an article: three fifths of the prose. Below it the region did better on articles. */
export const ARTICLE_PICK_PROSE = 0.6;
/** A short news item on a busy page: a quarter of the prose will do... */
export const NEWS_ITEM_PICK_PROSE = 0.25;
/** ...while no more than this many of the region's paragraphs are left out of the pick (more: a thread, a listing). */
export const NEWS_ITEM_PARAGRAPHS_OUTSIDE = 10;
/** A paragraph, for counting those the pick left out: this many characters of prose or more (paragraphsOutside). */
export const PARAGRAPH_PROSE = 80;
/** Rows (a header cell among them) that make a table a data table, whose linked names Readability drops (a list page). */
export const DATA_TABLE_ROWS = 5;
/** Entries of one series (<article>s sharing a class) that make a page an archive of posts (isArchive). */
export const ARCHIVE_ENTRIES = 4;

/*
 * Link blocks in Readability's pick (passes/article.ts cleanArticle): related-article lists, tags, share bars.
 */

/** More than this share of a block's text in links makes it a link block... */
export const LINK_BLOCK_DENSITY = 0.5;
/**
 * ...unless this much of its text is outside its links (a paragraph's is SENTENCE): prose that happens to link
 * a lot. Guards blocks of prose with many links, since the link-block rule came in.
 */
export const PROSE_AROUND_LINKS = 150;

/*
 * Prose (passes/furniture.ts isProse): a block a furniture name may not take away.
 */

/** Characters of prose a block needs to be prose, not furniture, whatever its name says. */
export const PROSE_BLOCK = 300;
/** At most 1/N of its text in links: more, and it is a menu or a list of teasers, however long. */
export const PROSE_LINKED_PART = 5;

/*
 * Threads (passes/threads.ts) and products (passes/products.ts).
 */

/** Text of a vote button or count beside a post: a number and a word, no more. */
export const VOTE_TEXT = 20;
/** Prices (short blocks named "price" with a number) that make a page a category's products, not one product. */
export const LISTING_PRICES = 6;
/** A price's block: a number and a currency, a "was" price, a unit; longer is a block that mentions a price. */
export const PRICE_TEXT = 40;
/** Text of a product's named description blocks, together, below which they are not its description (productEssentials). */
export const PRODUCT_DESCRIPTION = 200;
/** A block named for a product's details counts from a line of text: a short specifications table too (keepsProductDetails). */
export const DETAIL_BLOCK = 20;
/** A JSON-LD description shorter than this is a tagline, not the product's story (addProductDescription). */
export const JSONLD_DESCRIPTION = 40;
/** Characters of a JSON-LD description (letters and digits) looked for in the content: found, it is there already. */
export const JSONLD_DESCRIPTION_PROBE = 50;
