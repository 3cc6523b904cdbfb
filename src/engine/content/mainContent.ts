/**
 * Main content, in the page: what a reader came for, on any kind of page.
 *
 * Two candidates are built from the same clean copy of the page:
 * - the region: the page's main region (`main`, `[role=main]`, or the body) without
 *   what the reader cannot see and without page furniture (navigation, headers,
 *   footers, sidebars, cookie banners, share bars, newsletter boxes...). It keeps
 *   every post of a thread, every item of a grid, every block of a product or
 *   marketing page.
 * - the article: Readability's pick inside that region, cleaned of captions, bylines
 *   and link blocks. On an article it is cleaner than the region (comments, author
 *   boxes and teasers go); on other pages it is one fragment of the content.
 * The article wins when it holds most of the region's text; otherwise the region does.
 *
 * Like extractInPage, this is serialised with toString() and evaluated in the page:
 * it references nothing outside itself but the library passed in.
 */

export interface MainContent {
  root: Element;
  /** Set when the selection looked too short and the plainer main region was returned instead. */
  warning?: string;
}

export interface MainContentSelector {
  /** Marks what the reader cannot see in the live page; returns a function that removes the marks. */
  markHidden(doc: Document): () => void;
  /** Picks the main content of `doc`, a marked copy of `page`, which it may modify. */
  select(doc: Document, page: Document): MainContent;
}

