/**
 * The headline: main content opens with the page's headline as a level-1 heading, as a reader of
 * `webjobs scrape URL > article.md` (or a model given it) expects. Readability leaves an article's
 * title to its metadata, so most articles came back without it.
 *
 * The headline is the visible h1 the document's title names, else the document's title without
 * the site's name. When the content already opens with an h1, it stands; when it holds the
 * headline as a heading further down (under a kicker, a date line), that heading moves to the top;
 * otherwise the headline is added.
 */
import { normalText } from '../dom.js';
import { HIDDEN } from '../marks.js';
import { namesPage, wordsOf } from '../titles.js';

/** What separates a page's title from its site's name: "Headline | Site", "Headline - Site", "Site » Headline". */
const TITLE_SEPARATOR = /\s+(?:[|–—·•»]|-|::)\s+/;

/** The page's headline: the visible h1 its title names (not the site's name, which a logo's h1 holds), else its title without the site's name. */
export function headlineOf(doc: Document, page: Document): string {
  const own = titleWithoutSite(page);
  const site = new Set([siteName(page), ...titleParts(page).filter((part) => part !== own)].map(wordsOf).filter(Boolean));
  const named = Array.from(doc.querySelectorAll('h1')).find((h1) => !h1.closest(`[${HIDDEN}]`) && namesPage(h1, page) && !site.has(wordsOf(normalText(h1))));
  return named ? normalText(named) : own;
}

/** The site's name as the page declares it (Open Graph, or the web application's name). */
const siteName = (page: Document) => page.querySelector('meta[property="og:site_name"], meta[name="application-name"]')?.getAttribute('content') ?? '';

/** The parts of the document's title between its separators. */
const titleParts = (page: Document) =>
  (page.title || '')
    .replace(/\s+/g, ' ')
    .trim()
    .split(TITLE_SEPARATOR)
    .filter((part) => wordsOf(part) !== '');

/** The document's title without the site's name: the part that is not the site's name, else the longest part. */
export function titleWithoutSite(page: Document): string {
  const parts = titleParts(page);
  if (parts.length <= 1) return (page.title || '').replace(/\s+/g, ' ').trim();
  const site = wordsOf(siteName(page));
  const own = site ? parts.filter((part) => wordsOf(part) !== site) : parts;
  return (own.length > 0 ? own : parts).reduce((longest, part) => (part.length > longest.length ? part : longest));
}

/** The heading the content's text opens with, if its first text is in one (null: it opens with other text, or has none). */
function openingHeading(root: Element): Element | null {
  const first = (node: Node): Text | null => {
    if (node.nodeType === 3) return (node.nodeValue || '').trim() ? (node as Text) : null;
    for (const child of Array.from(node.childNodes)) {
      const found = first(child);
      if (found) return found;
    }
    return null;
  };
  return first(root)?.parentElement?.closest('h1, h2, h3, h4, h5, h6') ?? null;
}

/** Makes `root` open with `headline` as an h1 (see the file's header). */
export function openWithHeadline(root: Element, headline: string): void {
  const words = wordsOf(headline);
  if (!words) return;
  const opening = openingHeading(root);
  if (opening?.tagName === 'H1') return;
  const doc = root.ownerDocument;
  const same = Array.from(root.querySelectorAll('h1, h2, h3')).find((heading) => wordsOf(normalText(heading)) === words);
  const h1 = doc.createElement('h1');
  if (same) {
    while (same.firstChild) h1.appendChild(same.firstChild);
    for (const name of ['id', 'class']) if (same.hasAttribute(name)) h1.setAttribute(name, same.getAttribute(name)!);
    same.remove();
  } else h1.textContent = headline;
  root.prepend(h1);
}

/**
 * --explain's line on the headline: where it came from and what the content opens with, or why there is
 * none (a page without a title whose h1s are hidden, the site's name, or absent).
 */
export function headlineNote(root: Element, headline: string, doc: Document): string {
  const opening = openingHeading(root);
  const shown = opening?.tagName === 'H1' ? normalText(opening) : '';
  if (!wordsOf(headline)) {
    const h1s = doc.querySelectorAll('h1').length;
    const why = h1s === 0 ? 'the page has no h1' : `none of its ${h1s} h1${h1s === 1 ? '' : 's'} is visible and named by the title`;
    return `no headline found: the page's <title> is empty${doc.title.trim() ? ' once the site name is left out' : ''} and ${why}${shown ? `; the content opens with its own h1 "${shown}"` : ''}`;
  }
  if (shown && wordsOf(shown) !== wordsOf(headline)) return `the content opens with its own h1 "${shown}", kept; the page's headline reads "${headline}"`;
  const fromH1 = Array.from(doc.querySelectorAll('h1')).some((h1) => normalText(h1) === headline);
  return `the content opens with the headline "${headline}", ${fromH1 ? 'the visible h1 the title names' : "the title without the site's name (no visible h1 it names)"}`;
}
