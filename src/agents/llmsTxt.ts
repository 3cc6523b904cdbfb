/**
 * llms.txt (llmstxt.org) from a site's crawled pages, without a model:
 *
 *   # {site title}
 *
 *   > {one-line summary: the home page's description}
 *
 *   ## {section: the first path segment}
 *
 *   - [{title}]({url}): {its meta description, or its first sentence}
 *
 * llms-full.txt (`full`) is the same head, then every page's Markdown under its title and URL.
 */

import type { PageEntry } from '../api/types.js';

/** Pages an llms.txt is made from when no number is given (webjobs llmstxt; Firecrawl's maxUrls). */
export const LLMSTXT_DEFAULT_PAGES = 100;
/**
 * The most pages llmstxt crawls: its sections group pages from the whole site, so every page is held in
 * memory until the file is written (llms-full.txt: their Markdown too). A crawl alone may go to
 * LIMITS.maxLocalCrawlPages, which streams.
 */
export const LLMSTXT_MAX_PAGES = 10_000;

/** What llms.txt reads of a crawled page. */
export interface SitePage {
  url: string;
  title: string;
  description: string;
  markdown: string;
  /** og:site_name, when the page has one. */
  siteName?: string;
}

/** A line of text on one line, Markdown's link brackets left alone. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The first sentence of a page's text: its first paragraph that is prose, cut after its first full stop. */
export function firstSentence(markdown: string): string {
  for (const block of markdown.split(/\n\s*\n/)) {
    const text = block.trim();
    if (!text || /^(#|```|~~~|\||>|[-*+] |\d+[.)] |!\[|<)/.test(text)) continue;
    const plain = oneLine(text.replace(/!\[[^\]]*\]\([^)]*\)/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*_`]/g, ''));
    if (plain.length < 20) continue;
    const end = /[.!?](?=\s|$)/.exec(plain);
    const sentence = end ? plain.slice(0, end.index + 1) : plain;
    return sentence.length > 300 ? `${sentence.slice(0, 297).trimEnd()}…` : sentence;
  }
  return '';
}

/** "docs" for /docs/intro, "" for the home page; a page's section. */
function sectionOf(url: string): string {
  try {
    const segment = new URL(url).pathname.split('/').find((part) => part !== '') ?? '';
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

/** "Getting started" for getting-started. */
function sectionTitle(segment: string): string {
  const words = segment.replace(/\.[a-z0-9]+$/i, '').replace(/[-_]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'Pages';
}

/** The site's title: its og:site_name, else the home page's title without a " | tagline" after it. */
function siteTitle(home: SitePage): string {
  if (home.siteName) return oneLine(home.siteName);
  const title = oneLine(home.title);
  return title.split(/\s+[|–—-]\s+/)[0] || title || new URL(home.url).host;
}

const escapeLinkText = (text: string) => text.replace(/([[\]])/g, '\\$1');

function head(home: SitePage): string {
  const summary = oneLine(home.description) || firstSentence(home.markdown);
  return `# ${siteTitle(home)}\n${summary ? `\n> ${summary}\n` : ''}`;
}

/**
 * llms.txt of a site whose start page is `pages[0]`; the other pages in the order given (a crawl's), grouped by
 * section in the order sections first appear. The home page is the head, not a link.
 */
export function llmsTxt(pages: SitePage[]): string {
  const [home, ...rest] = pages;
  if (!home) return '';
  const sections = new Map<string, string[]>();
  for (const page of rest) {
    const section = sectionOf(page.url);
    const title = oneLine(page.title) || page.url;
    const about = oneLine(page.description) || firstSentence(page.markdown);
    const line = `- [${escapeLinkText(title)}](${page.url})${about ? `: ${about}` : ''}`;
    sections.set(section, [...(sections.get(section) ?? []), line]);
  }
  const body = [...sections].map(([section, lines]) => `## ${sectionTitle(section)}\n\n${lines.join('\n')}\n`);
  return [head(home), ...body].join('\n');
}

/** llms-full.txt: the head, then each page's Markdown under its title and URL. */
export function llmsFullTxt(pages: SitePage[]): string {
  const [home] = pages;
  if (!home) return '';
  const body = pages.map((page) => `## ${oneLine(page.title) || page.url}\n\nSource: ${page.url}\n\n${page.markdown.trim()}\n`);
  return [head(home), ...body].join('\n');
}

/** The pages of a crawl that worked (no HTTP error), as llms.txt reads them; the start page first. */
export function sitePages(entries: PageEntry[], start: string): SitePage[] {
  const worked = entries.filter((entry) => entry.status === 'completed' && !(Number(entry.metadata?.statusCode) >= 400));
  const home = worked.findIndex((entry) => entry.url === start || entry.metadata?.sourceURL === start);
  if (home > 0) worked.unshift(...worked.splice(home, 1));
  return worked.map((entry) => ({
    url: entry.metadata?.url || entry.url,
    title: entry.metadata?.title ?? '',
    description: entry.metadata?.description ?? '',
    markdown: entry.markdown ?? '',
  }));
}
