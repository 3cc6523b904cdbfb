import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { UsageError } from '../../api/errors.js';
import type { ExtractRequest } from '../../api/types.js';
import { DEFAULT_MODEL } from '../../engine/extract/defaults.js';
import { addRunOptions, addSessionOptions, sessionOptionsFrom, type RunFlags, type SessionFlags } from '../options.js';
import { renderRecord, runJob } from '../runJob.js';

interface ExtractFlags extends SessionFlags, RunFlags {
  prompt?: string;
  schema?: string;
  selectors?: string;
  systemPrompt?: string;
  model?: string;
}

const SCHEMA_EXAMPLE = '{"type":"object","properties":{...}}';
const SELECTORS_EXAMPLE = '{"baseSelector":"li.product","fields":[{"name":"title","selector":"h2","type":"text"}]}';

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
function readJsonFlag(value: string, flag: string, example: string): Record<string, unknown> {
  const trimmed = value.trim();
  if (trimmed.startsWith('{')) return parseJson(trimmed, 'the inline JSON', flag, example);
  if (!existsSync(trimmed)) {
    throw new UsageError(`${flag}: no file named "${value}", and it is not inline JSON either (inline JSON starts with "{")`);
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

function requestFrom(urls: string[], flags: ExtractFlags): ExtractRequest {
  return {
    urls,
    ...(flags.prompt !== undefined ? { prompt: flags.prompt } : {}),
    ...(flags.schema !== undefined ? { schema: readSchemaFlag(flags.schema) } : {}),
    // Checked as the request is (api/cssSchema.ts): a bad field is named there.
    ...(flags.selectors !== undefined ? { selectors: readJsonFlag(flags.selectors, '--selectors', SELECTORS_EXAMPLE) as unknown as ExtractRequest['selectors'] } : {}),
    ...(flags.systemPrompt !== undefined ? { systemPrompt: flags.systemPrompt } : {}),
    ...(flags.model !== undefined ? { model: flags.model } : {}),
    sessionOptions: sessionOptionsFrom(flags),
  };
}

export function extractCommand(): Command {
  const cmd = new Command('extract')
    .summary('extract structured JSON from pages with Claude')
    .description(
      'Scrape one or more URLs and extract one JSON value from them with Claude, valid against a JSON Schema.\n' +
        'Give a schema, a prompt, or both (best). Without a schema, one is generated from the prompt and kept in the job record.\n' +
        'A model needs ANTHROPIC_API_KEY; --selectors, and --schema with no key set, use none.',
    )
    .argument('<urls...>', 'the pages to extract from (http or https); their data is combined into one result')
    .option('-p, --prompt <text>', 'what to extract, in words')
    .option('-s, --schema <file|json>', 'JSON Schema the result must match: a file path, or inline JSON (with no model configured: filled from the pages\' structured data)')
    .option('--selectors <file|json>', 'no model: Crawl4AI\'s JSON CSS schema (baseSelector, fields); prints an array of the items it finds')
    .option('--system-prompt <text>', 'extra instructions for the model, added to webjobs\'s own')
    .option('-m, --model <name>', `Claude model (env: WEBJOBS_MODEL; default: ${DEFAULT_MODEL})`);
  addSessionOptions(cmd);
  addRunOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Prints the extracted data as JSON; with --json the whole job record (data, schema, token usage).

Examples:
  $ cat product.schema.json
  {"type":"object","properties":{"name":{"type":"string"},"price":{"type":"number"}},"required":["name","price"]}
  $ webjobs extract https://shop.example.com/item/42 --schema product.schema.json | jq -r .price
  $ webjobs extract https://example.com/blog/a https://example.com/blog/b \\
      --prompt "title, author and publication date of each article"
  $ webjobs extract https://example.com --prompt "the company's contact email" --json | jq .schema > contact.schema.json
  $ webjobs extract https://shop.example.com/search?q=lamp --selectors listing.json    # no model: one item per li.product
  $ webjobs extract https://shop.example.com/item/42 --schema product.schema.json       # no key set: from the page's JSON-LD/microdata

Without a model configured, --schema is filled from the pages' structured data (the structuredData format);
the fields it could not fill are listed in the record's "missing" and said on stderr, and the job fails when
what was found does not satisfy the schema (docs/cli.md).

Environment:
  ANTHROPIC_API_KEY                 the model's key (without it: no model, see above)
  ANTHROPIC_BASE_URL                another Messages API endpoint (a proxy or gateway)
  WEBJOBS_MODEL                     default model
  WEBJOBS_LLM_MAX_RETRIES           retries of 429/5xx/overloaded/timeouts per call (default 4)
  WEBJOBS_LLM_TIMEOUT_MS            time allowed for one model call (default 120000)
  WEBJOBS_EXTRACT_MAX_INPUT_TOKENS  page text per model call before pages are split into batches (default 100000)`,
  );
  return cmd.action(async (urls: string[], flags: ExtractFlags) => {
    const request = requestFrom(urls, flags);
    const label = `Extracting from ${urls.length} page${urls.length === 1 ? '' : 's'}`;
    process.exitCode = await runJob(
      'extract',
      request,
      flags,
      { label },
      renderRecord(
        'extract',
        flags,
        (jobId) => `extract job ${jobId}`,
        (record) => JSON.stringify(record.data ?? null, null, 2),
        (record) => {
          if (record.warning && !flags.quiet) process.stderr.write(`webjobs: warning: ${record.warning}\n`);
        },
      ),
    );
  });
}
