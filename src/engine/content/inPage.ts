/**
 * Runs inside the page Chromium already parsed: metadata, links, main content and
 * Markdown, in one round trip. This function is serialised with toString() and
 * evaluated in the page, so it must not reference anything outside itself except
 * the libraries passed in. Running here, instead of re-parsing the HTML with jsdom
 * in Node, costs no extra parse and spreads the work over Chromium's renderer processes.
 */

export interface InPageOptions {
  onlyMainContent: boolean;
  includeTags: string[];
  excludeTags: string[];
  wantHtml: boolean;
  wantMarkdown: boolean;
  wantLinks: boolean;
}

export interface InPageResult {
  metadata: Record<string, string>;
  markdown: string;
  html: string;
  links: string[];
}

/* eslint-disable @typescript-eslint/no-explicit-any */
export function extractInPage(options: InPageOptions, Readability: any, toMarkdown: (root: Element) => string): InPageResult {
  const REMOVE_ALWAYS = 'script, style, noscript, template, svg, canvas, iframe, object, embed, link, meta, base';
  /** Page furniture that is never part of an article, removed before Readability looks for one. */
  const FURNITURE = 'nav, aside, footer, dialog, [role="navigation"], [role="contentinfo"], [role="complementary"], [role="search"], [role="dialog"]';
  const CHROME = 'nav, header, footer, aside, form, dialog, [role="navigation"], [role="banner"], [role="contentinfo"], [aria-hidden="true"]';

  function metadataOf(doc: Document): Record<string, string> {
    const meta: Record<string, string> = {};
    const title = doc.title.trim();
    if (title) meta.title = title;
    for (const el of Array.from(doc.querySelectorAll('meta[name], meta[property]'))) {
      const key = (el.getAttribute('property') || el.getAttribute('name') || '').trim();
      const content = (el.getAttribute('content') || '').trim();
      if (!key || !content) continue;
      const lower = key.toLowerCase();
      if (lower === 'description' || lower === 'viewport' || lower === 'author' || lower === 'keywords' || lower === 'robots') {
        meta[lower] ??= content;
      } else if (lower.startsWith('og:') || lower.startsWith('article:') || lower.startsWith('twitter:')) {
        meta[key] ??= content;
      }
    }
    if (!meta.title && meta['og:title']) meta.title = meta['og:title'];
    if (!meta.description && meta['og:description']) meta.description = meta['og:description'];
    meta.title ??= '';
    meta.description ??= '';
    const lang = doc.documentElement.getAttribute('lang');
    if (lang) meta.language = lang;
    const icon = doc.querySelector('link[rel~="icon"]') as HTMLLinkElement | null;
    if (icon?.href) meta['link:icon'] = icon.href;
    const canonical = doc.querySelector('link[rel="canonical"]') as HTMLLinkElement | null;
    if (canonical?.href) meta.canonical = canonical.href;
    return meta;
  }

  function linksOf(doc: Document): string[] {
    const seen = new Set<string>();
    for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
      const href = (a as HTMLAnchorElement).href;
      if (!/^https?:/i.test(href)) continue;
      const clean = href.split('#')[0]!;
      if (!seen.has(clean)) seen.add(clean);
    }
    return [...seen];
  }

  function absolutise(root: Element): void {
    for (const el of Array.from(root.querySelectorAll('a[href]'))) {
      const a = el as HTMLAnchorElement;
      if (a.getAttribute('href')!.startsWith('#')) continue;
      a.setAttribute('href', a.href);
    }
    for (const el of Array.from(root.querySelectorAll('img[src]'))) {
      el.setAttribute('src', (el as HTMLImageElement).src);
    }
  }

  function remove(root: ParentNode, selector: string): void {
    for (const el of Array.from(root.querySelectorAll(selector))) el.remove();
  }

  /** querySelectorAll for a selector the user gave, failing with a message that names the option. */
  function selectUser(root: ParentNode, selector: string, option: string): Element[] {
    try {
      return Array.from(root.querySelectorAll(selector));
    } catch {
      throw new Error(`${option}: "${selector}" is not a valid CSS selector`);
    }
  }

  /** What Readability keeps around an article that is not its text. */
  function cleanArticle(root: Element): void {
    remove(root, 'figcaption');
    for (const el of Array.from(root.querySelectorAll('[class], [id]'))) {
      const names = `${el.getAttribute('class') || ''} ${el.getAttribute('id') || ''}`;
      if (/(^|[\s_-])(caption|credit|byline)s?($|[\s_-])/i.test(names) && root.contains(el)) el.remove();
    }
    const textLength = (el: Element) => (el.textContent || '').replace(/\s+/g, ' ').trim().length;
    const linkDensity = (el: Element) => {
      const total = textLength(el);
      if (total === 0) return 0;
      let linked = 0;
      for (const a of Array.from(el.querySelectorAll('a'))) linked += textLength(a);
      return linked / total;
    };
    // Lists and blocks made of links are related-article lists, tags and share bars.
    for (const el of Array.from(root.querySelectorAll('ul, ol, p, div, section, h2, h3, h4, h5, h6'))) {
      if (!root.contains(el)) continue;
      if (el.querySelector('pre, table, img, picture, video')) continue;
      const density = linkDensity(el);
      // A block with a good deal of text outside its links is prose that happens to link a lot.
      if (density <= 0.5 || (1 - density) * textLength(el) > 150) continue;
      // A short heading or label right before such a block ("Related", "More from ...") goes with it.
      const label = el.previousElementSibling;
      if (label && textLength(label) < 60 && label.querySelectorAll('a, img').length === 0 && !/[.!?:"”]$/.test((label.textContent || '').trim())) {
        label.remove();
      }
      el.remove();
    }
  }

  function mainContent(doc: Document): Element {
    const clone = doc.cloneNode(true) as Document;
    remove(clone, REMOVE_ALWAYS);
    for (const selector of options.excludeTags) for (const el of selectUser(clone, selector, 'excludeTags')) el.remove();
    if (options.includeTags.length > 0) {
      const kept = clone.createElement('div');
      for (const selector of options.includeTags) {
        for (const el of selectUser(clone, selector, 'includeTags')) kept.appendChild(el);
      }
      return kept;
    }
    if (options.onlyMainContent) {
      const candidate = clone.cloneNode(true) as Document;
      remove(candidate, FURNITURE);
      const article = new Readability(candidate, { charThreshold: 200, keepClasses: true }).parse();
      if (article && article.content && article.textContent.trim().length > 0) {
        // An inert document: nothing in the article starts loading again.
        const holder = doc.implementation.createHTMLDocument('').createElement('div');
        holder.innerHTML = article.content;
        cleanArticle(holder);
        return holder;
      }
      remove(clone, CHROME);
    }
    return clone.body ?? clone.documentElement;
  }

  const metadata = metadataOf(document);
  const links = options.wantLinks ? linksOf(document) : [];
  const needContent = options.wantHtml || options.wantMarkdown;
  const content = needContent ? mainContent(document) : null;
  if (content) absolutise(content);
  return {
    metadata,
    links,
    html: content && options.wantHtml ? content.innerHTML.trim() : '',
    markdown: content && options.wantMarkdown ? toMarkdown(content) : '',
  };
}
