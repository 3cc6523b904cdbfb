/**
 * How a Firecrawl field without a webjobs counterpart is answered: accepted when
 * it holds the one value that asks for what webjobs does anyway, else refused
 * with a 400 naming it and why (request.ts, jsonFormat.ts).
 */
import { UsageError } from '../../api/errors.js';

export type Obj = Record<string, unknown>;

export const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

export function refuse(where: string, field: string, why: string): never {
  throw new UsageError(`${where}${field} is not supported by webjobs serve: ${why}`);
}

/** A field accepted only with the one value that asks for what webjobs does anyway. */
export function onlyValue(obj: Obj, key: string, where: string, accepted: unknown, why: string): void {
  if (obj[key] !== undefined && obj[key] !== accepted) refuse(where, key, `only ${JSON.stringify(accepted)} (${why})`);
}

/** Firecrawl fields without a webjobs counterpart: those accepted with one value, and why the others are refused. */
export interface Unmapped {
  neutral: Record<string, [accepted: unknown, why: string]>;
  whyNot: Record<string, string>;
}

/** A field no mapping took: accepted if it holds its neutral value, refused by name otherwise. */
export function unmapped(obj: Obj, key: string, where: string, rules: Unmapped): void {
  if (Object.hasOwn(rules.neutral, key)) return onlyValue(obj, key, where, rules.neutral[key]![0], rules.neutral[key]![1]);
  refuse(where, key, Object.hasOwn(rules.whyNot, key) ? rules.whyNot[key]! : 'webjobs has no such option');
}
