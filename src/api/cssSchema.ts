/**
 * `extract --selectors`: Crawl4AI's JSON CSS extraction schema (its
 * JsonCssExtractionStrategy), checked before a job starts so that a bad schema is
 * a usage error (CLI exit 2, serve 400), never a failed page.
 *
 *   { "name": "Products", "baseSelector": "li.product",
 *     "baseFields": [{ "name": "sku", "type": "attribute", "attribute": "data-sku" }],
 *     "fields": [
 *       { "name": "title", "selector": "h2", "type": "text" },
 *       { "name": "url", "selector": "a", "type": "attribute", "attribute": "href" },
 *       { "name": "seller", "selector": ".seller", "type": "nested", "fields": [...] },
 *       { "name": "tags", "selector": ".tag", "type": "list", "fields": [{ "name": "tag", "type": "text" }] } ] }
 *
 * Each element baseSelector matches is one item. A field without `selector` reads
 * the element itself. Types: text, attribute (with `attribute`), html (the element's
 * outer HTML), nested (an object of `fields` from the first match), list and
 * nested_list (an object of `fields` per match). `default` is the value when
 * nothing matches; `transform` is lowercase, uppercase or strip.
 */
import { UsageError } from './errors.js';
import { invalidSelectors } from './selectors.js';
import { quoted } from './quote.js';

export const CSS_FIELD_TYPES = ['text', 'attribute', 'html', 'nested', 'list', 'nested_list'] as const;
export type CssFieldType = (typeof CSS_FIELD_TYPES)[number];
export const CSS_TRANSFORMS = ['lowercase', 'uppercase', 'strip'] as const;
export type CssTransform = (typeof CSS_TRANSFORMS)[number];

export interface CssField {
  name: string;
  /** Relative to the item's element; absent: the element itself. */
  selector?: string;
  type: CssFieldType;
  /** The attribute read by type `attribute`. */
  attribute?: string;
  /** The fields of each object of a nested, list or nested_list field. */
  fields?: CssField[];
  /** The value when the selector matches nothing (else the field is left out). */
  default?: unknown;
  transform?: CssTransform;
}

export interface CssSchema {
  name?: string;
  baseSelector: string;
  /** Fields read from the base element itself (Crawl4AI's name). */
  baseFields?: CssField[];
  fields: CssField[];
}

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const WITH_FIELDS: readonly CssFieldType[] = ['nested', 'list', 'nested_list'];
/** Fields of a schema at most, all levels together. */
const MAX_FIELDS = 1_000;
/** Levels of nested and list fields at most. */
const MAX_DEPTH = 32;

/** `value` as a CssSchema, or a UsageError naming the first problem's place (`label.fields[2].type`). */
export function validateCssSchema(value: unknown, label = 'selectors'): CssSchema {
  if (!isObject(value)) throw new UsageError(`${label} must be a JSON object with "baseSelector" and "fields" (Crawl4AI's JSON CSS schema)`);
  refuseUnknown(value, ['name', 'baseSelector', 'baseFields', 'fields', 'description'], label);
  if (value.name !== undefined && typeof value.name !== 'string') throw new UsageError(`${label}.name must be a string`);
  const count = { fields: 0 };
  const schema: CssSchema = {
    ...(typeof value.name === 'string' ? { name: value.name } : {}),
    baseSelector: selectorOf(value.baseSelector, `${label}.baseSelector`, true)!,
    ...(value.baseFields !== undefined ? { baseFields: fieldsOf(value.baseFields, `${label}.baseFields`, 1, count, true) } : {}),
    fields: fieldsOf(value.fields, `${label}.fields`, 1, count, false),
  };
  const bad = invalidSelectors(allSelectors(schema, label).map(([selector]) => selector));
  if (bad.length > 0) {
    const where = allSelectors(schema, label).find(([selector]) => selector === bad[0])![1];
    throw new UsageError(`${where}: ${quoted(bad[0]!)} is not a valid CSS selector`);
  }
  return schema;
}

