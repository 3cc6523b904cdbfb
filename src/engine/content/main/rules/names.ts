/**
 * Tables of names: element selectors, and words of classes and ids, that say what a block is
 * (furniture, a panel, a comment section...). Each carries why it is there and, where it was measured,
 * what it did. Names of one vendor or CMS say where they were seen.
 */
import { COMMENT_SERVICES, EMBEDDED_POSTS, namesOf, VENDOR_ALWAYS_FURNITURE_WORDS, VENDOR_FURNITURE_WORDS, VENDOR_HIDING_CLASSES } from './sites.js';

/** Page furniture by element and role: never the content, whatever the page. A tooltip is what a term or an icon shows on hover (a definition, a delivery note). */
export const FURNITURE_TAGS =
  'nav, aside, footer, dialog, header:not(:has(h1)):not(article header), form[role="search"], [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], [role="dialog"], [role="alertdialog"], [role="menu"], [role="menubar"], [role="toolbar"], [role="tooltip"]';

/** Page furniture by class or id, as whole words of the name (cookie-banner, shareBar, site_nav, a feature's small print "benefit__disclaimer", a block of "trending-posts", and "nocontent", Google's class for what a page says is not its content). */
export const FURNITURE_NAMES = new RegExp(
  '^(' +
    [
      'cookies?', 'consent', 'gdpr', 'newsletter', 'subscribe', 'subscription', 'signup',
      'share', 'sharing', 'social', 'breadcrumbs?', 'sidebar', 'related', 'recommended',
      'recommendations', 'advert', 'advertisement', 'ads?', 'sponsored', 'popup', 'modal',
      'skip', 'skiplink', 'menu', 'navbar', 'nav', 'navigation', 'masthead', 'pagination', 'pager',
      'toc', 'feedback', 'toolbar', 'banner', 'filters?', 'facets?', 'sort',
      'refinements?', 'bio', 'authorbox', 'disclaimers?', 'trending', 'nocontent',
      ...namesOf(VENDOR_FURNITURE_WORDS),
    ].join('|') +
    ')$',
  'i',
);

/**
 * Names of navigation and of filter panels, which a block of prose can carry too: a tab
 * panel named "lm_navSource", a menu page's "menu-content", a category page's buying
 * guide in a "facet-row-container", a guide's section named for the table of contents
 * that lists it ("toc-para"). Such a block is kept (see isProse).
 */
export const PROSE_CAN_CARRY_NAMES = /^(menu|navbar|nav|navigation|toolbar|filters?|facets?|toc)$/i;

/**
 * Names of filter panels and page links, which a category's grid of products can carry too: a
 * theme's "facets-vertical" around both its filters and its grid, an endless list's
 * "pagination" wrapper. Such a block is kept when it holds a grid (see holdsGrid), as the
 * products are the page's content. Measured on WCXB's dev pages: -0.21 page-F1, two
 * collections whose truths leave the grid out, +0.17 one that keeps it.
 */
export const GRID_CAN_CARRY_NAMES = /^(pagination|pager|filters?|facets?|sort|refinements?)$/i;

/**
 * A post quoted from a social network (the markup its embed code leaves): content,
 * though the block around it is often named "social-media-embed".
 */
export const EMBEDDED_POST = namesOf(EMBEDDED_POSTS).join(', ');

/**
 * Names that are furniture whatever share of the text they hold: on a page with
 * little content of its own, a cookie banner can hold a third of the text.
 */
// Not "cmp" (consent management platform): Adobe Experience Manager prefixes every component with it.
export const ALWAYS_FURNITURE_NAMES = new RegExp(`^(${['cookies?', 'consent', 'gdpr', ...namesOf(VENDOR_ALWAYS_FURNITURE_WORDS), 'newsletter', 'popup', 'modal', 'announcement'].join('|')})$`, 'i');

/**
 * The hash CSS Modules append to a class ("mdx-table_root__adKqa", "sidebar_nav__81O9J"):
 * five characters that mean nothing, though split as camelCase they read "ad Kqa". Only
 * a hash with a capital or a digit: "card__title" is a BEM element, a word.
 */
