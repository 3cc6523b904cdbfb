/**
 * What both engines (the browser's scrape.ts and http/) share about one page's
 * scrape: its options with the defaults filled, the content types read as a
 * document, and the page an HTTP error with an empty body gives.
 */
import { LIMITS } from '../api/limits.js';
import type { PageData, ScrapeOptions } from '../api/types.js';

/** The options of one page's scrape, defaults filled; headers, cookies and user-agent travel as the job's SiteAccess. */
export type PageOptions = Required<Omit<ScrapeOptions, 'headers' | 'cookies' | 'userAgent' | 'maxAge' | 'changeTrackingOptions' | 'jsonOptions' | 'chunkTokens' | 'maxTokens' | 'profile'>>;

/** Content types Chromium renders as a document we can read. */
export const RENDERABLE = /^(text\/|application\/(xhtml\+xml|xml|json|ld\+json|rss\+xml|atom\+xml))/i;

/** Fills the defaults the validator would; the engine can be called directly too. */
export function withDefaults(options: ScrapeOptions = {}): PageOptions {
  return {
    formats: options.formats ?? ['markdown'],
    onlyMainContent: options.onlyMainContent ?? true,
    explain: options.explain ?? false,
    timeout: options.timeout ?? LIMITS.defaultTimeoutMs,
    waitFor: options.waitFor ?? 0,
    waitUntil: options.waitUntil ?? 'load',
    includeTags: options.includeTags ?? [],
    excludeTags: options.excludeTags ?? [],
    engine: options.engine ?? 'auto',
    actions: options.actions ?? [],
    screenshotOptions: { fullPage: false, format: 'png', ...options.screenshotOptions },
  };
}

/** A page whose server answered an HTTP error with an empty body: its status code and nothing to read (both engines). */
export function emptyPage(sourceURL: string, url: string, status: number, formats: PageOptions['formats']): PageData {
  const data: PageData = {
    metadata: {
      url,
      sourceURL,
      statusCode: String(status),
      warning: `the server answered HTTP ${status} with an empty body`,
    },
  };
  if (formats.includes('markdown')) data.markdown = '';
  if (formats.includes('html')) data.html = '';
  if (formats.includes('links')) data.links = [];
  if (formats.includes('rawHtml')) data.rawHtml = '';
  if (formats.includes('structuredData')) data.structuredData = [];
  return data;
}