/* eslint-disable @typescript-eslint/no-explicit-any */
export function mainContentSelector(Readability: any): MainContentSelector {
  const HIDDEN = 'data-webjobs-hidden';
  const LEVEL = 'data-webjobs-level';
  /** An inline element the page shows as a block (see separateBlocks). */
  const BLOCK = 'data-webjobs-block';
  /** A heading's id, kept aside while Readability reads the page. */
  const ANCHOR = 'data-webjobs-anchor';

  /** Page furniture by element and role: never the content, whatever the page. A tooltip is what a term or an icon shows on hover (a definition, a delivery note). */
  const FURNITURE_TAGS =
    'nav, aside, footer, dialog, header:not(:has(h1)):not(article header), form[role="search"], [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], [role="dialog"], [role="alertdialog"], [role="menu"], [role="menubar"], [role="toolbar"], [role="tooltip"]';

  /** Page furniture by class or id, as whole words of the name (cookie-banner, shareBar, site_nav, a feature's small print "benefit__disclaimer", a block of "trending-posts", and "nocontent", Google's class for what a page says is not its content). */
  const FURNITURE_NAMES = new RegExp(
    '^(' +
      [
        'cookies?', 'consent', 'gdpr', 'onetrust', 'newsletter', 'subscribe', 'subscription', 'signup',
        'share', 'sharing', 'sharedaddy', 'social', 'breadcrumbs?', 'sidebar', 'related', 'recommended',
        'recommendations', 'advert', 'advertisement', 'ads?', 'adsbygoogle', 'sponsored', 'popup', 'modal',
        'skip', 'skiplink', 'menu', 'navbar', 'nav', 'navigation', 'masthead', 'pagination', 'pager',
        'toc', 'feedback', 'outbrain', 'taboola', 'toolbar', 'banner', 'filters?', 'facets?', 'sort',
        'refinements?', 'bio', 'authorbox', 'disclaimers?', 'trending', 'nocontent',
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
  const PROSE_CAN_CARRY_NAMES = /^(menu|navbar|nav|navigation|toolbar|filters?|facets?|toc)$/i;

  /**
   * Names of filter panels and page links, which a category's grid of products can carry too: a
   * theme's "facets-vertical" around both its filters and its grid, an endless list's
   * "pagination" wrapper. Such a block is kept when it holds a grid (see holdsGrid), as the
   * products are the page's content. Measured on WCXB's dev pages: -0.21 page-F1, two
   * collections whose truths leave the grid out, +0.17 one that keeps it.
   */
  const GRID_CAN_CARRY_NAMES = /^(pagination|pager|filters?|facets?|sort|refinements?)$/i;

  /**
   * Prose, not links: 300 characters outside links, and links a fifth of the text at
   * most. Never inside a <nav>: a mega menu's columns of unlinked labels would pass.
   */
  const isProse = (el: Element) => !el.closest('nav, [role="navigation"]') && proseLength(el) >= 300 && linkedLength(el) <= textLength(el) / 5;

  /**
   * A post quoted from a social network (the markup its embed code leaves): content,
   * though the block around it is often named "social-media-embed".
   */
  const EMBEDDED_POST =
    'blockquote.twitter-tweet, blockquote.instagram-media, blockquote.tiktok-embed, blockquote.bluesky-embed, blockquote.mastodon-embed, blockquote.text-post-media, blockquote.reddit-embed-bq';

  /**
   * Names that are furniture whatever share of the text they hold: on a page with
   * little content of its own, a cookie banner can hold a third of the text.
   */
  // Not "cmp" (consent management platform): Adobe Experience Manager prefixes every component with it.
  const ALWAYS_FURNITURE_NAMES = /^(cookies?|consent|gdpr|onetrust|newsletter|popup|modal|announcement)$/i;

  /**
   * The hash CSS Modules append to a class ("mdx-table_root__adKqa", "sidebar_nav__81O9J"):
   * five characters that mean nothing, though split as camelCase they read "ad Kqa". Only
   * a hash with a capital or a digit: "card__title" is a BEM element, a word.
   */
  const CSS_MODULE_HASH = /__[A-Za-z0-9_-]{5}(?=\s|$)/g;

  /**
   * What styled-components adds to a component's name in its class: "Footer-styled__Footer-sc-d11cfc8d-0"
   * is the Footer component of Footer.styled.js, and says "footer" as "site-footer" does.
   */
  const STYLED_COMPONENT = /-styled__|-sc-[a-z0-9]+-\d+(?=\s|$)/g;

  const words = (el: Element) => nameWords(`${el.getAttribute('class') || ''} ${el.getAttribute('id') || ''}`);

  function nameWords(names: string): string[] {
    // Split on separators and camelCase: "cookieBanner site_nav" -> cookie banner site nav.
    return names
      .replace(CSS_MODULE_HASH, (hash) => (/[A-Z0-9]/.test(hash) ? '' : hash))
      .replace(STYLED_COMPONENT, ' ')
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean);
  }

  /**
   * A page's own footer built of divisions, named for what it is ("footer", "site-footer",
   * "globalfooter", "page-layout__footer", Portuguese "rodape"). Only a class or id made of
   * nothing but page and layout words: a card's, a post's or a section's footer
   * ("card__footer", "article-footer", "PageSection_footerContent") holds a byline, tags or
   * a closing paragraph. The same rule for headers measured negative (a hero's "page-header").
   */
  const PAGE_FOOTER_WORD = /^(site|page|global|main)?(footer|rodape)$/i;
  const PAGE_LAYOUT_WORD = /^(site|page|global|main|layout|app|wrapper|container|area|outer|inner|bottom)$/i;

  function isNamedPageFooter(el: Element): boolean {
    if (el.parentElement?.closest('article')) return false;
    // The id attribute, not el.id: a form's el.id is its input named "id", when it has one.
    return [...classesOf(el), el.getAttribute('id') || ''].some((name) => {
      const parts = nameWords(name);
      return parts.some((part) => PAGE_FOOTER_WORD.test(part)) && parts.every((part) => PAGE_FOOTER_WORD.test(part) || PAGE_LAYOUT_WORD.test(part));
    });
  }

  /** The element's classes, as written in its class attribute. */
  const classesOf = (el: Element) => (el.getAttribute('class') || '').split(/\s+/).filter(Boolean);

  /** The elements above `el`, up to (not including) `top`. */
  function ancestors(el: Element, top: Element): Element[] {
    const above: Element[] = [];
    for (let up = el.parentElement; up && up !== top; up = up.parentElement) above.push(up);
    return above;
  }

  /** Text as a reader sees it: runs of white space as one space. */
  const normalText = (node: Node) => (node.textContent || '').replace(/\s+/g, ' ').trim();
  const textLength = (node: Node) => normalText(node).length;

  /** The text inside links; inside only the links whose text `counts` accepts, when given. */
  function linkedLength(el: Element, counts: (text: string) => boolean = () => true): number {
    let linked = 0;
    for (const a of Array.from(el.querySelectorAll('a'))) {
      const text = normalText(a);
      if (counts(text)) linked += text.length;
    }
    return linked;
  }

  /** The text outside links. */
  const proseLength = (el: Element) => textLength(el) - linkedLength(el);

  /** The text of each JSON-LD block of the live page. */
  const jsonLdTexts = (page: Document) =>
    Array.from(page.querySelectorAll('script[type="application/ld+json"]')).map((script) => script.textContent || '');

  /** Elements whose text is code, never shown to a reader. */
  const NOT_TEXT = 'script, style, template';

  /** The element's children but its scripts, styles and templates: the blocks a reader could be shown. */
  const textChildren = (el: Element) => Array.from(el.children).filter((child) => !child.matches(NOT_TEXT));

  /**
   * Text a reader could be shown: the live page's scripts and styles can outweigh it a hundredfold,
   * and a text area's value (a republishing tool's copy of the whole article as HTML) is a form
   * field's, not the page's (see select). Counted, that copy made its hidden dialog more than half
   * of the page, which is kept as the page hidden whole until its scripts run (see markHidden).
   */
  function readableLength(el: Element): number {
    if (el.matches(NOT_TEXT)) return 0;
    let code = 0;
    for (const inner of Array.from(el.querySelectorAll(`${NOT_TEXT}, textarea`))) code += textLength(inner);
    return textLength(el) - code;
  }

  /**
   * Template parts that Vue, Alpine and AngularJS keep hidden (their CSS hides the
   * attribute) until their scripts render them, which removes it: a modal, a
   * notice, a template's unfilled copy. Still there, it was never rendered.
   */
  const CLOAKED = '[v-cloak], [x-cloak], [ng-cloak], [data-ng-cloak], .ng-cloak';

  /**
   * What such a framework shows and hides at a click (Vue's v-show, Alpine's x-show, AngularJS's
   * ng-show): cloaked too until the scripts run, but rendered. Under the title that toggles it, such
   * a block of prose is an accordion's panel (an FAQ's answer), content; a toast ("Added to your
   * bag") is not.
   */
  const TOGGLED = '[v-show], [x-show], [ng-show], [data-ng-show]';

  /**
   * A word an icon font draws as a glyph ("arrow_drop_down", "search", "local_offer"): Material's
   * icon classes, or a lone lowercase word hidden from screen readers. Other text hidden from screen
   * readers (aria-hidden) shows on screen all the same, and is content: the count beside a rating,
   * a teaser's summary linked a second time. Measured on WCXB's dev pages: +2.74 page-F1 (collection
   * 0.723 -> 0.741) once aria-hidden no longer hid; the same without the ligatures' exception, which
   * keeps icon words out of the text.
   */
  const ICON_FONT_CLASS = /(^|\s)(google-)?material-(icons|symbols)/;

  function isIconLigature(el: Element): boolean {
    if (ICON_FONT_CLASS.test(el.getAttribute('class') || '')) return true;
    return el.getAttribute('aria-hidden') === 'true' && /^[a-z][a-z0-9_]*$/.test(normalText(el));
  }

  /** A dialog, modal or not. */
  const DIALOG = 'dialog, [role="dialog"], [role="alertdialog"], [aria-modal="true"]';

  /** The element's computed `display`; undefined without a layout engine (the Node DOM). */
  const displayOf = (el: Element) => el.ownerDocument.defaultView?.getComputedStyle?.(el).display;

  /**
   * A collapsed accordion panel: prose the reader opens with a click on the short title
   * shown just before it, like a closed <details>. It is content. Hidden text the page
   * also shows elsewhere (a variant for another screen size) is not such a panel.
   */
  function isCollapsedPanel(el: Element, visibleText: () => string): boolean {
    return isPanel(el) && !visibleText().includes(longestLine(el).slice(0, 80));
  }

  /** A block of prose under the short title that toggles it: an accordion's panel, open or not. */
  function isPanel(el: Element): boolean {
    // A dialog opens over the page, a panel within it: the button before a hidden dialog opens a tool, not a section.
    if (el.matches(DIALOG)) return false;
    // Past the <style> a CSS-in-JS library (emotion) renders before each element on the server; the
    // title's own <style> is no text either.
    let toggle = el.previousElementSibling;
    while (toggle?.matches(NOT_TEXT)) toggle = toggle.previousElementSibling;
    if (!toggle || !toggle.checkVisibility({ visibilityProperty: true }) || readableLength(toggle) === 0 || readableLength(toggle) > 150) return false;
    const total = textLength(el);
    return paragraphProse(el, () => true) >= 200 && linkedLength(el) <= 0.3 * total;
  }

  /** Class words that mark the open one of a set of panels: "active", "is-active", "current", "selected", "show", "open". */
  const OPEN_PANEL = /^(is-)?(active|current|selected|show|shown|open|visible)$/i;
  /** Names of a tab's panel: Bootstrap's and Newegg's "tab-pane", "tab-panel", "tabcontent". */
  const TAB_PANEL_NAMES = /^(tab|tabs|pane|panel|tabpane|tabpanel|tabcontent)$/i;
  /** Names of slides: a carousel's other slides are the next turn of a promotion, not content one click away. */
  const SLIDE_NAMES = /carousel|slide|slick|swiper|splide|glide|banner|hero/i;

  /**
   * A tab's panel that is not the open one, though no role says so: a hidden block beside a shown one of
   * the same tag and classes, named as a tab's panel ("tab-pane"), or beside one whose extra class says it
   * is the open one ("content active" beside "content"). What it holds is one click away, as a tabpanel's
   * is: content. Measured on WCXB's dev pages: +0.35 page-F1, two products whose specifications were
   * dropped (+0.15, +0.20), no page lost; any hidden block beside a shown one of the same classes also
   * took a service page's other locations and a listing's responsive copies (-0.02 each).
   */
  function isClosedTab(el: Element): boolean {
    const classes = classesOf(el);
    if (classes.length === 0 || classes.some((name) => OPEN_PANEL.test(name) || SLIDE_NAMES.test(name))) return false;
    const named = words(el).some((word) => TAB_PANEL_NAMES.test(word));
    const sameClasses = classes.slice().sort().join(' ');
    return textChildren(el.parentElement ?? el).some((sibling) => {
      if (sibling === el || sibling.tagName !== el.tagName || !isShown(sibling)) return false;
      const own = classesOf(sibling);
      const open = own.some((name) => OPEN_PANEL.test(name));
      return (named || open) && own.filter((name) => !OPEN_PANEL.test(name)).sort().join(' ') === sameClasses;
    });
  }

  /** The longest text node under `el`, whitespace collapsed: a run that reads the same in textContent and innerText. */
  function longestLine(el: Element): string {
    let longest = '';
    const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.matches(NOT_TEXT)) continue;
      const text = normalText(node);
      if (text.length > longest.length) longest = text;
    }
    return longest;
  }

  /** The text the page shows (innerText leaves out what is hidden), read once when first asked for. */
  function lazyVisibleText(body: HTMLElement): () => string {
    let text: string | undefined;
    return () => (text ??= (body.innerText ?? '').replace(/\s+/g, ' '));
  }

  /** Utility classes that hide an element at every screen size (Bootstrap, Tailwind, Bulma, Foundation, WordPress, Amazon's aok-hidden). */
  const HIDING_CLASSES = /^(d-none|hidden|is-hidden|hide|invisible|display-none|u-hidden|visually-hidden-focusable-never|aok-hidden)$/i;
  /** A class that shows the element again at some screen size: "d-none d-md-block", "hidden md:block". */
  const SHOWING_CLASSES = /^(d-(sm|md|lg|xl|xxl)-(?!none)[a-z-]+|(sm|md|lg|xl|2xl):(?!hidden)[a-z-]+|is-(block|flex|inline)[a-z-]*)$/i;

  /**
   * Whether a utility class hides the element at every screen size. Read from the markup on
   * both engines: in Chromium too, as the style sheet that says so may not have loaded
   * (blocked, failed, a copy of the page read offline), and then a shop's bar of shipping
   * notices for every country shows and outweighs its products. Unless a script showed the
   * element: jQuery's show() sets an inline display and leaves the class in place.
   */
  function hiddenByClass(el: Element): boolean {
    const classes = classesOf(el);
    if (!classes.some((name) => HIDING_CLASSES.test(name)) || classes.some((name) => SHOWING_CLASSES.test(name))) return false;
    const display = /(?:^|;)\s*display\s*:\s*([a-z-]+)/i.exec(el.getAttribute('style') || '')?.[1];
    return display === undefined || display.toLowerCase() === 'none';
  }

  /** Shown by its classes and its style (in the Node DOM, by its own markup alone: see nodeDom.ts). */
  const isShown = (el: Element) => !hiddenByClass(el) && el.checkVisibility({ visibilityProperty: true });

  /** The ids of the panels that a disclosure's toggle opens and closes (aria-expanded and aria-controls). */
  function disclosedIds(doc: Document): Set<string> {
    const ids = new Set<string>();
    for (const toggle of Array.from(doc.querySelectorAll('[aria-expanded][aria-controls]'))) {
      for (const id of (toggle.getAttribute('aria-controls') || '').split(/\s+/)) if (id) ids.add(id);
    }
    return ids;
  }

  /** The page's one main region, not hidden by its markup (an application's other views are `<main hidden>`). */
  const isSoleMain = (el: Element) =>
    el.matches('main, [role="main"]') && !el.hasAttribute('hidden') && el.ownerDocument.querySelectorAll('main, [role="main"]').length === 1;

  function markHidden(doc: Document): () => void {
    const marked: Element[] = [];
    const blocks: Element[] = [];
    if (!doc.body) return () => undefined;
    const total = readableLength(doc.body);
    const visibleText = lazyVisibleText(doc.body);
    const disclosed = disclosedIds(doc);
    // The blocks hidden around the page's title that are shown all the same (see hiddenPageTitle); in
    // them, an element is hidden by its own style alone.
    const title = hiddenPageTitle(doc);
    const revealed: Element[] = [];
    const inRevealed = (el: Element) => revealed.some((block) => block.contains(el));
    const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_ELEMENT, {
      acceptNode(node) {
        const el = node as HTMLElement;
        // Closed <details> and inactive tabs hide content the reader opens with a click: it is content.
        if (el.tagName === 'DETAILS' || el.getAttribute('role') === 'tabpanel') return NodeFilter.FILTER_REJECT;
        // A part of a page React streamed, hidden until its scripts move it into place: inPage.ts does that.
        if (el.matches('div[hidden][id^="S:"]')) return NodeFilter.FILTER_REJECT;
        const cloaked = (el.matches(CLOAKED) && !(el.matches(TOGGLED) && isPanel(el))) || isIconLigature(el);
        const shown = !cloaked && (inRevealed(el) ? !hiddenByClass(el) && displayOf(el) !== 'none' : isShown(el));
        if (!shown && holds(el, title) && readableLength(el) > visibleText().length) {
          revealed.push(el);
          return NodeFilter.FILTER_ACCEPT;
        }
        if (!cloaked && !shown && isClosedTab(el)) return NodeFilter.FILTER_REJECT;
        if (!cloaked && !shown) {
          const display = displayOf(el);
          // A `display: contents` wrapper has no box of its own, so checkVisibility() says false; its children show.
          if (display === 'contents') return NodeFilter.FILTER_SKIP;
          // Collapsed is display: none; a carousel hides its other slides with visibility instead. A panel
          // its toggle says it opens (WAI-ARIA's accordion: aria-expanded, aria-controls) is collapsed however hidden.
          if ((display === 'none' || disclosed.has(el.id)) && isCollapsedPanel(el, visibleText)) return NodeFilter.FILTER_REJECT;
        }
        if (!shown) {
          // A page hidden whole until its scripts reveal it (anti-flicker, preloaders) is still the
          // page; a hidden mobile menu can hold a third of the text, never half of it. So is the
          // page's one <main> hidden by its styles until then, whatever its share beside a mega menu.
          if (readableLength(el) < total / 2 && !isSoleMain(el)) marked.push(el);
          return NodeFilter.FILTER_REJECT;
        }
        if (INLINE_TAGS.test(el.tagName) && showsAsBlock(el)) blocks.push(el);
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    while (walker.nextNode());
    for (const el of marked) el.setAttribute(HIDDEN, '');
    for (const el of blocks) el.setAttribute(BLOCK, '');
    return () => {
      for (const el of marked) el.removeAttribute(HIDDEN);
      for (const el of blocks) el.removeAttribute(BLOCK);
    };
  }

  /**
   * The page's title heading when the page hides it and all that goes with it until its scripts run (a
   * shop's product page whose product block is display:none, read without scripts or before they ran):
   * no h1 shows, and one the document's title names is hidden. The hidden block around it is the page
   * when it holds more text than the page shows. Measured on WCXB's dev pages: one product page
   * (0.65 -> 0.77), which came back as its JSON-LD description alone, and no other; without the share of the text,
   * an article lost 0.28 to its "Republish" dialog, which holds a copy of the article under an h1.
   */
  function hiddenPageTitle(doc: Document): Element | null {
    const h1s = Array.from(doc.body.querySelectorAll('h1'));
    const shows = (h1: Element) => [h1, ...ancestors(h1, doc.body)].every(isShown);
    if (h1s.length === 0 || h1s.some(shows)) return null;
    return h1s.find((h1) => namesPage(h1, doc)) ?? null;
  }

  /** Tags a browser shows inline unless the page's styles say otherwise. */
  const INLINE_TAGS = /^(SPAN|A|B|STRONG|EM|I|SMALL|LABEL|TIME|ABBR|CITE|DFN|MARK|Q|S|U|DEL|INS|BDI)$/;
  const BLOCK_DISPLAY = /^(block|flex|grid|list-item|table)$/;

  /** Shown as a block of its own: not floated, as a drop cap is (its display is "block" too, and it begins a word). */
  function showsAsBlock(el: Element): boolean {
    const style = el.ownerDocument.defaultView?.getComputedStyle?.(el);
    return !!style && BLOCK_DISPLAY.test(style.display) && (style.float === 'none' || !style.float) && style.position !== 'absolute';
  }

  /**
   * An element the page shows as a block though its tag is inline (a card's brand and name in two
   * spans, each on its own line) is set apart by spaces: its words do not run into its neighbour's
   * ("MerrellMoab 3", "$32.67MSRP"), which the Markdown would join, as it knows only the tags.
   */
  function separateBlocks(doc: Document): void {
    for (const el of Array.from(doc.querySelectorAll(`[${BLOCK}]`))) {
      el.removeAttribute(BLOCK);
      el.before(' ');
      el.after(' ');
    }
  }

  /**
   * A page that shows nothing without its scripts often carries its content in
   * `<noscript>` for crawlers (Discourse does). Chromium runs scripts, so that
   * content is raw text here: parsed, it becomes the body when the page shows
   * almost nothing else, or only little beside its furniture (a copy twice its size).
   */
  function bodyOrNoscript(doc: Document): Element {
    const body = doc.body ?? doc.documentElement;
    let best: Element | null = null;
    const noscripts = Array.from(body.querySelectorAll('noscript'));
    const isFurniture = (el: Element) => el.matches(FURNITURE_TAGS) || words(el).some((word) => ALWAYS_FURNITURE_NAMES.test(word));
    const furniture = Array.from(body.querySelectorAll('*')).filter((el) => isFurniture(el) && !ancestors(el, body).some(isFurniture));
    const outside = noscripts.filter((el) => !furniture.some((f) => f.contains(el)));
    const visible = readableLength(body) - [...outside, ...furniture].reduce((sum, el) => sum + textLength(el), 0);
    for (const noscript of noscripts) {
      const parsed = doc.createElement('div');
      parsed.innerHTML = noscript.textContent || '';
      // "You need to enable JavaScript to run this app." is no copy of the page.
      if (isBoilerplate(parsed)) continue;
      if (!best || readableLength(parsed) > readableLength(best)) best = parsed;
    }
    // Readable text only: a page's noscript can hold its whole stylesheet.
    if (best && readableLength(best) > Math.max(0, visible < 200 ? visible : 2 * visible)) body.replaceChildren(...Array.from(best.childNodes));
    for (const noscript of Array.from(body.querySelectorAll('noscript'))) noscript.remove();
    return body;
  }

  /**
   * The element the page marks as its main content. A page that marks several
   * large, separate ones (Digg: the story and a column of teasers) has its main
   * content somewhere under their common ancestor; small extra ones are ignored.
   */
  function mainRegion(doc: Document, total: number): Element | null {
    const marked = Array.from(doc.querySelectorAll('main, [role="main"]')).filter((el) => !el.closest(`[${HIDDEN}]`));
    const outermost = marked.filter((el) => !marked.some((other) => other !== el && other.contains(el)));
    const large = outermost.filter((el) => textLength(el) >= 0.15 * total);
    if (large.length < 2) return outermost.reduce<Element | null>((best, el) => (!best || proseLength(el) > proseLength(best) ? el : best), null);
    let ancestor = large[0]!.parentElement;
    while (ancestor && !large.every((el) => ancestor!.contains(el))) ancestor = ancestor.parentElement;
    return ancestor;
  }

  /** The page's main region: its `main` when that holds a fair share of the text, else the body. */
  function region(doc: Document): Element {
    const body = bodyOrNoscript(doc);
    const total = textLength(body);
    const best = mainRegion(doc, total);
    if (!best || textLength(best) < 0.2 * total) return body;
    // The page's one title heading may sit just outside its main region (Stack Exchange puts it there).
    const titles = Array.from(doc.querySelectorAll('h1')).filter((h1) => !h1.closest(`[${HIDDEN}]`));
    if (!best.querySelector('h1') && titles.length === 1) best.prepend(titles[0]!.cloneNode(true));
    if (holdsGrid(best)) for (const block of proseAfter(best)) best.append(block.cloneNode(true));
    return best;
  }

  /** Items a grid needs to be a category's products rather than a row of teasers. */
  const MIN_GRID_ITEMS = 6;

  /** A price as cards show it: "$19.99", "€ 82", "82 €", "149 kr", "20 zł". */
  const PRICE = /[$€£¥₹]\s?\d|\d\s?(€|£|kr|zł|Kč|CHF|USD|EUR|GBP)/;

  /**
   * Whether `el` holds a grid of products or posts: six items or more, nearly all of them a card
   * (a link and an image, and with `priced`, a price). Unlike isCardGrid, a card may carry any
   * length of text (a shop's cards list each product's features).
   */
  function holdsGrid(el: Element, { priced = false } = {}): boolean {
    const card = (item: Element) => isCard(item) && (!priced || PRICE.test(normalText(item)));
    return Array.from(el.querySelectorAll('ul, ol, div, section')).some((block) => isGrid(block, card));
  }

  /** A card: a link and an image. */
  const isCard = (item: Element) => item.querySelector('a[href]') !== null && item.querySelector('img, picture') !== null;

  /** Whether `block`'s items are a grid: `minItems` or more (six unless said), nearly all of them cards. */
  function isGrid(block: Element, card: (item: Element) => boolean = isCard, minItems = MIN_GRID_ITEMS): boolean {
    const items = textChildren(block);
    return items.length >= minItems && items.filter(card).length >= 0.8 * items.length;
  }

  /** Paragraph prose a block after the main region needs to be the page's own text. */
  const PROSE_AFTER_MAIN = 600;

  /**
   * Blocks of prose that follow a grid's main region, outside it and before the page's footer:
   * a category's buying guide, which shop themes put there. Measured on WCXB's dev pages: +1.23 page-F1
   * (three collections +0.39 to +0.43, one whose truth leaves its guide out -0.15); on pages without a
   * grid what follows the main region is the site's (an about box, a sign-up form), not the page's.
   */
  function proseAfter(main: Element): Element[] {
    const found: Element[] = [];
    const isFurniture = (el: Element) =>
      el.matches(`${FURNITURE_TAGS}, [${HIDDEN}], ${NOT_TEXT}`) || isNamedPageFooter(el) || furnitureWords(el).length > 0;
    for (let el: Element | null = main; el && el !== el.ownerDocument.body; el = el.parentElement) {
      for (let next = el.nextElementSibling; next; next = next.nextElementSibling) {
        if (!isFurniture(next) && paragraphProse(next, (p) => !p.closest(`[${HIDDEN}], ${FURNITURE_TAGS}`)) >= PROSE_AFTER_MAIN) found.push(next);
      }
    }
    return found;
  }

  /**
   * Removes page furniture from `root`. An element holding a third of the text and of the
   * prose, or the page's h1, stays, whatever its name says: a wrapper called
   * "content-sidebar-wrap" is not a sidebar, and undoing such a removal is cheaper than
   * trusting names. A third of the text alone is not enough: a blog's archive of every
   * month, or its recent posts with their tags, is links (WCXB's dev pages +1.5 page-F1).
   */
  function removeFurniture(root: Element): void {
    removeHidden(root);
    removeScreenReaderText(root);
    // Measured before banners go: on a thin page a banner is a fair share of the text.
    const total = textLength(root);
    removeBanners(root);
    // Before the boilerplate lines below, which would take such a heading ("You may also like") alone.
    removeSectionsHeaded(root, ELSEWHERE_HEADING);
    const title = titleHeading(root);
    const prose = proseLength(root);
    const guarded = (el: Element) => holds(el, title) || (textLength(el) >= total / 3 && proseLength(el) >= prose / 3);
    for (const el of Array.from(root.querySelectorAll(FURNITURE_TAGS))) {
      if (root.contains(el) && !holds(el, title) && (isPageLandmark(el) || !guarded(el))) el.remove();
    }
    for (const el of Array.from(root.querySelectorAll('[class], [id]'))) {
      if (!root.contains(el) || guarded(el) || el.querySelector(EMBEDDED_POST)) continue;
      const names = furnitureWords(el);
      if (names.length > 0 && !carriesContent(el, names) && !inGridCard(el) && !namesDetails(words(el))) el.remove();
      else if (isNamedPageFooter(el)) el.remove();
    }
    // What the page asks search engines to leave out of their snippets (Google's data-nosnippet): an
    // author's bio, a date line, a teaser box. Guarded, as a page may mark a whole paywalled story so.
    for (const el of Array.from(root.querySelectorAll('[data-nosnippet]'))) if (root.contains(el) && !guarded(el)) el.remove();
    for (const el of Array.from(root.querySelectorAll('a[role="button"], a[class]'))) if (isCallToAction(el)) el.remove();
    for (const el of Array.from(root.querySelectorAll('ul, ol, form, fieldset, p, div, section, span, a, button, label, h2, h3, h4, h5, h6'))) {
      if (!root.contains(el) || holds(el, title)) continue;
      // A block of short links goes whatever its share of the text, unless it holds a share of the prose;
      // a ticker goes whatever its share.
      const links = (isMenu(el) || isLinkCloud(el)) && proseLength(el) < prose / 3;
      if (links) removeWithLabel(el, { anyLabel: false });
      else if (isMarquee(el) || (!guarded(el) && (isControlPanel(el) || isFieldLabel(el) || isBoilerplate(el)))) el.remove();
    }
  }

  /**
   * The words of the element's class and id that name it furniture (FURNITURE_NAMES). Not "nav"
   * before "btns", "arrows" or "dots": a carousel names its controls so, and a row of products can
   * carry the name as a modifier ("category-carousel dark-nav-btns").
   */
  function furnitureWords(el: Element): string[] {
    const found: string[] = [];
    for (const name of [...classesOf(el), el.getAttribute('id') || '']) {
      const parts = nameWords(name);
      parts.forEach((part, i) => {
        const namesControls = /^(nav|navigation)$/i.test(part) && CAROUSEL_CONTROLS.test(parts[i + 1] ?? '');
        if (FURNITURE_NAMES.test(part) && !namesControls) found.push(part);
      });
    }
    return found;
  }

  const CAROUSEL_CONTROLS = /^(btns?|buttons?|arrows?|dots)$/i;

  /**
   * Whether `el` is a card (a link and an image) that is an item of a grid, or sits inside one up to
   * two levels down (a theme's card wrapper in each list item): a word of furniture in its name says
   * what the product is ("subscription-eligible"), not what the block is. A grid of other products
   * goes by its own name ("related-products") before its cards are reached.
   */
  function inGridCard(el: Element): boolean {
    let item: Element | null = el;
    for (let depth = 0; item && depth < 3; depth++, item = item.parentElement) {
      const block = item.parentElement;
      if (!block || !isCard(item)) return false;
      if (isGrid(block)) return true;
    }
    return false;
  }

  /** Whether a block named like furniture (`names`) carries content all the same: prose, or a grid of products. */
  function carriesContent(el: Element, names: string[]): boolean {
    const carry = (pattern: RegExp) => names.every((word) => pattern.test(word));
    return (carry(PROSE_CAN_CARRY_NAMES) && isProse(el)) || (carry(GRID_CAN_CARRY_NAMES) && holdsGrid(el));
  }

  /**
   * A link styled as a button ("Start free trial", "Choose Growth"): it leads elsewhere and
   * tells the reader nothing. Its label also weighs as a link in Readability's judgement of
   * the block around it, which then drops a short block (a pricing card) as a link list.
   */
  function isCallToAction(el: Element): boolean {
    if (textLength(el) > 40) return false;
    return el.getAttribute('role') === 'button' || words(el).some((word) => /^(btn|button|cta)$/i.test(word));
  }

  /**
   * The page's own header or footer (HTML's banner and contentinfo: not inside an
   * article, aside, main, nav or section). It is furniture even when it holds most of
   * the page's text: a shop that builds its product with scripts leaves only its footer.
   */
  function isPageLandmark(el: Element): boolean {
    if (!el.matches('footer, header, [role="contentinfo"], [role="banner"]')) return false;
    return el.matches('[role]') || !el.parentElement?.closest('article, aside, main, nav, section, [role="main"], [role="article"]');
  }

  /**
   * Text for screen readers only, in the classes that clip it to nothing on screen (WordPress's
   * screen-reader-text, Bootstrap's and Tailwind's sr-only, Shopify's visually-hidden): "Regular
   * price" before each price, "Original price was: $30.00." beside the struck-out price, "Skip to
   * content". A browser counts it as shown. Short labels only, and never the h1: some pages give
   * their title to screen readers alone, and it still names the page.
   * Measured on WCXB's dev pages: +1.18 page-F1, most of it on category pages; the 181 pages unchanged.
   */
  const SCREEN_READER_ONLY = '.sr-only, .visually-hidden, .screen-reader-text, .visuallyhidden, .screenreader-only, .u-hidden-visually, .a11y-hidden';
  const SCREEN_READER_LABEL = 80;

  function removeScreenReaderText(root: Element): void {
    for (const el of Array.from(root.querySelectorAll(SCREEN_READER_ONLY))) {
      if (textLength(el) < SCREEN_READER_LABEL && !el.matches('h1') && !el.querySelector('h1')) el.remove();
    }
  }

  function removeHidden(root: Element): void {
    for (const el of Array.from(root.querySelectorAll(`[${HIDDEN}]`))) el.remove();
  }

  /** Removes every element of `root` whose class and id words `match`, except one holding the page's title heading. */
  function removeNamed(root: Element, match: (names: string[], el: Element) => boolean): void {
    const title = titleHeading(root);
    for (const el of Array.from(root.querySelectorAll('[class], [id]'))) {
      if (root.contains(el) && !holds(el, title) && match(words(el), el)) el.remove();
    }
  }

  /**
   * The page's title heading: its one h1, or of several the one the document's title
   * names (a terms-of-service dialog or a widget can carry an h1 of its own), else the first.
   */
  function titleHeading(root: Element): Element | null {
    const h1s = Array.from(root.querySelectorAll('h1'));
    if (h1s.length <= 1) return h1s[0] ?? null;
    return h1s.find((h1) => namesPage(h1, root.ownerDocument)) ?? h1s[0]!;
  }

  const holds = (el: Element, title: Element | null) => title !== null && el.contains(title);

  /** Words only: "Só quem se Ama…" and a title "Só quem se Ama... — Site" compare equal. */
  const wordsOf = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

  /** Whether the document's title names `heading` (holds its words). */
  function namesPage(heading: Element, doc: Document): boolean {
    const text = wordsOf(normalText(heading));
    return text.length > 0 && wordsOf(doc.title || '').includes(text);
  }

  /** What is never content, whatever share of the page it holds: cookie banners, popups, skip links. */
  function removeBanners(root: Element): void {
    for (const a of Array.from(root.querySelectorAll('a[href^="#"]'))) if (words(a).some((word) => /^skip/i.test(word))) a.remove();
    const title = titleHeading(root);
    // A modal dialog (terms of service, a size guide), shown when the page's scripts open it.
    for (const el of Array.from(root.querySelectorAll('[aria-modal="true"]'))) if (root.contains(el) && !holds(el, title)) el.remove();
    // A wrapper named for a part of it ("newsletter-wrapper" around a whole post) holds most of the page and its prose: no banner.
    const total = textLength(root);
    const isWrapper = (el: Element) => textLength(el) >= total / 2 && paragraphProse(el, () => true) >= 1000;
    removeNamed(root, (names, el) => names.some((word) => ALWAYS_FURNITURE_NAMES.test(word)) && !isWrapper(el) && !namesDetails(names));
  }

  /**
   * Whether a block's name says it is a product's details shown in a modal or a popup ("pipf-product-details-modal"):
   * those are one click away, as a tab's panel is, and content. Not when the name says more furniture than that
   * ("sidebar-details"). Measured on WCXB's dev pages: +0.29 page-F1 (IKEA's materials, care and measurements
   * +0.30, one product -0.005). Without the second condition, +0.24: two articles lost a block named "…-details".
   */
  function namesDetails(names: string[]): boolean {
    if (!names.some((word) => DESCRIPTION_NAMES.test(word))) return false;
    return names.filter((word) => ALWAYS_FURNITURE_NAMES.test(word) || FURNITURE_NAMES.test(word)).every((word) => /^(modal|popup)$/i.test(word));
  }

  const isList = (el: Element) => el.tagName === 'UL' || el.tagName === 'OL';

  /** A list of short links and nothing else: a menu, a tag cloud, a category list. */
  function isMenu(el: Element): boolean {
    if (!isList(el)) return false;
    const items = Array.from(el.children).filter((li) => li.tagName === 'LI');
    if (items.length < 3) return false;
    const total = textLength(el);
    return linkedLength(el) >= 0.9 * total && total / items.length < 40;
  }

  /** Many short links run together outside a list, and nothing else: a tag cloud, a row of categories. */
  function isLinkCloud(el: Element): boolean {
    if (!/^(P|DIV|SECTION|SPAN)$/.test(el.tagName) || el.querySelector('h1, h2, h3, h4, h5, h6, p, li, img')) return false;
    const links = el.querySelectorAll('a').length;
    const total = textLength(el);
    // The spaces, commas and dots between the links count as text: 80% is all links.
    return links >= 8 && linkedLength(el) >= 0.8 * total && total / links < 25;
  }

  /**
   * A ticker: one short phrase said over and over by four or more children ("Book now * Book
   * now * ..."), which a script scrolls across the screen, or a swatch's label on each colour.
   * Never a table's row: a comparison repeats "Yes" by design.
   */
  function isMarquee(el: Element): boolean {
    const children = textChildren(el);
    if (children.length < 4 || el.closest('table')) return false;
    const phrase = normalText(children[0]!);
    if (phrase.length === 0 || phrase.length > 40 || !children.every((child) => normalText(child) === phrase)) return false;
    // Nothing else in the element: its text is the phrase, said once per child.
    return textLength(el) <= children.length * (phrase.length + 1);
  }

  /** Filters, sorting and reply boxes: a form made of choices or a text area. */
  function isControlPanel(el: Element): boolean {
    if (el.tagName !== 'FORM' && el.tagName !== 'FIELDSET') return false;
    return el.querySelector('textarea') !== null || el.querySelectorAll('input[type="checkbox"], input[type="radio"]').length >= 5;
  }

  /**
   * The label of a form's field ("First Name*", "Email address", "Password"), or a label that
   * names no control at all: it names a box that writes nothing, and reads as a stray line
   * without it. Not the label of a choice (a radio button's, a checkbox's), which is the
   * choice itself: a colour, a plan, an answer.
   */
  function isFieldLabel(el: Element): boolean {
    if (el.tagName !== 'LABEL') return false;
    const id = el.getAttribute('for');
    const control = el.querySelector('input, select, textarea') ?? (id ? el.ownerDocument.getElementById(id) : null);
    return !control?.matches('input[type="radio"], input[type="checkbox"]');
  }

  /**
   * Boilerplate lines that say the same on every site; short, and matched whole. The
   * labels of buttons that act or lead elsewhere ("Book now", "Learn more") among them,
   * and of the controls beside each item or post ("Add to compare", "Reply", "Quote",
   * "Report", "Close", "Loading...").  A results bar's lines ("Skip to search results", "Showing
   * 1 – 24 of 311 results", "Sort by: Best match") and an article's signposts ("Written by",
   * "Table of contents", "Back to top", "Read next", "Jump to") too, a card's badge ("Best
   * Seller", "Top Rated", "New arrival"), and what a forum says of a member or a post beside
   * it ("Registered: 2016-07-02", "Posts: 710", "Last edited by ...", "Start date Jul 9, 2022").
   */
  const BOILERPLATE =
    /^(new arrivals?|top rated|best ?sell(er|ing)|award winner|(on )?sale|limited edition|online only|just in|last edited( by [^.]{1,30})?:? [^.]{1,30}|start date:? [^.]{1,20}|(posts|threads|messages|reactions?|likes|points|reputation|joined|registered):? ?[\d,.\-/]+[km]?|skip to [^.]{1,30}|(showing |loaded )?([\d,]+ ?(-|–|to) ?)?[\d,]+ (of [\d,]+ )?(results|items|products)|sort(ed)? by:?( [^.]{1,25})?|sort:( [^.]{1,25})?|sort (and|&) filter|results list|table of contents|written by|jump to( [^.]{1,25})?|forum jump|back to top|read next|expand description|no posts\.?|create an account or sign in to comment\.?|already have an account\?? sign in here\.?|(book|buy|shop|order) now|shop all|(learn|read|see|view|show|load|find out|discover) more|(view|more) details|add to (cart|bag|basket|wishlist|list)|get started|view (all|in list)|see all|continue reading|click here|quick view|(select|choose) options|was this (page|article|answer|post|information) (helpful|useful)\??.*|edit this page.*|share( this)?( article| post| page| story)?:?|leave a (reply|comment).*|not the answer you're looking for\?.*|your answer|(subscribe|sign up) (to|for) (our|the) newsletter.*|related (posts|articles|stories)|you may also like|(last )?updated( on)?:? .{0,40}|thanks for your feedback!?|free (shipping|delivery) on (all )?orders.{0,30}|(you must )?((sign in|log in) )?(or )?(sign in|log in|register) to (comment|reply|post).{0,20}|(copyright )?(©|\(c\)|copyright) ?\d{4}.{0,150}|.{0,150}\ball rights reserved\b.{0,60}|powered by [^.]{0,40}|(add to )?compare|reply( with quote)?|quote|report( post| this)?|close|loading( \.\.\.|\.\.\.|…)?|click to expand\.{0,3}|toggle caption|sponsored|advert(isement)?( \(.{0,40}\))?|(story|article) continues below( (the )?(advertisement|ad))?|this slideshow requires javascript\.?|rate this (book|recipe|article|post|product|page|item|story)|clear rating|(\d of \d stars ?){3,}|more info|view options|calculate shipping|((you need to|please) )?(enable|turn on) javascript.{0,80}|javascript is (disabled|required).{0,80}|[\d,.]+\s*[km]?\s*(likes?|replies|views|posts|votes|reactions))\s*[›»→>]?$/i;

  /**
   * The line of when, by whom and how much under an item or post ("5 hours ago", "Anthony Ha
   * 13 hours ago", "1 point by rbanffy 0 minutes ago | hide | past | discuss", "4 min read"):
   * short, and always relative to the day the page was fetched.
   */
  const WHEN_LINE = /^(.{0,40}\s)?\d+\s*(seconds?|mins?|minutes?|hours?|days?|weeks?|months?|years?)\s+ago\b.{0,30}$|^\d+\s*min(ute)?s?\s+read$/i;

  function isBoilerplate(el: Element): boolean {
    // A block that holds an image is more than its label: a card's picture with "View details" laid over it.
    if (el.querySelector('img, picture, video')) return false;
    const text = normalText(el);
    return text.length > 0 && ((text.length < 120 && BOILERPLATE.test(text)) || (text.length <= 50 && WHEN_LINE.test(text)));
  }

  function remove(root: ParentNode, selector: string): void {
    for (const el of Array.from(root.querySelectorAll(selector))) el.remove();
  }

  /** Above this share of the article's text, the lists among its link blocks are what the page lists. */
  const LIST_PAGE_SHARE = 0.5;

  /** The text of `el` in lists: all of it for a list, else that of the lists it holds as children. */
  function listText(el: Element): number {
    if (isList(el)) return textLength(el);
    return Array.from(el.children).reduce((sum, child) => sum + (isList(child) ? textLength(child) : 0), 0);
  }

  /** A link's text that is an address. */
  const SHOWN_ADDRESS = /^(https?:\/\/|www\.)\S+$/i;

  /** Text outside a paragraph's links that makes it a sentence around them. */
  const SENTENCE = 45;

  /** What Readability keeps around an article that is not its text. */
  function cleanArticle(root: Element, says: PageKind): void {
    remove(root, 'figcaption');
    for (const el of Array.from(root.querySelectorAll('[class], [id]'))) {
      const names = `${el.getAttribute('class') || ''} ${el.getAttribute('id') || ''}`;
      if (/(^|[\s_-])(caption|credit|byline)s?($|[\s_-])/i.test(names) && root.contains(el)) el.remove();
    }
    // A link that shows its own address ("Source: https://...", a booking page written out) is
    // text the author wrote for the reader to see, not a menu's or a teaser's link.
    const linkDensity = (el: Element) => {
      const total = textLength(el);
      return total === 0 ? 0 : linkedLength(el, (text) => !SHOWN_ADDRESS.test(text)) / total;
    };
    // Lists and blocks made of links are related-article lists, tags and share bars.
    // Headings are left alone: a heading made of a link is an entry's title on an index page.
    const linkBlocks = new Set<Element>();
    const inLinkBlock = (el: Element) => {
      for (let up = el.parentElement; up && up !== root; up = up.parentElement) if (linkBlocks.has(up)) return true;
      return false;
    };
    // A paragraph that is one link is a "Read more" line in an article, but an entry elsewhere
    // (a round-up's project names, an index's items). Measured: WCXB's dev pages +0.6 page-F1
    // (listings +0.38). Keeping such paragraphs on articles too cost the 181 article pages 0.55.
    const blocks = says === 'article' ? 'ul, ol, p, div, section' : 'ul, ol, div, section';
    for (const el of Array.from(root.querySelectorAll(blocks))) {
      if (inLinkBlock(el)) continue;
      if (el.querySelector('pre, table, img, picture, video')) continue;
      const density = linkDensity(el);
      // A block with a good deal of text outside its links is prose that happens to link a lot. In one
      // paragraph, a sentence around its links will do ("Today's deals include <a>, <a> and <a>. All
      // that and more below"): a "Read more:" line has a word or two. Measured in Node: 45 characters
      // did best on the 181 pages (+0.09 page-F1; 60: +0.06, 30: +0.04), WCXB's dev pages +0.10.
      if (density <= 0.5 || (1 - density) * textLength(el) > (el.tagName === 'P' ? SENTENCE : 150)) continue;
      if (introduced(el)) continue;
      linkBlocks.add(el);
    }
    // When their lists are most of the article, the links are what the page lists ("List
    // of programming languages", an A-Z index): the content, not what surrounds it. Lists
    // only: a run of cards made of links (a launch site's home page) stays a link block.
    let listed = 0;
    for (const el of linkBlocks) listed += listText(el);
    if (listed > LIST_PAGE_SHARE * textLength(root)) return;
    for (const el of linkBlocks) removeWithLabel(el, { anyLabel: true });
  }

  /** Longer than this, the text before a block is a sentence, not a label. */
  const LABEL = 60;
  /** A label that sends the reader elsewhere ("Read more:", "Related:", "See also:"). */
  const ELSEWHERE_LABEL = /\b(read|related|more|see also)\b/i;

  /**
   * Removes a block of links and the short label right before it that sends the reader elsewhere
   * ("Related:", "See also:"); with `anyLabel`, any short heading or label that is not a sentence
   * ("More from the garden"). A menu's plain label stays: it is as often a heading the page keeps.
   */
  function removeWithLabel(el: Element, { anyLabel }: { anyLabel: boolean }): void {
    const label = el.previousElementSibling;
    const text = label ? normalText(label) : '';
    const isLabel = ELSEWHERE_LABEL.test(text) || (anyLabel && !/[.!?:"”]$/.test(text));
    if (label && text.length < LABEL && label.querySelectorAll('a, img').length === 0 && isLabel) label.remove();
    el.remove();
  }

  /**
   * Whether the author introduces the block with a sentence ending in a colon ("Top expert
   * recommendations:", "For more information, see:", "Click to jump to the courses:"): a list
   * of links that is part of what the text says. A short "Read more:" or "Related:" label is not.
   * Measured in Node, with such a label now going with the block it heads: WCXB's dev pages +0.41
   * page-F1 (a docs page +0.10, an electricians' tool guide +0.10), the 181 pages +0.02; without
   * the exception for such labels, the 181 pages lost 0.03.
   */
  function introduced(el: Element): boolean {
    const intro = el.previousElementSibling ? normalText(el.previousElementSibling) : '';
    return intro.endsWith(':') && (intro.length >= LABEL || !ELSEWHERE_LABEL.test(intro));
  }

  /** Names for where a heading sits ("entry-header", Tailwind's "scroll-mt-20", Bootstrap's "media-heading"). */
  const LAYOUT_NAME = /header|scroll|media/i;

  /**
   * Readability judges a heading by its names: it drops one named "header" before it scores,
   * and an h1 or h2 whose names say "scroll" or "media" after. On a heading those names say
   * where it sits in its block (a page builder's "et_pb_module_header", Tailwind's
   * "scroll-mt-20"), not that it is the page's header, which the furniture rules have judged
   * already; and a heading's id is its anchor, a slug of its own text ("related-work"). The copy
   * Readability reads loses them, the id kept aside for `restoreAnchors`. Names that do say
   * something stay ("dateline", "hidden-xs").
   * Measured in Node: WCXB dev +0.52 page-F1 (38 pages changed, none lost more than 0.009: a
   * service page's sections +0.07, four docs pages +0.02 to +0.06), the 181 pages unchanged.
   */
  function unnameHeadings(root: Element): void {
    for (const heading of Array.from(root.querySelectorAll('h1, h2, h3, h4, h5, h6'))) {
      const names = heading.getAttribute('class');
      if (names && LAYOUT_NAME.test(names)) heading.setAttribute('class', names.split(/\s+/).filter((name) => !LAYOUT_NAME.test(name)).join(' '));
      if (!heading.id) continue;
      heading.setAttribute(ANCHOR, heading.id);
      heading.removeAttribute('id');
    }
  }

  /** Gives the headings of Readability's article back the ids `unnameHeadings` took: links to them still work. */
  function restoreAnchors(root: Element): void {
    for (const heading of Array.from(root.querySelectorAll(`[${ANCHOR}]`))) {
      heading.id = heading.getAttribute(ANCHOR) ?? '';
      heading.removeAttribute(ANCHOR);
    }
  }

  /** Readability's article inside `content`, in an inert document, its h1 headings kept as h1. */
  function article(doc: Document, content: Element, says: PageKind): Element | null {
    const copy = doc.cloneNode(true) as Document;
    const body = copy.body ?? copy.documentElement;
    body.innerHTML = '';
    body.appendChild(copy.importNode(content, true));
    // Readability turns every h1 into an h2; the mark lets us undo that.
    for (const h1 of Array.from(body.querySelectorAll('h1'))) h1.setAttribute(LEVEL, '1');
    unnameHeadings(body);
    showHeldBack(body);
    // Readability drops the divs around a quoted post (named "social", or made of links and
    // little prose): the post stands alone in the copy, where it judges only divs.
    for (const post of Array.from(body.querySelectorAll(EMBEDDED_POST))) {
      const text = normalText(post);
      for (let wrapper: Element | null = post.parentElement; wrapper && wrapper !== body && wrapper.tagName === 'DIV' && normalText(wrapper) === text; ) {
        const above: Element | null = wrapper.parentElement;
        wrapper.replaceWith(...Array.from(wrapper.childNodes));
        wrapper = above;
      }
    }
    // Readability's own threshold (500 characters): below it, it tries again keeping the blocks
    // it first judged unlikely by their names (a "testimonial-social" wrapper around the reviews a
    // service page shows). At 200, a short introduction passed alone. Measured on WCXB's dev pages:
    // +0.76 page-F1 (8 pages gained, 6 lost less), the 181 pages unchanged but one (-0.04).
    const parsed = new Readability(copy, { keepClasses: true }).parse();
    if (!parsed?.content || parsed.textContent.trim().length === 0) return null;
    // An inert document: nothing in the article starts loading again.
    const holder = doc.implementation.createHTMLDocument('').createElement('div');
    holder.innerHTML = parsed.content;
    for (const heading of Array.from(holder.querySelectorAll(`[${LEVEL}="1"]`))) {
      const h1 = holder.ownerDocument.createElement('h1');
      while (heading.firstChild) h1.appendChild(heading.firstChild);
      heading.replaceWith(h1);
    }
    cleanArticle(holder, says);
    // Cards of other stories can pass Readability as prose when an empty link laid over each card
    // takes the click. Articles only: on a page that says nothing, such a grid is as often a
    // category's products (measured: WCXB's collections lost 0.4 page-F1).
    if (says === 'article') removeCardGrids(holder);
    restoreAnchors(holder);
    return holder;
  }

  /** A block said again with fewer characters (a label, a price, a step) is content, unless it is part of a copy of a section (see copiedLines). */
  const COPIED_BLOCK = 60;

  /** A block of text, the block that said the same before it and where that one stands, and whether it is shorter than COPIED_BLOCK. */
  type Said = { el: Element; original: Element | undefined; originalAt: number | undefined; short: boolean };

  /**
   * Responsive pages often carry the same block twice (a desktop and a mobile
   * version) and carousels repeat their slides: a copy of a block already seen goes.
   */
  function removeRepeats(root: Element): void {
    const said = saidBlocks(root);
    const copies = copiedBlocks(said.filter(({ short }) => !short));
    for (const el of copiedLines(said, copies)) copies.add(el);
    for (const el of copies) el.remove();
  }

  /** The blocks of text under `root`, in order, each with the block that said it first, if another did. */
  function saidBlocks(root: Element): Said[] {
    const first = new Map<string, number>();
    const BLOCKS = 'p, li, h1, h2, h3, h4, h5, h6, dd, blockquote, pre';
    const said: Said[] = [];
    for (const el of Array.from(root.querySelectorAll(BLOCKS))) {
      // A table repeats itself by design (the same instruction every day of a plan).
      if (el.querySelector(BLOCKS) || el.closest('table')) continue;
      const text = normalText(el);
      if (!text) continue;
      const originalAt = first.get(text);
      said.push({ el, original: originalAt === undefined ? undefined : said[originalAt]!.el, originalAt, short: text.length < COPIED_BLOCK });
      if (originalAt === undefined) first.set(text, said.length - 1);
    }
    return said;
  }

  /** Short blocks said again in the same order as their originals, this many in a row, are a copy of them. */
  const COPIED_RUN = 3;

  /**
   * On a product's page, a run of short blocks said again in the same order, in another block, is a copy of a
   * section (a details list in the buy box and again under "Details": "Product code: …", "UPC: …", "Package
   * quantity: …"), though no long block in it says so (see copiedLines). Not the fields of items of one kind.
   * A comparison says its labels again, but each time with another value between them: never three in a row.
   * Measured on WCXB's dev pages: +0.11 page-F1 on products (8 pages, none lost); on every page type it lost
   * 0.31 more (a listing whose two lists of the same links its truth keeps: -0.41).
   */
  function copiedShortRuns(said: Said[]): Element[] {
    const runs: Element[] = [];
    let start = 0;
    while (start < said.length) {
      let end = start + 1;
      while (said[start]!.originalAt !== undefined && end < said.length && said[end]!.originalAt === said[end - 1]!.originalAt! + 1) end++;
      const { el, original } = said[start]!;
      if (original && end - start >= COPIED_RUN && el.parentElement !== original.parentElement) {
        for (let i = start; i < end; i++) if (said[i]!.short && !ofItemsOfAKind(said[i]!.el, said[i]!.original!)) runs.push(said[i]!.el);
      }
      start = end;
    }
    return runs;
  }

  /**
   * A copy comes as a run of blocks (a second version of a section, cloned slides), as part
   * of a larger copy (a promotion shown twice), right after its original (a card's desktop
   * and mobile text), or quoted. One line said again on its own, away from where it was first
   * said (the same meal in each week of a plan), is content: measured over HTTP, WCXB's dev
   * pages +0.37 page-F1 and the 181 pages +0.10 (no page of those lost more than 0.03).
   * So is a run said again in the same flow of paragraphs as its original (a plan's meals,
   * each with its portions, in every week): a second version of a section sits in a block of
   * its own, a slide's copy in another slide.
   */
  function copiedBlocks(blocks: Said[]): Set<Element> {
    const copies = new Set<Element>();
    const isRepeat = (i: number) => blocks[i]?.original !== undefined;
    blocks.forEach(({ el, original }, i) => {
      if (!original) return;
      const besideOriginal = blocks[i - 1]?.el === original;
      const inRun = el.parentElement !== original.parentElement && (isRepeat(i - 1) || isRepeat(i + 1));
      if (besideOriginal || inRun || el.closest('blockquote') || inLargerCopy(el, original)) copies.add(el);
    });
    return copies;
  }

  /**
   * The short blocks of a copied section: in a run of blocks said again that holds a copy, those
   * that stand where the copy's original has them ("Handmade stoneware.", "Size: 9.5 x 13 cm" under
   * a product's description said twice). Not the fields of items of one kind (the same terms
   * under each coupon, each plan's features, the same words around each tab's code): their blocks
   * share a class and read differently. Measured on WCXB's dev pages: +0.87 page-F1 (product
   * 0.740 -> 0.743, collection 0.755 -> 0.759; 46 pages, one listing losing 0.11 whose truth keeps
   * each coupon's terms); without the exception for items, +0.94 but a docs page lost its tabs'
   * words (-0.03).
   */
  function copiedLines(said: Said[], copies: Set<Element>): Element[] {
    const lines: Element[] = [];
    let start = 0;
    while (start < said.length) {
      let end = start;
      while (end < said.length && said[end]!.original) end++;
      // said[start..end) is a run of blocks said again (empty when said[start] is said first).
      const copied = [];
      for (let i = start; i < end; i++) if (copies.has(said[i]!.el)) copied.push(i);
      for (let i = start; i < end; i++) {
        const { el, original, short } = said[i]!;
        if (!short) continue;
        // Where the copy at `c` has its original, the block at `i` has its own original `i - c` further on.
        const inPlace = copied.some((c) => said[said[c]!.originalAt! + (i - c)]?.el === original);
        if (inPlace && !ofItemsOfAKind(el, original!)) lines.push(el);
      }
      start = Math.max(end, start + 1);
    }
    return lines;
  }

  /** Whether `el` and `original` sit in two items of one kind: blocks beside each other that share a class and read differently. */
  function ofItemsOfAKind(el: Element, original: Element): boolean {
    let item: Element = el;
    while (item.parentElement && !item.parentElement.contains(original)) item = item.parentElement;
    let peer: Element = original;
    while (peer.parentElement && peer.parentElement !== item.parentElement) peer = peer.parentElement;
    return classesOf(item).some((name) => classesOf(peer).includes(name)) && normalText(item) !== normalText(peer);
  }

  /**
   * A card of a grid says each thing once to the eye: its name under its picture, and again in a
   * block its theme shows only without a picture or on hover; its price as regular and as sale
   * price, one of them shown by the theme's styles. In each card, an element that reads the same
   * as one before it (and is not inside it) goes. Measured on WCXB's dev pages: +0.75 page-F1 (three
   * collections and listings +0.23 to +0.29; one collection whose truth keeps each card three times
   * -0.12). Before the choice of content, it also moved that choice on other pages (-0.5 on those).
   */
  function removeCardRepeats(root: Element): void {
    for (const block of Array.from(root.querySelectorAll('ul, ol, div, section'))) {
      if (!root.contains(block) || !isGrid(block, isCard, 3)) continue;
      for (const card of textChildren(block)) if (isCard(card) && linksToOne(card)) removeRepeatsIn(card);
    }
  }

  /**
   * Whether every link of the card goes to one place. A row of listings can pass for one card,
   * and its listings' shared words ("Brand New", "Free shipping") are not repeats.
   */
  function linksToOne(card: Element): boolean {
    const targets = new Set(Array.from(card.querySelectorAll('a[href]'), (a) => (a.getAttribute('href') || '').split(/[?#]/)[0]));
    return targets.size === 1;
  }

  function removeRepeatsIn(card: Element): void {
    const first = new Map<string, Element>();
    for (const el of Array.from(card.querySelectorAll('*'))) {
      if (!card.contains(el)) continue;
      const text = normalText(el);
      if (!text) continue;
      const original = first.get(text);
      if (!original) first.set(text, el);
      else if (!original.contains(el)) el.remove();
    }
  }

  /** Whether `el` and `original` sit in blocks that read the same and hold more than them. */
  function inLargerCopy(el: Element, original: Element): boolean {
    const own = textLength(el);
    for (let a = el.parentElement, b = original.parentElement; a && b && !a.contains(b) && !b.contains(a); a = a.parentElement, b = b.parentElement) {
      const text = normalText(a);
      if (text !== normalText(b)) return false;
      if (text.length > own) return true;
    }
    return false;
  }

  /** Whether the page says it is an article, in JSON-LD or Open Graph (doc generators wrap pages in <article> too). */
  function declaresArticle(page: Document, jsonLd: string[]): boolean {
    if (declares(jsonLd, ARTICLE_TYPES)) return true;
    return /article/i.test(page.querySelector('meta[property="og:type"]')?.getAttribute('content') || '');
  }

  /**
   * A blog's comment section, by the names blog engines and comment services give it. Movable
   * Type's classic templates leave the comments unwrapped: a "comments-head" and one
   * "comments-body" each, beside the post.
   */
  const COMMENT_SECTIONS =
    '#comments, #respond, #disqus_thread, .comments-area, .comment-respond, .commentlist, .comment-list, #commentlist, .comments-section, #comment-section, .comments-container, .comments-head, .comments-body';

  /** Words naming who wrote a post, and words naming what a forum adds about them. */
  const POSTER = /^(user|member|author|poster)s?$/i;
  const POSTER_DETAIL = /^(extras?|stats|titles?|banners?|blurb|joined|since|signatures?|card|rank)$/i;

  /**
   * What a forum shows beside each post about its author (join date, post count,
   * rank, location, signature) and its site notices: not what the thread says.
   * The author's name and the post's date stay.
   */
  function removePosterDetails(root: Element): void {
    removeNamed(
      root,
      (names) =>
        (names.some((w) => POSTER.test(w)) && names.some((w) => POSTER_DETAIL.test(w))) ||
        names.some((w) => /^(signatures?|notices?|postprofile|gravatar\d*|flair|reputation|badges?)$/i.test(w)),
    );
    // Vote buttons and counts beside each post: a number, not what the thread says.
    for (const el of Array.from(root.querySelectorAll('[class], [id]'))) {
      if (root.contains(el) && textLength(el) <= 20 && words(el).some((w) => /^(votes?|votecell|voting|upvotes?|downvotes?)$/i.test(w))) el.remove();
    }
    // A bare count beside a post (its likes, replies, number in the thread): a number, not what the thread says.
    for (const el of Array.from(root.querySelectorAll('span, div, a, li, dd, dt, strong, b, p'))) {
      if (root.contains(el) && el.children.length === 0 && /^#?\d[\d,.]*\s*[km]?$/i.test(normalText(el))) el.remove();
    }
    // A Q&A site's comments under a question or an answer (not the answers, which some sites keep in a comment list).
    for (const el of Array.from(root.querySelectorAll('[class*="comment"]'))) {
      if (root.contains(el) && words(el).some((w) => /^comments$/i.test(w)) && el.parentElement?.closest('.question, .answer, #question, [id^="answer-"]')) el.remove();
    }
  }

  /**
   * Where forum software puts a thread: a forum's own host name (forum., community.,
   * discuss.), or a thread's path (XenForo's /threads/, phpBB's viewtopic.php,
   * Discourse's /t/name/123, Invision's /topic/123-name, Stack Exchange's /questions/123).
   * "/topic/" or "/community/" alone name a news topic or a blog as often.
   */
  const FORUM_HOST = /^(forums?|community|discuss|discussions?|bbs|boards?|answers)\./i;
  /** A site named for being a forum (physicsforums.com, warriorforum.com, avsforum.com), whatever its threads' paths. */
  const FORUM_NAME = /(^|\.)[a-z0-9-]*forums?\.[a-z]{2,}(\.[a-z]{2})?$/i;
  const THREAD_PATH =
    /\/(threads?|forums?|boards)\/|\/thread-\d|(showthread|viewtopic|showtopic)(\.php)?\b|\/t\/[^/]+\/\d+|\/topic\/\d+|\/questions\/\d+\/|\/r\/[^/]+\/comments\//i;

  /** The page's own address, as it says (canonical link, og:url): where a thread's address tells it is one. */
  function declaredAddress(page: Document): URL | null {
    const href = page.querySelector('link[rel~="canonical"]')?.getAttribute('href') || page.querySelector('meta[property="og:url"]')?.getAttribute('content') || '';
    try {
      return href ? new URL(href, page.baseURI) : null;
    } catch {
      return null;
    }
  }

  /** Forum software that says its name or puts the thread at a forum's address, or a Q&A page's question-and-answers layout. */
  function isForum(page: Document): boolean {
    const generator = page.querySelector('meta[name="generator"]')?.getAttribute('content') || '';
    if (/discourse|vbulletin|xenforo|phpbb|invision|mybb|simple machines|nodebb|flarum|vanilla/i.test(generator)) return true;
    if (page.documentElement.id === 'XF' || page.body?.id === 'phpbb') return true;
    const address = declaredAddress(page);
    if (address && (FORUM_HOST.test(address.hostname) || FORUM_NAME.test(address.hostname) || THREAD_PATH.test(address.pathname + address.search))) return true;
    return page.querySelector('#question, .question') !== null && page.querySelector('#answers, .answer') !== null;
  }

  /**
   * Whether the page is an article that reviews products: its JSON-LD says it is an article (not
   * Open Graph alone, which WordPress sets on a shop's product pages too), and it is not one
   * product's page. It declares the products it reviews, and its blocks named for a review are
   * its own text: a magazine's "best appliances of the year" lost each product's section. Measured
   * on WCXB's dev pages: +0.78 page-F1, that page 0.19 -> 0.97, no other page moved by 0.002.
   */
  const reviewsProducts = (jsonLd: string[], isProduct: boolean) => !isProduct && declares(jsonLd, ARTICLE_TYPES);

  /** Customers' reviews of a product: what others say of it, not the product's title, price, description and specifications. */
  function removeReviews(root: Element): void {
    removeNamed(root, (names) => names.some((w) => /^(reviews?|ratings?)$/i.test(w)));
  }

  /** Headings that open a block of other things to look at: never this page's own content. */
  const ELSEWHERE_HEADING =
    /^(.{0,20}\b)?(you (may|might) also (like|enjoy|love|be interested in)|related (products?|items?|articles?|posts?|stories|content|reading|searches)|(customers|people|shoppers) who (viewed|bought)|(customers|people) (also )?(viewed|bought|liked)|recently viewed|frequently bought together|complete the look|shop the look|similar (products?|items?|threads|topics|questions|discussions|posts|articles|stories)|related (threads|topics|questions|discussions)|suggested (topics|threads)|more topics from|more (from this (seller|brand|shop)|like this|products)|recommended (for you|products|items)|trending now|popular (products|items)|explore (more|related))\b/i;

  /** Headings of what customers say of a product, on its page. */
  const REVIEWS_HEADING =
    /^([\d.,]+\s+)?(customer |product |verified )?(reviews?|ratings?( (&|and) reviews?)?|testimonials?)\b|^what (our )?(customers|clients|people) (are )?(say|saying|think)|^(customer )?questions?( (&|and) answers?)?$/i;

  const HEADINGS = 'h2, h3, h4, h5, h6';
  const level = (heading: Element) => Number(heading.tagName.slice(1));

  /**
   * Removes each section opened by such a heading: the outermost block that starts with
   * the heading and holds no other section of its rank, or else the heading and what
   * follows it up to the next heading of its rank.
   */
  function removeSectionsHeaded(root: Element, opening: RegExp): void {
    for (const heading of Array.from(root.querySelectorAll(HEADINGS))) {
      const text = normalText(heading);
      // The patterns match at the start: a long heading may end in links (see all, sort).
      if (!root.contains(heading) || text.length > 150 || !opening.test(text)) continue;
      const rank = level(heading);
      const peers = (el: Element) =>
        Array.from(el.querySelectorAll(HEADINGS)).some((h) => h !== heading && level(h) <= rank && !opening.test(normalText(h)));
      let section: Element = heading;
      for (let up = heading.parentElement; up && up !== root && !up.querySelector('h1') && !peers(up) && normalText(up).startsWith(text); up = up.parentElement) {
        section = up;
      }
      if (section === heading) {
        for (let next = heading.nextElementSibling; next; ) {
          const following = next.nextElementSibling;
          if (next.matches(HEADINGS) ? level(next) <= rank : next.querySelector(HEADINGS) !== null || next.querySelector('h1') !== null) break;
          next.remove();
          next = following;
        }
      }
      section.remove();
    }
  }

  /** Whether the page says it is one product's page (not a category of many): JSON-LD, Open Graph or microdata. */
  function declaresOneProduct(page: Document, jsonLd: string[]): boolean {
    const lists = declares(jsonLd, ['ItemList', 'CollectionPage', 'OfferCatalog', 'SearchResultsPage']);
    if (declares(jsonLd, ['Product', 'ProductGroup']) && !lists) return true;
    const og = page.querySelector('meta[property="og:type"]')?.getAttribute('content') || '';
    if (/^(og:)?product(\.item)?$|[:_](item|product)$/i.test(og.trim())) return true;
    return page.querySelectorAll('[itemtype$="schema.org/Product"]').length === 1;
  }

  /**
   * A product's title named as one: "product-title", "productName", "product_title__heading", Amazon's
   * "productTitle". Not "pdp" (product detail page) alone: a course page's "lf-pdp-fundamental-header" heads
   * a page whose truth keeps its learners' reviews (-0.39 on WCXB's dev page).
   */
  const PRODUCT_TITLE_NAME = /\bproduct (title|name|heading)\b/i;

  /**
   * A product's page that says nothing of itself but names its h1 (or what the h1 holds) as the product's
   * title. On WCXB's dev pages, those whose h1 is named so are all products; the rule changed 6 of them:
   * +0.34 page-F1 (Amazon's reviews gone), one page -0.008.
   */
  function namesProductTitle(page: Document): boolean {
    const named = (el: Element) => PRODUCT_TITLE_NAME.test(words(el).join(' '));
    return Array.from(page.querySelectorAll('h1')).some((h1) => named(h1) || Array.from(h1.children).some(named));
  }

  /** A product's page that says nothing of itself: one "Add to basket" button (two with a sticky bar), not one per card. */
  function sellsOneThing(page: Document): boolean {
    const label = (el: Element) => normalText(el) || el.getAttribute('value') || '';
    const buttons = Array.from(page.querySelectorAll('button, input[type="submit"]')).filter((el) => /^(add to (cart|basket|bag)|buy (it )?now)$/i.test(label(el).trim()));
    return buttons.length >= 1 && buttons.length <= 2;
  }

  /** A block of three or more cards, each an image, a link and a short text: other products, other posts. */
  function isCardGrid(el: Element): boolean {
    return isGrid(el, (item) => isCard(item) && textLength(item) < 300, 3);
  }

  /** Grids of other products on a product's page (also viewed, also bought), of other stories in an article. */
  function removeCardGrids(root: Element): void {
    const prose = proseLength(root);
    for (const el of Array.from(root.querySelectorAll('ul, ol, div, section'))) {
      if (root.contains(el) && !el.querySelector('h1') && isCardGrid(el) && proseLength(el) < prose / 3) el.remove();
    }
  }

  /** A paragraph or two of prose: less, above a product's name, is a notice rather than its story. */
  const STORY_ABOVE_TITLE = 400;

  /**
   * A product's page starts at its name: what a shop puts above its title heading, beside the gallery, is its own
   * (promotions, searches, breadcrumbs, a sticky bar, a summary of the reviews). Images stay: the gallery is the
   * product's. Unless the product's story is told there, above the buy column, with more prose than below it.
   * Measured on WCXB's dev pages: +0.81 page-F1 (product 0.733 -> 0.740, 30 pages gained up to +0.18, one lost
   * 0.08, no other type changed); without the exception, a shop whose description opens its page lost 0.64.
   */
  function startAtTitle(content: Element): void {
    const title = titleHeading(content);
    if (!title) return;
    const above: Element[] = [];
    for (const el of [title, ...ancestors(title, content)]) {
      for (let sibling = el.previousElementSibling; sibling; sibling = sibling.previousElementSibling) above.push(sibling);
    }
    const storyAbove = above.reduce((sum, el) => sum + paragraphProse(el, () => true), 0);
    if (storyAbove >= STORY_ABOVE_TITLE && storyAbove > paragraphProse(content, () => true) - storyAbove) return;
    for (const el of above) if (textLength(el) > 0) el.remove();
  }

  /** Names of the blocks that hold a product's description, specifications and details (product-description, productDescription, tech-specs, productDetails: materials, care). */
  const DESCRIPTION_NAMES = /^(desc|descr|description|productdesc|productdescription|specs?|specifications?|techspecs|details|productdetails)s?$/i;

  /**
   * A product page's own text: its title, price, description, specifications and details, without the buy box
   * around them (variants, quantities, delivery, returns, payment plans, seller badges,
   * "Loading..."). Only when the page names its description blocks and they hold most
   * of the region's paragraphs: a brand's long product story told outside them keeps
   * the region. Measured on WCXB's dev product pages (0.660 -> 0.676): paragraphs outside
   * up to as much as inside did best; a quarter or four times did half as well.
   */
  function productEssentials(content: Element): Element | null {
    const title = titleHeading(content);
    // The prices of many products: a category page that declares its products, not one product.
    if (prices(content, title).length >= 6) return null;
    const isDescription = (el: Element) => el.getAttribute('itemprop') === 'description' || words(el).some((word) => DESCRIPTION_NAMES.test(word));
    const found = Array.from(content.querySelectorAll('[class], [id], [itemprop]')).filter((el) => isDescription(el) && !holds(el, title));
    const descriptions = found.filter((el) => !found.some((other) => other !== el && other.contains(el)));
    if (descriptions.reduce((sum, el) => sum + textLength(el), 0) < 200) return null;
    if (paragraphProse(content, (el) => !descriptions.some((d) => d.contains(el))) > paragraphProse(content, (el) => descriptions.some((d) => d.contains(el)))) {
      return null;
    }
    const root = content.ownerDocument.createElement('div');
    if (title) root.append(title.cloneNode(true));
    const price = priceOf(content, title);
    if (price) root.append(price);
    for (const el of descriptions) root.append(el.cloneNode(true));
    return root;
  }

  /** The prose of the region's paragraphs (blocks of 80 characters of prose or more) that `where` accepts. */
  function paragraphProse(content: Element, where: (el: Element) => boolean): number {
    const BLOCKS = 'p, li, dd, td, blockquote, pre, div';
    let prose = 0;
    for (const el of Array.from(content.querySelectorAll(BLOCKS))) {
      if (!el.querySelector(BLOCKS) && proseLength(el) >= 80 && where(el)) prose += proseLength(el);
    }
    return prose;
  }

  /** Short blocks named "price" that hold a number, outermost first. */
  function prices(content: Element, title: Element | null): Element[] {
    const named = Array.from(content.querySelectorAll('[itemprop="price"], [class], [id]')).filter(
      (el) => !holds(el, title) && (el.getAttribute('itemprop') === 'price' || words(el).some((word) => /^price$/i.test(word))) && /\d/.test(normalText(el)) && textLength(el) <= 40,
    );
    return named.filter((el) => !named.some((other) => other !== el && other.contains(el)));
  }

  /** The product's price, as a paragraph. */
  function priceOf(content: Element, title: Element | null): Element | null {
    const [first] = prices(content, title);
    if (!first) return null;
    const p = content.ownerDocument.createElement('p');
    p.textContent = normalText(first);
    return p;
  }

  /** JSON-LD types by what they say the page is. */
  const ARTICLE_TYPES = ['Article', 'NewsArticle', 'BlogPosting', 'TechArticle', 'Report', 'ScholarlyArticle', 'HowTo', 'Recipe'];
  /** A discussion (a forum thread, a Q&A page), whose comments are its content. */
  const DISCUSSION_TYPES = ['DiscussionForumPosting', 'QAPage', 'Question', 'SocialMediaPosting', 'Comment'];
  const PRODUCT_TYPES = ['Product'];

  /** Whether one of the page's JSON-LD blocks (`jsonLd`, their texts) has an @type among `types`. */
  function declares(jsonLd: string[], types: string[]): boolean {
    const pattern = new RegExp(`"@type"\\s*:\\s*\\[?\\s*"(${types.join('|')})"`);
    return jsonLd.some((text) => pattern.test(text));
  }

  /**
   * When the page's title heading sits in an `<article>`, the page is that article:
   * the other `<article>`s beside it are other posts (the next stories of an endless
   * blog, teasers). Not on a thread, whose posts are each an article.
   */
  function removeOtherArticles(root: Element): void {
    const title = namedHeading(root);
    if (!title) return;
    const home = title.closest('article');
    if (!home || !root.contains(home)) return;
    // A copy of the header (a responsive page has two) is no other post.
    const own = normalText(title);
    const isCopy = (el: Element) => Array.from(el.querySelectorAll('h1, h2, h3')).some((h) => normalText(h) === own);
    // Drupal renders one item in several <article>s (a header, the full text), each "about" the item's path.
    const about = home.getAttribute('about');
    const isSameItem = (el: Element) => about !== null && el.getAttribute('about') === about;
    const others = Array.from(root.querySelectorAll('article')).filter(
      (other) => !other.contains(home) && !home.contains(other) && !isReply(other) && !isCopy(other) && !isSameItem(other),
    );
    // Other posts come as a series, sharing a class; a lone <article> or one unlike the rest is
    // more likely a part of this item (its body, a recipe's steps).
    const teasers = series(others);
    if (teasers.length >= 2) for (const other of teasers) other.remove();
  }

  /** Shorter headings ("News", "Latest") are named by many a title that is not about them. */
  const MIN_NAMED_HEADING = 20;

  /**
   * The heading the document's title names: its h1, or on a front page that puts a featured
   * story's h1 above the page's own story, an h2 or h3 of an article. Null when none is named.
   */
  function namedHeading(root: Element): Element | null {
    const doc = root.ownerDocument;
    const title = titleHeading(root);
    if (title && namesPage(title, doc)) return title;
    return Array.from(root.querySelectorAll('article h2, article h3')).find((h) => wordsOf(normalText(h)).length >= MIN_NAMED_HEADING && namesPage(h, doc)) ?? null;
  }

  /** Those of `elements` that share a class with another of them: a series (posts, teasers, cards). */
  function series(elements: Element[]): Element[] {
    return elements.filter((el) => elements.some((peer) => peer !== el && classesOf(el).some((name) => classesOf(peer).includes(name))));
  }

  /** A reply to the page's post (a thread's answers, readers' comments), left to the rules for those. */
  const isReply = (el: Element) =>
    el.matches('[itemprop~="comment"], [itemtype*="Comment"], [itemtype*="Answer"]') || words(el).some((word) => /^(repl(y|ies)|comments?|answers?)$/i.test(word));

  function select(doc: Document, page: Document): MainContent {
    // A text area's text is a form field's value (a republishing tool's copy of the whole article as
    // HTML, a reply's draft), never written out (markdown.ts): in the shares of the text it would
    // outweigh the article itself. The element stays, for the rules that know a reply box by it.
    for (const field of Array.from(doc.querySelectorAll('textarea'))) field.textContent = '';
    separateBlocks(doc);
    const content = region(doc);
    const untouched = content.cloneNode(true) as Element;
    removeFurniture(content);
    removeRepeats(content);
    // Readers' comments under a post are not the post; in a thread, the posts are the content.
    const jsonLd = jsonLdTexts(page);
    const isThread = declares(jsonLd, DISCUSSION_TYPES) || isForum(page);
    if (isThread) removePosterDetails(content);
    else {
      for (const el of Array.from(content.querySelectorAll(COMMENT_SECTIONS))) if (content.contains(el) && !el.querySelector('h1')) el.remove();
      removeOtherArticles(content);
    }
    // A shop's product page that declares nothing (no JSON-LD, Open Graph or microdata) is known by its one buy button,
    // or by the name of its title.
    const sells = sellsOneThing(page) || namesProductTitle(page);
    const isProduct = declaresOneProduct(page, jsonLd) || sells;
    if ((declares(jsonLd, PRODUCT_TYPES) || sells) && !reviewsProducts(jsonLd, isProduct)) removeReviews(content);
    let essentials: Element | null = null;
    if (isProduct) {
      startAtTitle(content);
      for (const el of copiedShortRuns(saidBlocks(content))) el.remove();
      removeCardGrids(content);
      removeSectionsHeaded(content, REVIEWS_HEADING);
      // Open Graph's "product" alone is not enough: shops put it on their category pages too.
      if (declares(jsonLd, PRODUCT_TYPES) || page.querySelector('[itemtype$="schema.org/Product"]')) essentials = productEssentials(content);
    }
    const says: PageKind = declaresArticle(page, jsonLd) ? 'article' : isThread ? 'thread' : isProduct ? 'product' : 'nothing';
    const chosen = essentials ?? articleOrRegion(doc, content, says);
    addProductDescription(jsonLd, chosen);
    // After the choice: the repeats count in the shares of text that choose between the candidates.
    removeCardRepeats(chosen);
    return neverSilentlyEmpty(chosen, untouched);
  }

  /** What a page says it is: an article, a thread, one product's page, or nothing. */
  type PageKind = 'article' | 'thread' | 'product' | 'nothing';

  /** Readability's pick when it is the content (see picksArticle), else the region. */
  function articleOrRegion(doc: Document, content: Element, says: PageKind): Element {
    const picked = article(doc, content, says);
    if (!picked || !picksArticle(picked, content, says)) return content;
    if (says === 'product') return withPrice(withTitle(picked, content), content);
    return says === 'article' ? picked : withTitle(picked, content);
  }

  /**
   * A product's price under its title, when Readability's pick left it out with the buy box: a product's
   * page is its title, price, description and details (as productEssentials keeps them). WCXB's truths
   * mostly leave prices out: on its dev pages this cost 0.004 page-F1 over three pages.
   */
  function withPrice(picked: Element, content: Element): Element {
    const price = priceOf(content, titleHeading(content));
    if (!price || normalText(picked).includes(normalText(price))) return picked;
    const title = picked.querySelector('h1');
    if (title) title.after(price);
    else picked.prepend(price);
    return picked;
  }

  /** Below this many characters, a selection that left most of the main region out is suspect. */
  const SHORT_CONTENT = 250;

  /**
   * The rules above can be wrong about a page: content in blocks named like furniture,
   * or a teaser picked over the post. When the selection is nearly empty while the
   * main region holds several times more, the main region comes back with only what
   * is surely not content removed (hidden elements, navigation, headers, footers),
   * and a warning says so, rather than an empty result that looks like success.
   */
  function neverSilentlyEmpty(chosen: Element, untouched: Element): MainContent {
    const kept = textLength(chosen);
    if (kept >= SHORT_CONTENT) return { root: chosen };
    const pageText = textLength(untouched);
    const plain = plainRegion(untouched.cloneNode(true) as Element, true);
    if (textLength(plain) >= 4 * Math.max(kept, 50)) return fallback(kept, plain, 'navigation, headers, footers and banners');
    // Responsive pages can hide every variant of their content at one viewport size.
    const unhidden = plainRegion(untouched, false);
    if (textLength(unhidden) >= 4 * Math.max(kept, 50)) return fallback(kept, unhidden, 'navigation, headers, footers and banners, though hidden blocks kept,');
    if (kept === 0 && pageText > 0) return { root: chosen, warning: NOTHING_BUT_FURNITURE };
    return { root: chosen };
  }

  /**
   * Readability drops what the markup hides (the hidden attribute, an inline display:none or visibility:hidden).
   * What is still in the region was judged shown, or content one click away (a closed tab, a collapsed panel,
   * a page hidden whole until its scripts run: see markHidden), so the copy it reads shows it. Measured on
   * WCXB's dev pages: +0.31 page-F1 (9 pages gained up to +0.14, 5 lost up to 0.05). Not aria-hidden, which
   * Readability drops too: showing it as well lost 0.08 more (service pages' decorative copies).
   */
  function showHeldBack(root: Element): void {
    for (const el of Array.from(root.querySelectorAll('[hidden], [style]'))) {
      el.removeAttribute('hidden');
      const style = el.getAttribute('style');
      if (style) el.setAttribute('style', style.replace(/(display|visibility)\s*:\s*(none|hidden)\s*(!important)?/gi, ''));
    }
  }

  /** Said of an empty result from a page that has text: all of it was furniture (a shop whose product only its scripts build). */
  const NOTHING_BUT_FURNITURE =
    "no main content found: the page's text is all navigation, headers, footers and banners (does it build its content with scripts that did not run?)";

  /** The main region without what is surely not content: navigation, headers, footers, banners, repeats. */
  function plainRegion(root: Element, withoutHidden: boolean): Element {
    if (withoutHidden) removeHidden(root);
    else for (const el of Array.from(root.querySelectorAll(`[${HIDDEN}]`))) el.removeAttribute(HIDDEN);
    removeBanners(root);
    for (const el of Array.from(root.querySelectorAll(FURNITURE_TAGS))) {
      if (root.contains(el) && el.querySelector('h1') === null) el.remove();
    }
    removeRepeats(root);
    return root;
  }

  function fallback(kept: number, root: Element, removed: string): MainContent {
    return {
      root,
      warning: `the main content found was only ${kept} characters of the ${textLength(root)} in the page's main region; this is the main region with only ${removed} removed`,
    };
  }

  /**
   * Whether Readability's pick is the content rather than the region. It is when it
   * holds nine tenths of the region's prose (links are menus and teasers more often
   * than content). On a page that says it is an article, three fifths will do, and a
   * short news item on a busy page (a quarter of the prose) wins as long as the rest
   * of the region is not itself made of many paragraphs (a thread, a listing).
   * Measured by scoring both candidates of every page of WCXB's dev split and of the
   * 181 benchmark pages: below three fifths the region did better on articles. A page
   * that says nothing of itself is often an article too: there three quarters of the
   * prose will do when the pick also holds half of the text (see below).
   */
  function picksArticle(picked: Element, content: Element, says: PageKind): boolean {
    const share = proseLength(picked) / Math.max(1, proseLength(content));
    if (says !== 'article') {
      // A category page whose guide outweighs its products' cards: the products are content too. Priced
      // cards only: a grid of other posts is no part of the article beside it. Measured on WCXB's dev
      // pages: +0.11 page-F1; with any grid +0.08, articles beside a grid of teasers losing up to 0.15.
      if (says === 'nothing' && holdsGrid(content, { priced: true }) && !holdsGrid(picked)) return false;
      // Most of the prose, but a small part of the text: the rest is a listing whose items have no paragraphs (a job board).
      const ofText = textLength(picked) / Math.max(1, textLength(content));
      if (share >= 0.9 && ofText >= 0.25) return true;
      // A product's page whose pick kept every block named for the product's details: what the pick left out
      // is the buy box and the shop around it, and half of the prose will do (see keepsProductDetails).
      if (says === 'product') return share >= 0.5 && ofText >= 0.25 && keepsProductDetails(picked, content);
      // An article that does not say it is one: three quarters of the prose and half of the text. Measured on
      // WCXB's dev pages, where this pick won 1.7 page-F1 more than it lost (three quarters of the text: 0.8).
      // Not on a thread, where Readability drops the posters' names.
      return says === 'nothing' && share >= 0.75 && ofText >= 0.5;
    }
    // A list page (Wikipedia's lists) is its tables, whose linked names Readability drops: more text in them than in the pick.
    if (dataTableText(content) - dataTableText(picked) > textLength(picked)) return false;
    if (isArchive(content, picked)) return false;
    return share >= 0.6 || (share >= 0.25 && paragraphsOutside(content, picked) <= 10);
  }

  /** Names of blocks that hold a product's details beside those that name its description: its features, overview, comparison table, attributes. */
  const DETAIL_NAMES = /^(features?|overview|comparison|attributes?)$/i;

  /**
   * Whether Readability's pick of a product's page kept every block named for the product's details (description,
   * specifications, features, overview, comparison, attributes). When it did, what it left out is the buy box
   * (variants, offers, delivery) and the shop's blocks around it. Measured on WCXB's dev pages, with a pick that holds
   * three quarters of the prose: +0.40 page-F1 (six products and a listing, up to +0.14; none losing more than
   * 0.001), where picking without this test also gained 0.38 but lost 0.22 on pages whose feature grids and
   * comparison tables the pick dropped (a shop's category page that sells, a service's overview). Half of the prose:
   * +0.74 more (nine pages, three losing up to 0.09); three fifths +0.30, two fifths +0.92, and below that pages lose
   * up to 0.76. A block counts from a line of text (20 characters): a short specifications table too.
   */
  function keepsProductDetails(picked: Element, content: Element): boolean {
    const pickedText = normalText(picked);
    const details = Array.from(content.querySelectorAll('[class], [id]')).filter(
      (el) => textLength(el) >= 20 && words(el).some((word) => DESCRIPTION_NAMES.test(word) || DETAIL_NAMES.test(word)),
    );
    return details.every((el) => pickedText.includes(opening(el)));
  }

  /** Readability's pick this long or longer is a post, not an archive's introduction (a paragraph or two). */
  const ARCHIVE_INTRODUCTION = 1500;

  /**
   * An archive (a category's posts, each an <article> of one series) whose entries the pick
   * left out: a category page that calls itself an article, Readability picking its introduction.
   */
  function isArchive(content: Element, picked: Element): boolean {
    if (textLength(picked) >= ARCHIVE_INTRODUCTION) return false;
    const articles = Array.from(content.querySelectorAll('article')).filter((el) => !el.parentElement?.closest('article'));
    const entries = series(articles);
    if (entries.length < 4) return false;
    const pickedText = normalText(picked);
    // A post in an <article> of its own, its teasers beside it, is no archive.
    const start = opening(picked);
    if (articles.some((el) => !entries.includes(el) && normalText(el).includes(start))) return false;
    const inPick = entries.filter((el) => pickedText.includes(opening(el))).length;
    return inPick <= 1 && entries.reduce((sum, el) => sum + textLength(el), 0) > textLength(picked);
  }

  /** The start of the element's text: enough to find the block again in a copy (Readability's pick). */
  const opening = (el: Element) => normalText(el).slice(0, 60);

  /** The text of the data tables in `root`: outermost tables with a header cell and at least five rows. */
  function dataTableText(root: Element): number {
    const tables = Array.from(root.querySelectorAll('table')).filter((table) => !table.parentElement?.closest('table'));
    return tables.filter((table) => table.querySelector('th') && table.querySelectorAll('tr').length >= 5).reduce((sum, table) => sum + textLength(table), 0);
  }

  /** How many paragraphs of the region (80 characters of prose or more) are not in the pick. */
  function paragraphsOutside(content: Element, picked: Element): number {
    const pickedText = normalText(picked);
    const BLOCKS = 'p, li, dd, td, blockquote, pre, div';
    return Array.from(content.querySelectorAll(BLOCKS)).filter(
      (el) => !el.querySelector(BLOCKS) && proseLength(el) >= 80 && !isTeaser(el) && !pickedText.includes(opening(el)),
    ).length;
  }

  /** An excerpt cut short ("…", "[...]", "... Read more"): a teaser of another page, not a paragraph of this one. */
  const isTeaser = (el: Element) => /(\.\.\.|…|\[(\.\.\.|…)\])\s*((read|continue reading|more)\b.{0,20})?$/i.test(normalText(el));

  /**
   * Readability takes the title heading out; an article's title is metadata.title, but
   * a thread, a docs page or an index without its title heading reads as a fragment.
   */
  function withTitle(picked: Element, content: Element): Element {
    const title = content.querySelector('h1');
    const text = title ? normalText(title) : '';
    const has = Array.from(picked.querySelectorAll('h1, h2')).some((h) => normalText(h) === text);
    if (text && !has) {
      const h1 = picked.ownerDocument.createElement('h1');
      h1.textContent = text;
      picked.prepend(h1);
    }
    return picked;
  }

  /**
   * A product's description is often only in its JSON-LD (the visible one sits in a
   * tab filled by script, or is cut short): when the content lacks it, it is added.
   */
  function addProductDescription(jsonLd: string[], root: Element): void {
    // Letters and digits only: in the page's text, the items of a list run together ("Low FatNo Added Salt").
    const squash = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
    const seen = squash(root.textContent || '');
    for (const text of jsonLd) {
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        continue;
      }
      const items: any[] = Array.isArray(data) ? data : [data, ...((data as any)?.['@graph'] ?? [])];
      for (const item of items) {
        const type = item?.['@type'];
        if (!(type === 'Product' || (Array.isArray(type) && type.includes('Product')))) continue;
        const description = typeof item.description === 'string' ? item.description.replace(/\s+/g, ' ').trim() : '';
        if (description.length < 40 || seen.includes(squash(description).slice(0, 50))) continue;
        const p = root.ownerDocument.createElement('p');
        p.textContent = description;
        root.appendChild(p);
        return;
      }
    }
  }

  return { markHidden, select };
}
