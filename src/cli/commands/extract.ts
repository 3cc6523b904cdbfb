import { Command, Option } from 'commander';
import { addWebhookOption, webhookFrom, type WebhookFlags } from '../webhookOption.js';
import { MODEL_PROVIDERS, type ExtractRequest, type ModelProviderName } from '../../api/types.js';
import { DEFAULT_MODEL, DEFAULT_OPENAI_MODEL } from '../../engine/extract/defaults.js';
import { readJsonFlag, readSchemaFlag } from '../jsonFlags.js';
import { addRunOptions, addSessionOptions, sessionOptionsFrom, type RunFlags, type SessionFlags } from '../options.js';
import { renderRecord, runJob } from '../runJob.js';

interface ExtractFlags extends WebhookFlags, SessionFlags, RunFlags {
  prompt?: string;
  schema?: string;
  selectors?: string;
  systemPrompt?: string;
  provider?: ModelProviderName;
  model?: string;
}

const SELECTORS_EXAMPLE = '{"baseSelector":"li.product","fields":[{"name":"title","selector":"h2","type":"text"}]}';

function requestFrom(urls: string[], flags: ExtractFlags): ExtractRequest {
  return {
    urls,
    ...(flags.prompt !== undefined ? { prompt: flags.prompt } : {}),
    ...(flags.schema !== undefined ? { schema: readSchemaFlag(flags.schema) } : {}),
    // Checked as the request is (api/cssSchema.ts): a bad field is named there.
    ...(flags.selectors !== undefined ? { selectors: readJsonFlag(flags.selectors, '--selectors', SELECTORS_EXAMPLE) as unknown as ExtractRequest['selectors'] } : {}),
    ...(flags.systemPrompt !== undefined ? { systemPrompt: flags.systemPrompt } : {}),
    ...(flags.provider !== undefined ? { provider: flags.provider } : {}),
    ...(flags.model !== undefined ? { model: flags.model } : {}),
    sessionOptions: sessionOptionsFrom(flags),
    ...webhookFrom(flags),
  };
}

/** " with openai llama3.1" for the spinner: the model this machine will ask (a service chooses its own). */
async function modelLabel(flags: ExtractFlags): Promise<string> {
  if (flags.remote ?? process.env.WEBJOBS_REMOTE) return flags.provider || flags.model ? ` with ${[flags.provider, flags.model].filter(Boolean).join(' ')}` : '';
  const { llmSettings } = await import('../../engine/extract/llm.js');
  try {
    const settings = llmSettings(process.env, flags);
    return ` with ${settings.provider} ${settings.model}`;
  } catch {
    return ''; // the job's preflight says what is wrong
  }
}

export function extractCommand(): Command {
  const cmd = new Command('extract')
    .summary('extract structured JSON from pages with a language model')
    .description(
      'Scrape one or more URLs and extract one JSON value from them with a language model, valid against a JSON Schema.\n' +
        'Give a schema, a prompt, or both (best). Without a schema, one is generated from the prompt and kept in the job record.\n' +
        'Needs ANTHROPIC_API_KEY (Claude) or OPENAI_API_KEY (OpenAI, Ollama, vLLM, LM Studio, LiteLLM: any Chat Completions API); --selectors, and --schema with no key set, use no model.',
    )
    .argument('<urls...>', 'the pages to extract from (http or https); their data is combined into one result')
    .option('-p, --prompt <text>', 'what to extract, in words')
    .option('-s, --schema <file|json>', 'JSON Schema the result must match: a file path, or inline JSON (with no model configured: filled from the pages\' structured data)')
    .option('--selectors <file|json>', 'no model: Crawl4AI\'s JSON CSS schema (baseSelector, fields); prints an array of the items it finds')
    .option('--system-prompt <text>', 'extra instructions for the model, added to webjobs\'s own')
    .addOption(new Option('--provider <name>', 'model server: anthropic or openai (default: the one whose key is set, Anthropic first)').choices([...MODEL_PROVIDERS]))
    .option('-m, --model <name>', `model name (env: WEBJOBS_MODEL; default: ${DEFAULT_MODEL}, or ${DEFAULT_OPENAI_MODEL} with openai)`);
  addSessionOptions(cmd);
  addWebhookOption(cmd);
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
  $ OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_API_KEY=ollama \\
      webjobs extract https://shop.example.com/item/42 --schema product.schema.json --provider openai --model llama3.1
  $ webjobs extract https://shop.example.com/search?q=lamp --selectors listing.json    # no model: one item per li.product
  $ webjobs extract https://shop.example.com/item/42 --schema product.schema.json       # no key set: from the page's JSON-LD/microdata

With --provider openai the model is asked for a tool call, else for JSON by response_format json_schema,
else for JSON in its text; what each of these came to is in the error when none gives valid data.

Without a model configured, --schema is filled from the pages' structured data (the structuredData format);
the fields it could not fill are listed in the record's "missing" and said on stderr, and the job fails when
what was found does not satisfy the schema (docs/cli.md).

Environment:
  ANTHROPIC_API_KEY                 Claude's key (with a prompt, this or OPENAI_API_KEY is required; without either: no model, see above)
  ANTHROPIC_BASE_URL                another Messages API endpoint (a proxy or gateway)
  OPENAI_API_KEY                    the key of an OpenAI-compatible server (any value for one that needs none)
  OPENAI_BASE_URL                   its Chat Completions endpoint, e.g. http://localhost:11434/v1 (Ollama)
  WEBJOBS_EXTRACT_PROVIDER          default provider, instead of the one whose key is set
  WEBJOBS_MODEL                     the default provider's default model
  WEBJOBS_LLM_MAX_RETRIES           retries of 429/5xx/overloaded/timeouts per call (default 4)
  WEBJOBS_LLM_TIMEOUT_MS            time allowed for one model call (default 120000)
  WEBJOBS_EXTRACT_MAX_INPUT_TOKENS  page text per model call before pages are split into batches (default 100000)`,
  );
  return cmd.action(async (urls: string[], flags: ExtractFlags) => {
    const request = requestFrom(urls, flags);
    const label = `Extracting from ${urls.length} page${urls.length === 1 ? '' : 's'}${await modelLabel(flags)}`;
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
