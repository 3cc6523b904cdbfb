/**
 * Firecrawl's json format as webjobs' (scrapeOptions.formats "json" with
 * jsonOptions): v1 names it in formats and puts its options in `jsonOptions`
 * ({schema, prompt, systemPrompt}); v2 puts them in the format, {type: "json",
 * schema, prompt}. Either may add webjobs' `provider` and `model` (the server's
 * default otherwise). The answer's document carries `json`.
 */
import { UsageError } from '../../api/errors.js';
import { isObject, refuse, unmapped, type Obj, type Unmapped } from './fields.js';

type Version = 'v1' | 'v2';

/** Options of ours that keep their name: extract's, and webjobs' choice of model. */
const SAME = ['schema', 'prompt', 'provider', 'model'];

const RULES: Unmapped = {
  neutral: {
    mode: ['llm', 'the data is extracted by a language model, or without one from the page’s structured data'],
    checkPromptInjection: [false, 'pages are not checked for prompt injection'],
  },
  whyNot: {
    temperature: "the model's temperature is not set",
    agent: 'there is no agent mode',
  },
};

function mapOptions(options: Obj, where: string, extra: readonly string[]): Obj {
  const out: Obj = {};
  for (const key of Object.keys(options)) {
    if (options[key] === undefined || key === 'type') continue;
    if (SAME.includes(key) || extra.includes(key)) out[key] = options[key];
    else unmapped(options, key, where, RULES);
  }
  return out;
}

/** v2's {type: "json", schema, prompt}: its options as webjobs' jsonOptions; undefined for any other format. */
export function jsonFormatOf(format: unknown, where: string): Obj | undefined {
  if (!isObject(format) || format.type !== 'json') return undefined;
  return mapOptions(format, `${where}formats[{type: "json"}].`, []);
}

/** v1's jsonOptions as webjobs' (v2 has none: its options are in the format). */
export function mapJsonOptions(value: unknown, where: string, version: Version): Obj {
  if (version === 'v2') refuse(where, 'jsonOptions', 'v2 takes them in the format: {type: "json", schema, prompt}');
  if (!isObject(value)) throw new UsageError(`${where}jsonOptions must be an object`);
  return mapOptions(value, `${where}jsonOptions.`, ['systemPrompt']);
}

/** The json format needs a schema or a prompt, said in the request's own terms (Firecrawl: "corresponding options must be provided"). */
export function requireJsonOptions(options: Obj, where: string, version: Version): void {
  const formats = options.formats as unknown[] | undefined;
  if (!formats?.includes('json')) return;
  const json = options.jsonOptions as Obj | undefined;
  if (json?.schema !== undefined || json?.prompt !== undefined) return;
  throw new UsageError(
    version === 'v1'
      ? `${where}formats: "json" needs ${where}jsonOptions with a schema, a prompt, or both`
      : `${where}formats: {type: "json"} needs a schema, a prompt, or both`,
  );
}
