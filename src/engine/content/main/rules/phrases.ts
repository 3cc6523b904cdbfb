/**
 * Tables of phrases: boilerplate lines, headings of other things to look at, labels and prices, as
 * patterns matched on a block's whole text.
 */
/** A price as cards show it: "$19.99", "€ 82", "82 €", "149 kr", "20 zł". */
export const PRICE = /[$€£¥₹]\s?\d|\d\s?(€|£|kr|zł|Kč|CHF|USD|EUR|GBP)/;

/**
 * Boilerplate lines that say the same on every site: short, and matched whole (an arrow after
 * one too), case aside. One phrase a line, as a regular expression's source.
 */
export const BOILERPLATE_LINES: readonly string[] = [
  // A card's badge ("Best Seller", "Top Rated", "New arrival").
  String.raw`new arrivals?`,
  String.raw`top rated`,
  String.raw`best ?sell(er|ing)`,
  String.raw`award winner`,
  String.raw`(on )?sale`,
  String.raw`limited edition`,
  String.raw`online only`,
  String.raw`just in`,
  // What a forum says of a member or a post beside it ("Registered: 2016-07-02", "Posts: 710",
  // "Last edited by ...", "Start date Jul 9, 2022"), and its counts ("12 replies", "1.2k views").
  String.raw`last edited( by [^.]{1,30})?:? [^.]{1,30}`,
  String.raw`start date:? [^.]{1,20}`,
  String.raw`(posts|threads|messages|reactions?|likes|points|reputation|joined|registered):? ?[\d,.\-/]+[km]?`,
  String.raw`[\d,.]+\s*[km]?\s*(likes?|replies|views|posts|votes|reactions)`,
  String.raw`forum jump`,
  String.raw`no posts\.?`,
  String.raw`not the answer you're looking for\?.*`,
  String.raw`your answer`,
  // A results bar's lines ("Skip to search results", "Showing 1 – 24 of 311 results", "Sort by: Best match").
  String.raw`skip to [^.]{1,30}`,
  String.raw`(showing |loaded )?([\d,]+ ?(-|–|to) ?)?[\d,]+ (of [\d,]+ )?(results|items|products)`,
  String.raw`sort(ed)? by:?( [^.]{1,25})?`,
  String.raw`sort:( [^.]{1,25})?`,
  String.raw`sort (and|&) filter`,
  String.raw`results list`,
  // An article's signposts ("Written by", "Table of contents", "Back to top", "Read next", "Jump to").
  String.raw`table of contents`,
  String.raw`written by`,
  String.raw`jump to( [^.]{1,25})?`,
  String.raw`back to top`,
  String.raw`read next`,
  String.raw`related (posts|articles|stories)`,
  String.raw`you may also like`,
  String.raw`(last )?updated( on)?:? .{0,40}`,
  String.raw`(story|article) continues below( (the )?(advertisement|ad))?`,
  // The labels of buttons that act or lead elsewhere ("Book now", "Learn more").
  String.raw`expand description`,
  String.raw`(book|buy|shop|order) now`,
  String.raw`shop all`,
  String.raw`(learn|read|see|view|show|load|find out|discover) more`,
  String.raw`(view|more) details`,
  String.raw`add to (cart|bag|basket|wishlist|list)`,
  String.raw`get started`,
  String.raw`view (all|in list)`,
  String.raw`see all`,
  String.raw`continue reading`,
  String.raw`click here`,
  String.raw`quick view`,
  String.raw`(select|choose) options`,
  String.raw`more info`,
  String.raw`view options`,
  String.raw`calculate shipping`,
  // The controls beside each item or post ("Add to compare", "Reply", "Quote", "Report", "Close", "Loading...").
  String.raw`(add to )?compare`,
  String.raw`reply( with quote)?`,
  String.raw`quote`,
  String.raw`report( post| this)?`,
  String.raw`close`,
  String.raw`loading( \.\.\.|\.\.\.|…)?`,
  String.raw`click to expand\.{0,3}`,
  String.raw`toggle caption`,
  String.raw`clear rating`,
  String.raw`(\d of \d stars ?){3,}`,
  // Prompts: to comment, share, rate, subscribe, sign in, edit.
  String.raw`create an account or sign in to comment\.?`,
  String.raw`already have an account\?? sign in here\.?`,
  String.raw`(you must )?((sign in|log in) )?(or )?(sign in|log in|register) to (comment|reply|post).{0,20}`,
  String.raw`leave a (reply|comment).*`,
  String.raw`share( this)?( article| post| page| story)?:?`,
  String.raw`was this (page|article|answer|post|information) (helpful|useful)\??.*`,
  String.raw`thanks for your feedback!?`,
  String.raw`rate this (book|recipe|article|post|product|page|item|story)`,
  String.raw`(subscribe|sign up) (to|for) (our|the) newsletter.*`,
  String.raw`edit this page.*`,
  String.raw`free (shipping|delivery) on (all )?orders.{0,30}`,
  // Advertisement labels.
  String.raw`sponsored`,
  String.raw`advert(isement)?( \(.{0,40}\))?`,
  // The small print.
  String.raw`(copyright )?(©|\(c\)|copyright) ?\d{4}.{0,150}`,
  String.raw`.{0,150}\ball rights reserved\b.{0,60}`,
  String.raw`powered by [^.]{0,40}`,
  // What a page says to a reader without scripts.
  String.raw`this slideshow requires javascript\.?`,
  String.raw`((you need to|please) )?(enable|turn on) javascript.{0,80}`,
  String.raw`javascript is (disabled|required).{0,80}`,
];