export const CSS_MODULE_HASH = /__[A-Za-z0-9_-]{5}(?=\s|$)/g;

/**
 * What styled-components adds to a component's name in its class: "Footer-styled__Footer-sc-d11cfc8d-0"
 * is the Footer component of Footer.styled.js, and says "footer" as "site-footer" does.
 */
export const STYLED_COMPONENT = /-styled__|-sc-[a-z0-9]+-\d+(?=\s|$)/g;

/**
 * A page's own footer built of divisions, named for what it is ("footer", "site-footer",
 * "globalfooter", "page-layout__footer", Portuguese "rodape"). Only a class or id made of
 * nothing but page and layout words: a card's, a post's or a section's footer
 * ("card__footer", "article-footer", "PageSection_footerContent") holds a byline, tags or
 * a closing paragraph. The same rule for headers measured negative (a hero's "page-header").
 */
export const PAGE_FOOTER_WORD = /^(site|page|global|main)?(footer|rodape)$/i;

export const PAGE_LAYOUT_WORD = /^(site|page|global|main|layout|app|wrapper|container|area|outer|inner|bottom)$/i;

/**
 * Template parts that Vue, Alpine and AngularJS keep hidden (their CSS hides the
 * attribute) until their scripts render them, which removes it: a modal, a
 * notice, a template's unfilled copy. Still there, it was never rendered.
 */
export const CLOAKED = '[v-cloak], [x-cloak], [ng-cloak], [data-ng-cloak], .ng-cloak';

/**
 * What such a framework shows and hides at a click (Vue's v-show, Alpine's x-show, AngularJS's
 * ng-show): cloaked too until the scripts run, but rendered. Under the title that toggles it, such
 * a block of prose is an accordion's panel (an FAQ's answer), content; a toast ("Added to your
 * bag") is not.
 */
export const TOGGLED = '[v-show], [x-show], [ng-show], [data-ng-show]';

/**
 * A word an icon font draws as a glyph ("arrow_drop_down", "search", "local_offer"): Material's
 * icon classes, or a lone lowercase word hidden from screen readers. Other text hidden from screen
 * readers (aria-hidden) shows on screen all the same, and is content: the count beside a rating,
 * a teaser's summary linked a second time. Measured on WCXB's dev pages: +2.74 page-F1 (collection
 * 0.723 -> 0.741) once aria-hidden no longer hid; the same without the ligatures' exception, which
 * keeps icon words out of the text.
 */
export const ICON_FONT_CLASS = /(^|\s)(google-)?material-(icons|symbols)/;

/** A dialog, modal or not. */
export const DIALOG = 'dialog, [role="dialog"], [role="alertdialog"], [aria-modal="true"]';

/** Class words that mark the open one of a set of panels: "active", "is-active", "current", "selected", "show", "open". */
export const OPEN_PANEL = /^(is-)?(active|current|selected|show|shown|open|visible)$/i;

/** Names of a tab's panel: Bootstrap's and Newegg's "tab-pane", "tab-panel", "tabcontent". */
export const TAB_PANEL_NAMES = /^(tab|tabs|pane|panel|tabpane|tabpanel|tabcontent)$/i;

/** Names of slides: a carousel's other slides are the next turn of a promotion, not content one click away. */
export const SLIDE_NAMES = /carousel|slide|slick|swiper|splide|glide|banner|hero/i;

/** Utility classes that hide an element at every screen size (Bootstrap, Tailwind, Bulma, Foundation, WordPress; and vendors' own, see sites.ts). */
export const HIDING_CLASSES = new RegExp(
  `^(${['d-none', 'hidden', 'is-hidden', 'hide', 'invisible', 'display-none', 'u-hidden', 'visually-hidden-focusable-never', ...namesOf(VENDOR_HIDING_CLASSES)].join('|')})$`,
  'i',
);

/** A class that shows the element again at some screen size: "d-none d-md-block", "hidden md:block". */
export const SHOWING_CLASSES = /^(d-(sm|md|lg|xl|xxl)-(?!none)[a-z-]+|(sm|md|lg|xl|2xl):(?!hidden)[a-z-]+|is-(block|flex|inline)[a-z-]*)$/i;

