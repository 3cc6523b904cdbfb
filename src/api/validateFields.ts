/**
 * The checks every request validator builds on (validate.ts, validateAccess.ts): an object's fields, each
 * optional, each refused with a UsageError (or a LimitError past a limit) whose message names it.
 */
import { LimitError, UsageError } from './errors.js';
import { quoted } from './quote.js';

export type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function expectObject(value: unknown, field: string): Obj {
  if (value === undefined) return {};
  if (!isObject(value)) throw new UsageError(`${field} must be an object`);
  return value;
}

export function rejectUnknown(obj: Obj, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw new UsageError(`${field}: unknown field ${quoted(key)} (allowed: ${allowed.join(', ')})`);
  }
}

export function optBoolean(obj: Obj, key: string, field: string): boolean | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new UsageError(`${field}.${key} must be true or false`);
  return value;
}

export function optInteger(obj: Obj, key: string, field: string, min: number, max: number): number | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new UsageError(`${field}.${key} must be an integer`);
  if (value < min || value > max) {
    throw new LimitError(`${field}.${key} must be between ${min} and ${max} (got ${value})`);
  }
  return value;
}

export function optStringArray(obj: Obj, key: string, field: string): string[] | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.trim() === '')) {
    throw new UsageError(`${field}.${key} must be an array of non-empty strings`);
  }
  return value as string[];
}

/** `{ [key]: value }`, or nothing when the value is absent: optional fields stay out of the request. */
export function optField<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