export const BOILERPLATE = new RegExp(String.raw`^(${BOILERPLATE_LINES.join('|')})\s*[›»→>]?$`, 'i');

/**
 * The line of when, by whom and how much under an item or post ("5 hours ago", "Anthony Ha
 * 13 hours ago", "1 point by rbanffy 0 minutes ago | hide | past | discuss", "4 min read"):
 * short, and always relative to the day the page was fetched.
 */
export const WHEN_LINE = /^(.{0,40}\s)?\d+\s*(seconds?|mins?|minutes?|hours?|days?|weeks?|months?|years?)\s+ago\b.{0,30}$|^\d+\s*min(ute)?s?\s+read$/i;

/**
 * A line that is only a date in digits, with its time or not ("12.11.2026, 14:35 Uhr", "2026-11-12 09:10",
 * "13/11/2026"): a story's date stamp, the same in any language. The year in four digits: "1.2.10" is a version.
 */
export const DATE_LINE = /^(\d{1,2}[./]\s?\d{1,2}[./]\s?\d{4}|\d{4}-\d{2}-\d{2})(,?\s*[|–-]?\s*\d{1,2}[:.h]\d{2}(\s*(uhr|h))?)?$/i;

/** A link's text that is an address. */
export const SHOWN_ADDRESS = /^(https?:\/\/|www\.)\S+$/i;

/** A label that sends the reader elsewhere ("Read more:", "Related:", "See also:"). */
export const ELSEWHERE_LABEL = /\b(read|related|more|see also)\b/i;

/** Headings that open a block of other things to look at: never this page's own content. */
export const ELSEWHERE_HEADING =
  /^(.{0,20}\b)?(you (may|might) also (like|enjoy|love|be interested in)|related (products?|items?|articles?|posts?|stories|content|reading|searches)|(customers|people|shoppers) who (viewed|bought)|(customers|people) (also )?(viewed|bought|liked)|recently viewed|frequently bought together|complete the look|shop the look|similar (products?|items?|threads|topics|questions|discussions|posts|articles|stories)|related (threads|topics|questions|discussions)|suggested (topics|threads)|more topics from|more (from this (seller|brand|shop)|like this|products)|recommended (for you|products|items)|trending now|popular (products|items)|explore (more|related))\b/i;

/** Headings of what customers say of a product, on its page. */
export const REVIEWS_HEADING =
  /^([\d.,]+\s+)?(customer |product |verified )?(reviews?|ratings?( (&|and) reviews?)?|testimonials?)\b|^what (our )?(customers|clients|people) (are )?(say|saying|think)|^(customer )?questions?( (&|and) answers?)?$/i;

/** An excerpt cut short ("…", "[...]", "... Read more"): the end of a teaser of another page (passes/article.ts isTeaser). */
export const TEASER_END = /(\.\.\.|…|\[(\.\.\.|…)\])\s*((read|continue reading|more)\b.{0,20})?$/i;
