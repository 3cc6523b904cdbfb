/**
 * `extract --schema` with no model configured: the schema is filled from the
 * pages' structured data (the structuredData format: JSON-LD, microdata, RDFa),
 * with no model and no guessing.
 *
 * - The item filled is the one (of all pages, `@graph` members included) that fills
 *   the most fields; for a schema that is an array, every item of that item's
 *   `@type` that fills at least one field.
 * - A property matches a key of the item by name, case-insensitively (`type` and
 *   `id` match `@type` and `@id`), and follows schema.org's nesting: a property
 *   whose schema is an object is filled from the nested item (`offers.price`).
 *   A property the item lacks is looked for in its nested items, nearest first
 *   (a flat `price` is found in `offers`).
 * - Values are converted to the schema's type: "49.00" to a number for a number,
 *   an item to its `name` (else `@id`, `url`) for a string, a list to its first
 *   value for a single one, a single value to a list for an array, a schema.org
 *   URL to its term for an enum that lists the term ("InStock").
 *
 * What could not be filled is listed by path (`offers.priceValidUntil`,
 * `reviews[].author`), and the caller says so: a half-filled record never passes
 * for a complete one.
 */
import type { JsonSchema } from './schema.js';

type Item = Record<string, unknown>;

export interface FilledRecord {
  /** The schema's fields that were found (undefined: nothing at all). */
  data: unknown;
  /** Paths of the schema's fields that were not found, in schema order. */
  missing: string[];
}

const isObject = (value: unknown): value is Item => typeof value === 'object' && value !== null && !Array.isArray(value);
/** How deep under an item a property it lacks is looked for. */
const SEARCH_DEPTH = 3;

/** Every item of the pages: each JSON-LD node, a `@graph`'s members instead of the graph. */
function candidatesOf(items: readonly Item[]): Item[] {
  return items.flatMap((item) => {
    const graph = item['@graph'];
    if (!Array.isArray(graph)) return [item];
    const members = graph.filter(isObject);
    return Object.keys(item).some((key) => key !== '@graph' && key !== '@context') ? [item, ...members] : members;
  });
}

export function fillFromStructured(schema: JsonSchema, items: readonly Item[]): FilledRecord {
  const candidates = candidatesOf(items);
  const kind = typeOf(schema);
  if (kind === 'array' && isObject(schema.items) && typeOf(schema.items as JsonSchema) === 'object') {
    const itemSchema = schema.items as JsonSchema;
    const scored = candidates.map((candidate) => ({ candidate, filled: fill(itemSchema, candidate, '[]') })).filter((s) => leaves(s.filled.data) > 0);
    if (scored.length === 0) return { data: undefined, missing: fill(itemSchema, {}, '[]').missing };
    const best = scored.reduce((a, b) => (leaves(b.filled.data) > leaves(a.filled.data) ? b : a));
    const same = scored.filter((s) => sameType(s.candidate, best.candidate));
    return { data: same.map((s) => s.filled.data), missing: [...new Set(same.flatMap((s) => s.filled.missing))] };
  }
  if (kind === 'object') {
    let best: FilledRecord = fill(schema, {}, '');
    for (const candidate of candidates) {
      const filled = fill(schema, candidate, '');
      if (leaves(filled.data) > leaves(best.data)) best = filled;
    }
    return best;
  }
  // Any other top level (a single string...): the first item that has it.
  for (const candidate of candidates) {
    const filled = fill(schema, candidate, '');
    if (filled.data !== undefined) return filled;
  }
  return { data: undefined, missing: [''] };
}

function sameType(a: Item, b: Item): boolean {
  return JSON.stringify(a['@type'] ?? null) === JSON.stringify(b['@type'] ?? null);
}

/** Values filled (leaves of the data): how good a fill is. */
function leaves(value: unknown): number {
  if (value === undefined) return 0;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + leaves(v), 0);
  if (isObject(value)) return Object.values(value).reduce((n: number, v) => n + leaves(v), 0);
  return 1;
}

