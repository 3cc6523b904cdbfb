/**
 * `extract --selectors`: the items of a Crawl4AI JSON CSS schema (api/cssSchema.ts)
 * read from a DOM Document, with no model. One object per element the base
 * selector matches; a field whose selector matches nothing is left out (or takes
 * its `default`), and an item with no field at all is dropped, as Crawl4AI does.
 * Text is the element's text with whitespace runs as one space (Crawl4AI's
 * BeautifulSoup joins text pieces without a space instead).
 */
import type { CssField, CssSchema } from '../../api/cssSchema.js';
import { plainText } from './types.js';
import { thousands } from '../../api/thousands.js';

type Item = Record<string, unknown>;

/**
 * Characters of text the items of one page may hold. A schema can repeat the page
 * many times over (`html` of every element of `*`): it fails the page, saying so,
 * instead of filling the worker's memory.
 */
export const MAX_SELECTED_CHARS = 20_000_000;

/** Characters taken so far from one page. */
interface Budget {
  chars: number;
}

export function selectItems(doc: Document, schema: CssSchema): Item[] {
  const items: Item[] = [];
  const budget: Budget = { chars: 0 };
  for (const element of Array.from(doc.querySelectorAll(schema.baseSelector))) {
    const item = { ...itemOf(element, schema.baseFields ?? [], budget), ...itemOf(element, schema.fields, budget) };
    if (Object.keys(item).length > 0) items.push(item);
  }
  return items;
}

function itemOf(element: Element, fields: CssField[], budget: Budget): Item {
  const item: Item = {};
  for (const field of fields) {
    const value = fieldValue(element, field, budget);
    if (value !== undefined) item[field.name] = value;
  }
  return item;
}

function matches(element: Element, selector: string | undefined): Element[] {
  return selector === undefined ? [element] : Array.from(element.querySelectorAll(selector));
}

/** The first match: querySelector stops there (on linkedom ~25 times faster than taking the first of querySelectorAll). */
function firstMatch(element: Element, selector: string | undefined): Element | null {
  return selector === undefined ? element : element.querySelector(selector);
}

function fieldValue(element: Element, field: CssField, budget: Budget): unknown {
  if (field.type === 'list' || field.type === 'nested_list') {
    return matches(element, field.selector)
      .map((el) => itemOf(el, field.fields!, budget))
      .filter((item) => Object.keys(item).length > 0);
  }
  const first = firstMatch(element, field.selector);
  if (!first) return field.default;
  if (field.type === 'nested') return itemOf(first, field.fields!, budget);
  const raw = field.type === 'attribute' ? first.getAttribute(field.attribute!) : field.type === 'html' ? first.outerHTML : plainText(first.textContent);
  if (raw === null) return field.default;
  budget.chars += raw.length;
  if (budget.chars > MAX_SELECTED_CHARS) {
    throw new Error(`the selectors' items hold more than ${thousands(MAX_SELECTED_CHARS)} characters of this page; narrow them (field "${field.name}")`);
  }
  return transformed(raw, field.transform);
}

function transformed(value: string, transform: CssField['transform']): string {
  if (transform === 'lowercase') return value.toLowerCase();
  if (transform === 'uppercase') return value.toUpperCase();
  if (transform === 'strip') return value.trim();
  return value;
}