/** Tags a browser shows inline unless the page's styles say otherwise. */
export const INLINE_TAGS = /^(SPAN|A|B|STRONG|EM|I|SMALL|LABEL|TIME|ABBR|CITE|DFN|MARK|Q|S|U|DEL|INS|BDI)$/;

export const BLOCK_DISPLAY = /^(block|flex|grid|list-item|table)$/;

export const CAROUSEL_CONTROLS = /^(btns?|buttons?|arrows?|dots)$/i;

/**
 * Text for screen readers only, in the classes that clip it to nothing on screen (WordPress's
 * screen-reader-text, Bootstrap's and Tailwind's sr-only, Shopify's visually-hidden): "Regular
 * price" before each price, "Original price was: $30.00." beside the struck-out price, "Skip to
 * content". A browser counts it as shown. Short labels only, and never the h1: some pages give
 * their title to screen readers alone, and it still names the page.
 * Measured on WCXB's dev pages: +1.18 page-F1, most of it on category pages; the 181 pages unchanged.
 */
export const SCREEN_READER_ONLY = '.sr-only, .visually-hidden, .screen-reader-text, .visuallyhidden, .screenreader-only, .u-hidden-visually, .a11y-hidden';

/** Names for where a heading sits ("entry-header", Tailwind's "scroll-mt-20", Bootstrap's "media-heading"). */
export const LAYOUT_NAME = /header|scroll|media/i;

/**
 * A blog's comment section, by the names blog engines and comment services give it. Movable
 * Type's classic templates leave the comments unwrapped: a "comments-head" and one
 * "comments-body" each, beside the post.
 */
export const COMMENT_SECTIONS =
  `#comments, #respond, ${namesOf(COMMENT_SERVICES).join(', ')}, .comments-area, .comment-respond, .commentlist, .comment-list, #commentlist, .comments-section, #comment-section, .comments-container, .comments-head, .comments-body`;

/** Words naming who wrote a post, and words naming what a forum adds about them. */
export const POSTER = /^(user|member|author|poster)s?$/i;

export const POSTER_DETAIL = /^(extras?|stats|titles?|banners?|blurb|joined|since|signatures?|card|rank)$/i;

/**
 * A product's title named as one: "product-title", "productName", "product_title__heading", Amazon's
 * "productTitle". Not "pdp" (product detail page) alone: a course page's "lf-pdp-fundamental-header" heads
 * a page whose truth keeps its learners' reviews (-0.39 on WCXB's dev page).
 */
export const PRODUCT_TITLE_NAME = /\bproduct (title|name|heading)\b/i;

/** Names of the blocks that hold a product's description, specifications and details (product-description, productDescription, tech-specs, productDetails: materials, care). */
export const DESCRIPTION_NAMES = /^(desc|descr|description|productdesc|productdescription|specs?|specifications?|techspecs|details|productdetails)s?$/i;

/** Names of blocks that hold a product's details beside those that name its description: its features, overview, comparison table, attributes. */
export const DETAIL_NAMES = /^(features?|overview|comparison|attributes?)$/i;

/** What a forum shows beside each post besides its author's details: a signature, notices, a profile box, badges (passes/threads.ts). */
export const POSTER_EXTRA = /^(signatures?|notices?|postprofile|gravatar\d*|flair|reputation|badges?)$/i;

/** Vote buttons and counts beside a post (passes/threads.ts). */
export const VOTES = /^(votes?|votecell|voting|upvotes?|downvotes?)$/i;

/** A reply to the page's post: a thread's answers, readers' comments (passes/threads.ts isReply). */
export const REPLY = /^(repl(y|ies)|comments?|answers?)$/i;

/** Customers' reviews of a product (passes/products.ts removeReviews). */
export const REVIEWS = /^(reviews?|ratings?)$/i;

/** A block named for a product's price (passes/products.ts prices). */
export const PRICE_NAME = /^price$/i;
