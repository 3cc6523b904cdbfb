/**
 * A scrape over plain HTTP: fetch the page (fetchPage.ts), read it in a worker
 * with the browser's own extraction (extractPool.ts), and build the same
 * PageData the browser engine does. The page's bytes go to the worker undecoded
 * (servedDocument.ts); this thread decodes them only for the rawHtml format. The
 * result keeps the reason, if any, why the page needs a browser (choice.ts): the
 * caller decides what to do with it.
 */
import { PageError } from '../../api/errors.js';
import type { PageData } from '../../api/types.js';
import type { SiteAccess } from '../net/access.js';
import type { InPageOptions } from '../content/inPage.js';
import { BAD_USER_SELECTOR } from '../content/inPage/cleanup.js';
import { addStructuredData } from '../structured/index.js';
import type { HtmlReadResult, SelectedItems } from '../structured/readHtml.js';
import type { CssSchema } from '../../api/cssSchema.js';
import type { PlainFetch } from '../crawl/fetchText.js';
import { emptyPage, RENDERABLE, type PageOptions } from '../pageOptions.js';
import { userAgentHeader } from '../userAgent.js';
import { mediaNeedsBrowser, pageNeedsBrowser } from './choice.js';
import type { ExtractPool, PoolExtraction } from './extractPool.js';
import { decodedText, fetchPage, MAX_HTML_BYTES, type HttpPage } from './fetchPage.js';
import { documentHtml, type ServedDocument } from './servedDocument.js';
import { conditionalHeaders, validatorsOf, type Revalidation, type RevalidationResult } from '../validators.js';
import { isPdf, PDF, pdfPageData } from '../pdfPage.js';

export interface HttpScrape {
  /** What the engine returns for the page when it is read over HTTP. */
  data: PageData & SelectedItems & RevalidationResult;
  /** Why the page needs a browser, when it seems to (auto renders it then; http returns `data` with a warning). */
  needsBrowser?: string;
}

/** Time left for reading a page after its fetch: at least this, so that a slow server does not starve the extraction. */
const MIN_EXTRACT_MS = 5_000;

/**
 * The document for the worker to read, and the rawHtml format's text when asked. Plain text and JSON are
 * read as Chromium shows them (servedDocument.ts). Without rawHtml the bytes go undecoded, and are moved.
 */
function documentOf(page: HttpPage, wantText: boolean): { html: string | ServedDocument; rawHtml?: string } {
  const plainText = page.mediaType !== '' && !/html/.test(page.mediaType);
  if (!wantText) return { html: { bytes: page.body, encoding: page.encoding, plainText } };
  const rawHtml = decodedText(page);
  return { html: documentHtml(rawHtml, plainText), rawHtml };
}

function inPageOptions(options: PageOptions): InPageOptions {
  return {
    onlyMainContent: options.onlyMainContent,
    includeTags: options.includeTags,
    excludeTags: options.excludeTags,
    wantHtml: options.formats.includes('html'),
    wantMarkdown: options.formats.includes('markdown'),
    wantLinks: options.formats.includes('links'),
    explain: options.explain,
  };
}

function pageData(page: HttpPage, extraction: PoolExtraction & { reads?: HtmlReadResult }, rawHtml: string | undefined, options: PageOptions): PageData {
  const { result } = extraction;
  const data: PageData = {
    metadata: { ...result.metadata, url: page.url, sourceURL: page.sourceURL, statusCode: String(page.status), scrapedAt: new Date().toISOString(), engine: 'http' },
  };
  if (result.warning) data.metadata.warning = result.warning;
  if (result.explain !== undefined) data.metadata.explain = result.explain;
  if (options.formats.includes('markdown')) data.markdown = result.markdown;
  if (options.formats.includes('html')) data.html = result.html;
  if (options.formats.includes('links')) data.links = result.links;
  if (rawHtml !== undefined) data.rawHtml = rawHtml;
  if (options.formats.includes('structuredData')) addStructuredData(data, extraction.reads?.structuredData);
  return data;
}

function selectedOf(extraction: { reads?: HtmlReadResult }, selectors: CssSchema | undefined): SelectedItems {
  return selectors ? { selected: extraction.reads?.items ?? [] } : {};
}

export async function scrapeOverHttp(
  fetcher: PlainFetch,
  pool: ExtractPool,
  url: string,
  options: PageOptions,
  context: { signal?: AbortSignal; access?: SiteAccess; selectors?: CssSchema; revalidate?: Revalidation; turn?: string },
): Promise<HttpScrape> {
  const deadline = Date.now() + options.timeout;
  const { revalidate } = context;
  const conditional = conditionalHeaders(revalidate?.validators);
  const revalidating = Object.keys(conditional).length > 0;
  // The extraction's workers start while the page loads; a page that may not need them (a 304) does not start them.
  if (!revalidating) pool.warm();
  const page = await fetchPage(fetcher, url, { timeoutMs: options.timeout, signal: context.signal, userAgent: userAgentHeader(context.access?.userAgent), conditional });
  // Not modified since the stored copy: nothing to read (the caller keeps its stored result).
  if (page.status === 304 && revalidating) {
    return { data: { metadata: { url: page.url, sourceURL: url, statusCode: '304', engine: 'http' }, notModified: true } };
  }
  if (page.status >= 400 && page.body.length === 0) {
    const data = emptyPage(url, page.url, page.status, options.formats);
    data.metadata.engine = 'http';
    return { data };
  }
  if (PDF.test(page.mediaType) && isPdf(page.body) && page.body.length < MAX_HTML_BYTES) {
    // A PDF document fetched whole is read here: the browser would only fetch it again (and render it in its viewer).
    const data = await pdfPageData(page.body, { sourceURL: url, url: page.url, status: page.status }, options, { deadline, signal: context.signal });
    data.metadata.engine = 'http';
    const validators = revalidate ? validatorsOf(page.headers, page.status) : undefined;
    return { data: validators ? { ...data, validators } : data };
  }
  if (page.mediaType !== '' && !RENDERABLE.test(page.mediaType)) {
    // The browser engine reads what else is not a web page (PDF documents too large to be read here) or says it cannot.
    if (options.engine === 'auto') return { data: { metadata: {} }, needsBrowser: `not a web page (content type ${page.mediaType})` };
    throw new PageError(`${url} is not a web page (content type ${page.mediaType}); read it with --engine auto or browser`);
  }
  let extraction: PoolExtraction & { reads?: HtmlReadResult };
  const { html, rawHtml } = documentOf(page, options.formats.includes('rawHtml'));
  try {
    const structuredData = options.formats.includes('structuredData');
    const reads = structuredData || context.selectors ? { structuredData, ...(context.selectors ? { selectors: context.selectors } : {}) } : undefined;
    extraction = await pool.run(
      html,
      page.url,
      inPageOptions(options),
      { timeoutMs: Math.max(MIN_EXTRACT_MS, deadline - Date.now()), signal: context.signal, key: context.turn },
      reads,
    );
  } catch (err) {
    const badSelector = err instanceof PageError ? BAD_USER_SELECTOR.exec(err.message) : null;
    if (badSelector) throw new PageError(badSelector[0]);
    throw err;
  }
  const validators = revalidate ? validatorsOf(page.headers, page.status) : undefined;
  const data = { ...pageData(page, extraction, rawHtml, options), ...selectedOf(extraction, context.selectors), ...(validators ? { validators } : {}) };
  return { data, needsBrowser: mediaNeedsBrowser(page.mediaType) ?? pageNeedsBrowser(page, extraction, options) };
}
