/**
 * JSON given on the command line (extract's --schema and --selectors, the json
 * format's --schema): inline when it looks like an object, else a file's path.
 * And the json format's flags on scrape, batch and crawl.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { UsageError } from '../api/errors.js';
import { MODEL_PROVIDERS, type Format, type JsonOptions, type ModelProviderName } from '../api/types.js';
import { quoted } from '../api/quote.js';

const SCHEMA_EXAMPLE = '{"type":"object","properties":{...}}';

function parseJson(text: string, where: string, flag: string, example: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${flag}: ${where} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${flag}: ${where} must hold a JSON object, e.g. ${example}`);
  }
  return value as Record<string, unknown>;
}

/** A flag's JSON object: inline JSON when it looks like an object, else the path of a JSON file. */
export function readJsonFlag(value: string, flag: string, example: string): Record<string, unknown> {
  const trimmed = value.trim();
  if (trimmed.startsWith('{')) return parseJson(trimmed, 'the inline JSON', flag, example);
  if (!existsSync(trimmed)) {
    throw new UsageError(`${flag}: no file named ${quoted(value)}, and it is not inline JSON either (inline JSON starts with "{")`);
  }
  let text: string;
  try {
    text = readFileSync(trimmed, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${value}: ${(err as Error).message}`);
  }
  return parseJson(text, `the file ${value}`, flag, example);
}

/** --schema is inline JSON when it looks like an object, else the path of a JSON file. */
export function readSchemaFlag(value: string): Record<string, unknown> {
  return readJsonFlag(value, '--schema', SCHEMA_EXAMPLE);
}

export interface JsonFlags {
  schema?: string;
  prompt?: string;
  provider?: ModelProviderName;
  model?: string;
}

/** The json format's flags: extract's, for each page. */
export function addJsonOptions(cmd: Command): Command {
  return cmd
    .option('-s, --schema <file|json>', "with --formats json: the JSON Schema of each page's data, a file or inline JSON (no model configured: filled from the page's structured data)")
    .option('-p, --prompt <text>', 'with --formats json: what to extract from each page, in words (needs a model)')
    .addOption(new Option('--provider <name>', 'with --formats json: model server, anthropic or openai (default: as extract)').choices([...MODEL_PROVIDERS]))
    .option('-m, --model <name>', 'with --formats json: model name (default: as extract)');
}

/** jsonOptions from the flags; they go with --formats json, which needs --schema or --prompt. */
export function jsonOptionsFrom(flags: JsonFlags, formats: Format[] | undefined): JsonOptions | undefined {
  const given = (['schema', 'prompt', 'provider', 'model'] as const).filter((name) => flags[name] !== undefined);
  if (!formats?.includes('json')) {
    if (given.length > 0) throw new UsageError(`--${given[0]} goes with the json format: add --formats json`);
    return undefined;
  }
  if (flags.schema === undefined && flags.prompt === undefined) throw new UsageError('--formats json needs --schema, --prompt, or both');
  return {
    ...(flags.schema !== undefined ? { schema: readSchemaFlag(flags.schema) } : {}),
    ...(flags.prompt !== undefined ? { prompt: flags.prompt } : {}),
    ...(flags.provider !== undefined ? { provider: flags.provider } : {}),
    ...(flags.model !== undefined ? { model: flags.model } : {}),
  };
}
