/**
 * When `--engine auto` renders a page in Chromium instead of reading the HTML as
 * served. The rules (docs/engines.md), each with the reason it gives:
 *
 * Before fetching, from the options alone:
 * - `waitFor` above 0, or a `waitUntil` other than the default `load`: the user
 *   asks to wait for what scripts do; the `screenshot` format.
 *
 * After fetching, from the response and the HTML (signals.ts):
 * - a bot challenge or CAPTCHA wall (Cloudflare, DataDome, PerimeterX, Imperva,
 *   Akamai, a reCAPTCHA/hCaptcha/Turnstile widget on a page with little text);
 * - an XML document (Chromium shows it as a document of its own), or one that is
 *   not a web page at all (a PDF: the browser engine reads those);
 * and, on a page that runs scripts (a page without any renders to the HTML it was
 * served, so Chromium would find the same):
 * - an application shell: an empty mount point (`#root`, `#app`, `#__next`...) or
 *   a `<noscript>` asking for JavaScript, on a page with under 1,000 characters of text;
 * - almost no text: under 250 characters in the whole body;
 * - short content: the extracted content under 250 characters while the page's
 *   text is four times that or more;
 * - includeTags matching nothing in the HTML as served.
 */
import type { PageOptions } from '../pageOptions.js';
import type { PageSignals } from './signals.js';
import type { HttpPage } from './fetchPage.js';

const SHELL_MAX_TEXT = 1000;
const LITTLE_TEXT = 250;
const SHORT_CONTENT = 250;

/** Why the options alone need a browser, or undefined. */
export function optionsNeedBrowser(options: Pick<PageOptions, 'waitFor' | 'waitUntil'> & { formats?: PageOptions['formats']; actions?: PageOptions['actions']; profile?: unknown }): string | undefined {
  if (options.actions && options.actions.length > 0) return 'page actions are run in a browser';
  if (options.profile !== undefined) return "a profile is a browser's cookies and local storage";
  if (options.formats?.includes('screenshot')) return 'the screenshot format is taken in a browser';
  if (options.waitFor > 0) return `waitFor ${options.waitFor} ms waits for the page's scripts`;
  if (options.waitUntil !== 'load') return `waitUntil ${options.waitUntil} waits for the page's scripts`;
  return undefined;
}

/** Why a page served with this media type needs a browser to be read, or undefined. */
export function mediaNeedsBrowser(mediaType: string): string | undefined {
  return /(^|[/+])xml$/.test(mediaType) && mediaType !== 'application/xhtml+xml' ? `an XML document (${mediaType})` : undefined;
}

/** Characters of text in the extracted content (Markdown or HTML), link targets and markup aside. */
export function contentLength(markdownOrHtml: string): number {
  return markdownOrHtml
    .replace(/<[^>]*>/g, ' ')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/[\s#*_>|`[\]-]+/g, ' ')
    .trim().length;
}

/**
 * Why the page as fetched needs a browser, or undefined when its HTML is enough. `contentLength`:
 * contentLength of the Markdown when it is asked, else of the HTML (the extraction worker counts it).
 */
export function pageNeedsBrowser(
  page: Pick<HttpPage, 'status'>,
  extraction: { signals: PageSignals; contentLength: number },
  options: Pick<PageOptions, 'formats'>,
): string | undefined {
  const { signals } = extraction;
  if (signals.challenge) return `the response looks like ${signals.challenge} (HTTP ${page.status})`;
  if (signals.scripts === 0) return undefined;
  if (signals.textLength < SHELL_MAX_TEXT && signals.emptyMount) return `an application shell: ${signals.emptyMount} is empty until scripts fill it`;
  if (signals.textLength < SHELL_MAX_TEXT && signals.asksForJavaScript) return 'an application shell: the page asks for JavaScript';
  if (signals.textLength < LITTLE_TEXT) return `almost no text without scripts (${signals.textLength} characters)`;
  if (signals.includeTagsMatched === false) return 'includeTags matched nothing in the HTML as served';
  const wantsContent = options.formats.includes('markdown') || options.formats.includes('html');
  const content = extraction.contentLength;
  if (wantsContent && content < SHORT_CONTENT && signals.textLength >= 4 * Math.max(content, 50)) {
    return `short content: ${content} characters of the page's ${signals.textLength}`;
  }
  return undefined;
}
