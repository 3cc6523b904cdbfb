/**
 * RDFa Lite (W3C RDFa Lite 1.1: vocab, typeof, property, resource, prefix) as
 * JSON-LD. An element with `typeof` is an item; with `property` too, it is that
 * property's value on the item around it, else a top-level item. A `property`
 * without `typeof` is a value of the item around it: its `content`, else the URL
 * of its `href`, `src` or `resource`, else a `time`'s `datetime`, else its text.
 * Names in schema.org's vocabulary (by `vocab` or a prefix such as `schema:`) get
 * their short name, as in the page's JSON-LD; others keep their full URL.
 * Properties outside any item (Open Graph's `og:` tags) are not schema.org items
 * and are left out.
 */
import { Budget, newItem } from './bounds.js';
import { absoluteUrl, addValue, baseOf, isSchemaOrg, plainText, SCHEMA_ORG_CONTEXT, schemaOrgTerm, type StructuredItem } from './types.js';

/** Prefixes RDFa knows without a declaration (the RDFa initial context), those that matter here. */
const INITIAL_PREFIXES: Record<string, string> = { schema: 'http://schema.org/' };

const tokens = (value: string | null): string[] => (value ?? '').split(/\s+/).filter(Boolean);

interface Scope {
  vocab?: string;
  prefixes: Record<string, string>;
  item?: StructuredItem;
  /** Items open around this element (0 outside any). */
  depth: number;
  /** Inside an item nested past the depth bound: nothing here is read. */
  cut?: boolean;
}

/** The page's items within `budget` (bounds.ts): each element walked counts; items nested past the depth bound are left out. */
export function rdfaOf(doc: Document, pageUrl: string, budget = new Budget()): StructuredItem[] {
  const base = baseOf(doc, pageUrl);
  const top: StructuredItem[] = [];
  const root = doc.documentElement;
  if (!root) return top;
  walk(root, { prefixes: INITIAL_PREFIXES, depth: 0 }, base, top, budget);
  return top;
}

function withPrefixes(scope: Scope, el: Element): Record<string, string> {
  const declared = el.getAttribute('prefix');
  if (!declared) return scope.prefixes;
  const prefixes = { ...scope.prefixes };
  for (const match of declared.matchAll(/([A-Za-z_][\w.-]*):\s+(\S+)/g)) prefixes[match[1]!.toLowerCase()] = match[2]!;
  return prefixes;
}

/** A term as an IRI: prefixed (`schema:name`), absolute, or in the vocabulary. */
function expand(term: string, scope: Scope): string {
  const colon = term.indexOf(':');
  if (colon > 0) {
    const prefix = scope.prefixes[term.slice(0, colon).toLowerCase()];
    if (prefix) return prefix + term.slice(colon + 1);
    return term;
  }
  return scope.vocab ? scope.vocab + term : term;
}

function literal(el: Element, base: string): string {
  const content = el.getAttribute('content');
  if (content !== null) return content;
  for (const name of ['href', 'src', 'resource']) {
    const value = el.getAttribute(name);
    if (value !== null) return absoluteUrl(value, base);
  }
  if (el.tagName.toUpperCase() === 'TIME' && el.hasAttribute('datetime')) return el.getAttribute('datetime')!;
  return plainText(el.textContent);
}

/** Every element in tree order with the scope it opens, without recursion (a page may nest thousands deep). */
function walk(root: Element, rootScope: Scope, base: string, top: StructuredItem[], budget: Budget): void {
  const stack: [Element, Scope][] = [[root, rootScope]];
  while (stack.length > 0 && budget.take()) {
    const [el, outer] = stack.pop()!;
    if (outer.cut) continue;
    const scope = visit(el, outer, base, top, budget);
    const children = Array.from(el.children);
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, scope]);
  }
}

/** What `el` adds (an item, a value) to the item around it; returns the scope of its children. */
function visit(el: Element, outer: Scope, base: string, top: StructuredItem[], budget: Budget): Scope {
  const vocabAttr = el.getAttribute('vocab');
  const scope: Scope = {
    vocab: vocabAttr !== null ? vocabAttr.trim() || undefined : outer.vocab,
    prefixes: withPrefixes(outer, el),
    item: outer.item,
    depth: outer.depth,
  };
  const properties = tokens(el.getAttribute('property')).map((term) => schemaOrgTerm(expand(term, scope)));
  if (el.hasAttribute('typeof')) {
    const nested = properties.length > 0 && outer.item !== undefined;
    if (nested && budget.tooDeep(outer.depth + 1)) return { ...scope, cut: true };
    const item = newItem();
    if (!nested) item['@context'] = contextOf(scope);
    const types = tokens(el.getAttribute('typeof')).map((term) => schemaOrgTerm(expand(term, scope)));
    if (types.length > 0) item['@type'] = types.length === 1 ? types[0] : types;
    const id = el.getAttribute('resource') ?? el.getAttribute('about');
    if (id !== null) item['@id'] = absoluteUrl(id, base);
    if (nested) for (const name of properties) addValue(outer.item!, name, item);
    else top.push(item);
    scope.item = item;
    scope.depth = nested ? outer.depth + 1 : 1;
  } else if (properties.length > 0 && scope.item) {
    const value = literal(el, base);
    for (const name of properties) addValue(scope.item, name, value);
  }
  return scope;
}

function contextOf(scope: Scope): unknown {
  const vocab = scope.vocab;
  return vocab === undefined || isSchemaOrg(vocab) ? SCHEMA_ORG_CONTEXT : { '@vocab': vocab };
}
