/**
 * The input schemas as tools/list sends them: the request schema (api/requestSchema.ts) with the
 * descriptions and defaults of nested fields left out (a cookie's parts, jsonOptions' fields...):
 * the field names say enough there, and every tool would repeat them. The validation is the same.
 * tools/list went from 27.6 KB to about 16 KB (issue 57).
 */
import type { JsonSchema } from '../api/requestSchema.js';

/**
 * `described`: the depth down to which descriptions stay: 1 a tool's arguments, 2 also scrapeOptions' fields
 * (the scrape tool's; batch_scrape and crawl take the same fields and say so, rather than repeat them).
 */
export function compactSchema(schema: JsonSchema, described = 2, depth = 0): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (depth > described && (key === 'description' || key === 'default' || key === 'title')) continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([name, field]) => [name, compactSchema(field, described, depth + 1)]));
    } else if ((key === 'items' || key === 'additionalProperties') && value && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = compactSchema(value as JsonSchema, described, depth + 1);
    } else out[key] = value;
  }
  return out as JsonSchema;
}
