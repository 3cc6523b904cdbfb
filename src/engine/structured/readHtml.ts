/**
 * What is read from a page's final HTML besides its content, on a DOM of its
 * own (linkedom): its schema.org data (the structuredData format) and the items
 * of a CSS schema (extract --selectors). CPU-bound: run in the HTTP engine's
 * worker threads (http/extractPool.ts), for the pages of both engines.
 */
import { parseHTML } from 'linkedom';
import type { CssSchema } from '../../api/cssSchema.js';
import { selectItems } from './cssExtract.js';
import { mayHoldStructuredData, structuredDataOf, type StructuredRead } from './index.js';

export interface HtmlReads {
  structuredData?: boolean;
  selectors?: CssSchema;
}

/**
 * What a scrape returns beyond the API's PageData when a job's own code asks for
 * it (never stored, never answered as is): the items of extract --selectors.
 */
export interface SelectedItems {
  selected?: Record<string, unknown>[];
}

export interface HtmlReadResult {
  structuredData?: StructuredRead;
  items?: Record<string, unknown>[];
}

/** A fragment (the html format's body) is read as the body of a document. */
function asDocument(html: string): string {
  return /^\s*(<!doctype|<html|<\?xml)/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
}

export function readHtml(html: string, url: string, reads: HtmlReads): HtmlReadResult {
  const out: HtmlReadResult = {};
  const needsDom = reads.selectors !== undefined || (reads.structuredData === true && mayHoldStructuredData(html));
  if (reads.structuredData) out.structuredData = { items: [] };
  if (!needsDom) return out;
  const { document } = parseHTML(asDocument(html));
  if (reads.structuredData) out.structuredData = structuredDataSafely(document as unknown as Document, url);
  if (reads.selectors) out.items = selectItems(document as unknown as Document, reads.selectors);
  return out;
}

/** The page's structured data, or a warning of why it could not be read: the page's content never depends on it. */
function structuredDataSafely(doc: Document, url: string): StructuredRead {
  try {
    return structuredDataOf(doc, url);
  } catch (err) {
    return { items: [], warning: `the page's structured data could not be read (${(err as Error)?.message || String(err)}) and was left out of structuredData` };
  }
}
