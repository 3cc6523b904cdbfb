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
import { Budget, newItem } from './bounds.js';
import { absoluteUrl, addValue, baseOf, isSchemaOrg, plainText, SCHEMA_ORG_CONTEXT, schemaOrgTerm, type StructuredItem } from './types.js';

const SRC = new Set(['AUDIO', 'EMBED', 'IFRAME', 'IMG', 'SOURCE', 'TRACK', 'VIDEO']);
const HREF = new Set(['A', 'AREA', 'LINK']);

const tokens = (value: string | null): string[] => (value ?? '').split(/\s+/).filter(Boolean);

/** An item to fill: its element, the items it sits in (an itemref back up one of them is not followed), its depth. */
interface Frame {
  root: Element;
  item: StructuredItem;
  outer?: Frame;
  depth: number;
}

/**
 * The page's top-level items within `budget` (bounds.ts): items nested past the depth bound are left
 * out, and each element walked counts, each time an itemref brings it in again (a fan-out spends the
 * budget instead of the time). Filled from a stack of frames, not by recursion.
 */
export function microdataOf(doc: Document, pageUrl: string, budget = new Budget()): StructuredItem[] {
  const reader = new ItemReader(doc, baseOf(doc, pageUrl), budget);
  const roots = Array.from(doc.querySelectorAll('[itemscope]')).filter((el) => !el.hasAttribute('itemprop'));
  const top = roots.map((root) => reader.newItem(root, true));
  const pending: Frame[] = top.map((item, i) => ({ root: roots[i]!, item, depth: 1 })).reverse();
  while (pending.length > 0 && !budget.spent) pending.push(...reader.fill(pending.pop()!).reverse());
  return top;
}

class ItemReader {
  /** Elements by id, the first of each id as getElementById finds it: linkedom's walks the whole document on each call. */
  private ids: Map<string, Element> | undefined;

  constructor(
    private readonly doc: Document,
    private readonly base: string,
    private readonly budget: Budget,
  ) {}

  newItem(root: Element, topLevel: boolean): StructuredItem {
    const item = newItem();
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
    return item;
  }

  /** Puts the properties of `frame`'s element into its item; returns the frames of the items nested in it, in order. */
  fill(frame: Frame): Frame[] {
    const nested: Frame[] = [];
    for (const el of this.properties(frame.root)) {
      let value: unknown;
      if (el.hasAttribute('itemscope')) {
        // An item inside itself (itemref), or nested deeper than the bound, is not read.
        if (insideItself(frame, el) || this.budget.tooDeep(frame.depth + 1)) continue;
        value = this.newItem(el, false);
        nested.push({ root: el, item: value as StructuredItem, outer: frame, depth: frame.depth + 1 });
      } else {
        value = this.value(el);
      }
      for (const name of tokens(el.getAttribute('itemprop'))) addValue(frame.item, schemaOrgTerm(name), value);
    }
    return nested;
  }

  /** The elements that give `root` properties, in tree order: its subtree down to nested items, and what itemref names. */
  private properties(root: Element): Element[] {
    const found: Element[] = [];
    const seen = new Set<Element>([root]);
    // A stack, the next element on top: the subtree in tree order, then what itemref names.
    const referenced = tokens(root.getAttribute('itemref')).flatMap((id) => this.byId(id) ?? []);
    const pending: Element[] = [...referenced.reverse(), ...Array.from(root.children).reverse()];
    while (pending.length > 0) {
      const el = pending.pop()!;
      if (seen.has(el)) continue;
      seen.add(el);
      if (!this.budget.take()) break;
      if (el.hasAttribute('itemprop')) found.push(el);
      if (!el.hasAttribute('itemscope')) pending.push(...Array.from(el.children).reverse());
    }
    return found;
  }

  private byId(id: string): Element | undefined {
    if (!this.ids) {
      this.ids = new Map();
      for (const el of Array.from(this.doc.querySelectorAll('[id]'))) if (!this.ids.has(el.id)) this.ids.set(el.id, el);
    }
    return this.ids.get(id);
  }

  private value(el: Element): unknown {
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

/** Whether `el` is the element of `frame` or of an item around it (at most MAX_DEPTH of them). */
function insideItself(frame: Frame, el: Element): boolean {
  for (let at: Frame | undefined = frame; at; at = at.outer) if (at.root === el) return true;
  return false;
}