function refuseUnknown(obj: Obj, allowed: readonly string[], label: string): void {
  const unknown = Object.keys(obj).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw new UsageError(`${label}: unknown key ${quoted(unknown)} (allowed: ${allowed.join(', ')})`);
}

function selectorOf(value: unknown, label: string, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${label} must be a CSS selector (a non-empty string)`);
  return value;
}

function fieldsOf(value: unknown, label: string, depth: number, count: { fields: number }, mayBeEmpty: boolean): CssField[] {
  if (!Array.isArray(value) || (!mayBeEmpty && value.length === 0)) throw new UsageError(`${label} must be a non-empty array of fields ({"name", "selector", "type"})`);
  if (depth > MAX_DEPTH) throw new UsageError(`${label} nests fields more than ${MAX_DEPTH} levels deep, the limit`);
  count.fields += value.length;
  if (count.fields > MAX_FIELDS) throw new UsageError(`the schema has more than ${MAX_FIELDS} fields, the limit`);
  const names = new Set<string>();
  return value.map((raw, i) => {
    const field = fieldOf(raw, `${label}[${i}]`, depth, count);
    if (names.has(field.name)) throw new UsageError(`${label}[${i}].name: ${quoted(field.name)} is the name of an earlier field too`);
    names.add(field.name);
    return field;
  });
}

function fieldOf(raw: unknown, label: string, depth: number, count: { fields: number }): CssField {
  if (!isObject(raw)) throw new UsageError(`${label} must be an object with "name", "selector" and "type"`);
  refuseUnknown(raw, ['name', 'selector', 'type', 'attribute', 'fields', 'default', 'transform'], label);
  if (typeof raw.name !== 'string' || raw.name === '') throw new UsageError(`${label}.name must be a non-empty string`);
  const type = raw.type as CssFieldType;
  if (!CSS_FIELD_TYPES.includes(type)) {
    throw new UsageError(`${label}.type: ${JSON.stringify(raw.type ?? null)} is not one of ${CSS_FIELD_TYPES.join(', ')}`);
  }
  const selector = selectorOf(raw.selector, `${label}.selector`, false);
  if (type === 'attribute' && (typeof raw.attribute !== 'string' || raw.attribute === '')) {
    throw new UsageError(`${label}.attribute must name the attribute to read (type "attribute")`);
  }
  if (raw.attribute !== undefined && type !== 'attribute') throw new UsageError(`${label}.attribute is only read by type "attribute"`);
  if (raw.transform !== undefined && !CSS_TRANSFORMS.includes(raw.transform as CssTransform)) {
    throw new UsageError(`${label}.transform: ${JSON.stringify(raw.transform)} is not one of ${CSS_TRANSFORMS.join(', ')}`);
  }
  const withFields = WITH_FIELDS.includes(type);
  if (!withFields && raw.fields !== undefined) throw new UsageError(`${label}.fields is only read by types ${WITH_FIELDS.join(', ')}`);
  return {
    name: raw.name,
    ...(selector !== undefined ? { selector } : {}),
    type,
    ...(type === 'attribute' ? { attribute: raw.attribute as string } : {}),
    ...(withFields ? { fields: fieldsOf(raw.fields, `${label}.fields`, depth + 1, count, false) } : {}),
    ...(raw.default !== undefined ? { default: raw.default } : {}),
    ...(raw.transform !== undefined ? { transform: raw.transform as CssTransform } : {}),
  };
}

/** Every selector of the schema with its place, in order. */
function allSelectors(schema: CssSchema, label: string): [string, string][] {
  const out: [string, string][] = [[schema.baseSelector, `${label}.baseSelector`]];
  const visit = (fields: CssField[] | undefined, label: string) =>
    fields?.forEach((field, i) => {
      if (field.selector !== undefined) out.push([field.selector, `${label}[${i}].selector`]);
      visit(field.fields, `${label}[${i}].fields`);
    });
  visit(schema.baseFields, `${label}.baseFields`);
  visit(schema.fields, `${label}.fields`);
  return out;
}
