/**
 * Microdata (WHATWG HTML, "Microdata") as JSON-LD: each top-level item (an
 * element with `itemscope` and no `itemprop`) becomes one object with `@context`,
 * `@type` (from `itemtype`, schema.org's types by their short name), `@id` (from
 * `itemid`) and its properties. A property that is an item itself (`itemscope`
 * inside `itemscope`) is nested; `itemref` adds the properties of the elements it
 * names. Values follow the spec: `meta` its `content`; `a`, `area`, `link` their
 * `href`; `img`, `audio`, `video`, `source`, `track`, `embed`, `iframe` their
 * `src`; `object` its `data`; `data`, `meter` their `value`; `time` its
 * `datetime`; any other element its text. A `content` attribute on any element
 * wins (schema.org's own examples put the machine value there, e.g.
 * `<span itemprop="price" content="19.99">$19.99</span>`). URLs are absolute.
 */
import { absoluteUrl, addValue, baseOf, isSchemaOrg, plainText, SCHEMA_ORG_CONTEXT, schemaOrgTerm, type StructuredItem } from './types.js';

const SRC = new Set(['AUDIO', 'EMBED', 'IFRAME', 'IMG', 'SOURCE', 'TRACK', 'VIDEO']);
const HREF = new Set(['A', 'AREA', 'LINK']);

const tokens = (value: string | null): string[] => (value ?? '').split(/\s+/).filter(Boolean);
/** Items nested deeper than this are left out (each level is a call: a hostile page must not end the stack). */
const MAX_NESTING = 64;

export function microdataOf(doc: Document, pageUrl: string): StructuredItem[] {
  const base = baseOf(doc, pageUrl);
  const reader = new ItemReader(doc, base);
  return Array.from(doc.querySelectorAll('[itemscope]'))
    .filter((el) => !el.hasAttribute('itemprop'))
    .map((el) => reader.item(el, true));
}

class ItemReader {
  /** Items being read, so that an itemref that points back up does not loop. */
  private readonly reading = new Set<Element>();

  constructor(
    private readonly doc: Document,
    private readonly base: string,
  ) {}

  item(root: Element, topLevel: boolean): StructuredItem {
    const item: StructuredItem = {};
    const types = tokens(root.getAttribute('itemtype'));
    const vocabulary = types[0];
    if (topLevel) {
      if (vocabulary === undefined || isSchemaOrg(vocabulary)) item['@context'] = SCHEMA_ORG_CONTEXT;
      else item['@context'] = { '@vocab': vocabulary.replace(/[^/#]*$/, '') };
    }
    if (types.length > 0) {
      const names = types.map(schemaOrgTerm);
      item['@type'] = names.length === 1 ? names[0] : names;
    }
    const id = root.getAttribute('itemid');
    if (id) item['@id'] = absoluteUrl(id, this.base);
    this.reading.add(root);
    try {
      for (const el of this.properties(root)) {
        const value = this.value(el);
        if (value === undefined) continue;
        for (const name of tokens(el.getAttribute('itemprop'))) addValue(item, schemaOrgTerm(name), value);
      }
    } finally {
      this.reading.delete(root);
    }
    return item;
  }

  /** The elements that give `root` properties, in tree order: its subtree down to nested items, and what itemref names. */
  private properties(root: Element): Element[] {
    const found: Element[] = [];
    const seen = new Set<Element>([root]);
    // A stack, the next element on top: the subtree in tree order, then what itemref names.
    const referenced = tokens(root.getAttribute('itemref')).flatMap((id) => this.doc.getElementById(id) ?? []);
    const pending: Element[] = [...referenced.reverse(), ...Array.from(root.children).reverse()];
    while (pending.length > 0) {
      const el = pending.pop()!;
      if (seen.has(el)) continue;
      seen.add(el);
      if (el.hasAttribute('itemprop')) found.push(el);
      if (!el.hasAttribute('itemscope')) pending.push(...Array.from(el.children).reverse());
    }
    return found;
  }

  private value(el: Element): unknown {
    // An item inside itself (itemref), or nested deeper than any real page does, is not read.
    if (el.hasAttribute('itemscope')) return this.reading.has(el) || this.reading.size >= MAX_NESTING ? undefined : this.item(el, false);
    const content = el.getAttribute('content');
    if (content !== null) return content;
    const tag = el.tagName.toUpperCase();
    const url = (name: string) => {
      const value = el.getAttribute(name);
      return value === null ? '' : absoluteUrl(value, this.base);
    };
    if (SRC.has(tag)) return url('src');
    if (HREF.has(tag)) return url('href');
    if (tag === 'OBJECT') return url('data');
    if (tag === 'DATA' || tag === 'METER') return el.getAttribute('value') ?? '';
    if (tag === 'TIME' && el.hasAttribute('datetime')) return el.getAttribute('datetime');
    return plainText(el.textContent);
  }
}
