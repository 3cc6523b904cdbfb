/**
 * JSON-LD blocks of a page (`<script type="application/ld+json">`), as written:
 * each block's top-level object, or each element of a block that is an array,
 * with `@graph` and `@context` kept as the page has them. A block that is not
 * JSON is left out and counted, so the caller can say so.
 */
import { boundedCopy, Budget } from './bounds.js';
import type { StructuredItem } from './types.js';

const JSON_LD = /^application\/ld\+json$/i;

/** Wrappers some sites put around the JSON: an HTML comment, a CDATA section. */
function unwrap(text: string): string {
  return text
    .trim()
    .replace(/^<!--/, '')
    .replace(/-->$/, '')
    .replace(/^\/\/\s*<!\[CDATA\[/, '')
    .replace(/^<!\[CDATA\[/, '')
    .replace(/(\/\/\s*)?\]\]>$/, '')
    .trim();
}

export interface JsonLdRead {
  items: StructuredItem[];
  /** Blocks that are not JSON (left out). */
  invalid: number;
}

/** The blocks within `budget` (bounds.ts): a block nested past the depth bound keeps what lies above it. */
export function jsonLdOf(doc: Document, budget = new Budget()): JsonLdRead {
  const items: StructuredItem[] = [];
  let invalid = 0;
  for (const script of Array.from(doc.querySelectorAll('script[type]'))) {
    const type = (script.getAttribute('type') ?? '').split(';')[0]!.trim();
    if (!JSON_LD.test(type)) continue;
    const text = unwrap(script.textContent ?? '');
    if (text === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      invalid++;
      continue;
    }
    // Copied into null-prototype items within the budget: JSON.parse itself walks without recursion.
    const copy = boundedCopy(value, budget);
    for (const item of Array.isArray(copy) ? copy : [copy]) {
      if (typeof item === 'object' && item !== null && !Array.isArray(item)) items.push(item as StructuredItem);
    }
    if (budget.spent) break;
  }
  return { items, invalid };
}
