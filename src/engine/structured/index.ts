/**
 * The `structuredData` format: a page's schema.org data as one list of JSON-LD
 * items, its JSON-LD blocks as written first, then its microdata and its RDFa
 * converted to JSON-LD, in page order within each. Pure functions of a DOM
 * Document (linkedom in Node, the browser's own in a test): the engines call them
 * on the page's final HTML in a worker thread (http/extractWorker.ts).
 */
import type { PageData } from '../../api/types.js';
import { Budget } from './bounds.js';
import { jsonLdOf } from './jsonLd.js';
import { microdataOf } from './microdata.js';
import { rdfaOf } from './rdfa.js';
import type { StructuredItem } from './types.js';

export type { StructuredItem } from './types.js';

export interface StructuredRead {
  items: StructuredItem[];
  /** What the page holds that could not be read (a JSON-LD block that is not JSON). */
  warning?: string;
}

/** Markup any of the three readers looks for: a page without it is not parsed. */
const MARKERS = /application\/ld\+json|itemscope|typeof\s*=/i;

export const mayHoldStructuredData = (html: string): boolean => MARKERS.test(html);

export function structuredDataOf(doc: Document, pageUrl: string): StructuredRead {
  // One budget for the three readers (bounds.ts): a page gets so much structured data, however it writes it.
  const budget = new Budget();
  const jsonLd = jsonLdOf(doc, budget);
  const items = [...jsonLd.items, ...microdataOf(doc, pageUrl, budget), ...rdfaOf(doc, pageUrl, budget)];
  const blocks = jsonLd.invalid === 1 ? 'a JSON-LD block' : `${jsonLd.invalid} JSON-LD blocks`;
  const invalid = jsonLd.invalid === 0 ? '' : `${blocks} of the page ${jsonLd.invalid === 1 ? 'is' : 'are'} not valid JSON and ${jsonLd.invalid === 1 ? 'was' : 'were'} left out of structuredData`;
  const warning = [invalid, budget.warning()].filter(Boolean).join('; ');
  return warning === '' ? { items } : { items, warning };
}

/** Puts what was read into the page's data: its items, and a warning beside any other. */
export function addStructuredData(data: PageData, read: StructuredRead | undefined): void {
  data.structuredData = read?.items ?? [];
  if (read?.warning) data.metadata.warning = [data.metadata.warning, read.warning].filter(Boolean).join('; ');
}
