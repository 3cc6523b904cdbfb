/**
 * Combining the answers of several model calls (one per batch of pages) into one
 * `data` object, without another model call: arrays are concatenated without
 * duplicates, objects merged key by key, and for a single value the first batch
 * (the earliest URL) that has one wins.
 */

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (v: unknown): boolean => v === undefined || v === null || v === '';

function mergeTwo(a: unknown, b: unknown): unknown {
  if (isEmpty(a)) return b;
  if (isEmpty(b)) return a;
  if (Array.isArray(a) && Array.isArray(b)) {
    const out = [...a];
    const seen = new Set(a.map((item) => JSON.stringify(item)));
    for (const item of b) {
      const key = JSON.stringify(item);
      if (!seen.has(key)) out.push(item);
      seen.add(key);
    }
    return out;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [key, value] of Object.entries(b)) out[key] = key in out ? mergeTwo(out[key], value) : value;
    return out;
  }
  return a;
}

export function mergeResults(results: unknown[]): unknown {
  return results.reduce((acc, next) => mergeTwo(acc, next));
}

/**
 * The schema with every `required` list removed, for one batch of a split job:
 * a batch may hold none of a required field, which another batch supplies. The
 * merged answer is checked against the real schema.
 */
export function withoutRequired(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutRequired);
  if (!isPlainObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // `required` as a keyword is a list of names; a property called "required" is an object.
    if (key === 'required' && Array.isArray(value)) continue;
    out[key] = withoutRequired(value);
  }
  return out;
}