function typeOf(schema: JsonSchema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null') as string | undefined;
  if (typeof type === 'string') return type;
  if (isObject(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

const join = (path: string, name: string) => (path === '' ? name : `${path}.${name}`);

/** `value` (part of an item) in the shape of `schema`, with what was not found. */
function fill(schema: JsonSchema, value: unknown, path: string): FilledRecord {
  const kind = typeOf(schema);
  if (kind === 'object' && isObject(schema.properties)) {
    const source = firstObject(value);
    const out: Item = {};
    const missing: string[] = [];
    for (const [name, sub] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      const where = join(path, name);
      const found = source ? lookup(source, name) : undefined;
      const filled = found === undefined ? undefined : fill(isObject(sub) ? sub : {}, found, where);
      if (filled?.data !== undefined) out[name] = filled.data;
      missing.push(...(filled ? filled.missing : allPaths(isObject(sub) ? sub : {}, where)));
    }
    return { data: Object.keys(out).length > 0 ? out : undefined, missing };
  }
  if (kind === 'array') {
    const itemSchema = isObject(schema.items) ? (schema.items as JsonSchema) : {};
    const list = (Array.isArray(value) ? value : [value]).map((v) => fill(itemSchema, v, `${path}[]`)).filter((f) => f.data !== undefined);
    if (list.length === 0) return { data: undefined, missing: [path] };
    return { data: list.map((f) => f.data), missing: [...new Set(list.flatMap((f) => f.missing))] };
  }
  const data = scalar(schema, kind, value);
  return { data, missing: data === undefined ? [path] : [] };
}

/** Every field path of `schema` under `path` (a field not found at all is missing with all it holds). */
function allPaths(schema: JsonSchema, path: string): string[] {
  if (typeOf(schema) === 'object' && isObject(schema.properties)) {
    return Object.entries(schema.properties as Record<string, JsonSchema>).flatMap(([name, sub]) => allPaths(isObject(sub) ? sub : {}, join(path, name)));
  }
  return [path];
}

function firstObject(value: unknown): Item | undefined {
  if (isObject(value)) return value;
  if (Array.isArray(value)) return value.find(isObject);
  return undefined;
}

const keyName = (key: string) => key.replace(/^@/, '').toLowerCase();

/** `name` on `item`, else on the items nested in it, nearest first. */
function lookup(item: Item, name: string): unknown {
  const wanted = name.toLowerCase();
  let level: Item[] = [item];
  for (let depth = 0; depth <= SEARCH_DEPTH && level.length > 0; depth++) {
    for (const node of level) {
      // An own key first, then its @-keyword twin: `type` is `@type` only where the item has no `type`.
      const own = Object.keys(node).find((key) => key.toLowerCase() === wanted) ?? Object.keys(node).find((key) => keyName(key) === wanted);
      if (own !== undefined && node[own] !== null && node[own] !== undefined) return node[own];
    }
    level = level.flatMap((node) => Object.entries(node).filter(([key]) => !key.startsWith('@')).flatMap(([, v]) => (Array.isArray(v) ? v.filter(isObject) : isObject(v) ? [v] : [])));
  }
  return undefined;
}

/** A JSON-LD value as one plain value: `@value`, an item's name (else `@id`, `url`), a list's first value. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.length > 0 ? plain(value[0]) : undefined;
  if (isObject(value)) {
    for (const key of ['@value', 'name', '@id', 'url']) if (value[key] !== undefined) return plain(value[key]);
    return undefined;
  }
  return value;
}

function scalar(schema: JsonSchema, kind: string | undefined, raw: unknown): unknown {
  if (kind === undefined && schema.enum === undefined) return raw === null ? undefined : raw;
  const value = plain(raw);
  if (value === undefined || value === null) return undefined;
  const converted = convert(kind, value);
  if (converted === undefined || !Array.isArray(schema.enum)) return converted;
  if (schema.enum.includes(converted)) return converted;
  // A schema.org URL for a term the enum lists: "https://schema.org/InStock" for "InStock".
  const term = typeof converted === 'string' ? converted.replace(/^https?:\/\/schema\.org\//i, '') : converted;
  return schema.enum.includes(term) ? term : undefined;
}

/** A number written plainly ("49.00", "-3") or with thousands commas ("1,299.50"); "129,95" is no number here. */
function numberIn(text: string): number {
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(text)) return Number(text.replace(/,/g, ''));
  return NaN;
}

function convert(kind: string | undefined, value: unknown): unknown {
  if (kind === 'string') return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  if (kind === 'number' || kind === 'integer') {
    const n = typeof value === 'number' ? value : typeof value === 'string' ? numberIn(value.trim()) : NaN;
    if (!Number.isFinite(n)) return undefined;
    return kind === 'integer' && !Number.isInteger(n) ? undefined : n;
  }
  if (kind === 'boolean') {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    return undefined;
  }
  return value;
}
