/**
 * The json format (Firecrawl's): each page's data as scrapeOptions.jsonOptions
 * asks, by the extraction step extract jobs use (extractStep.ts), one page at a
 * time. The page is read with what that step needs besides the formats asked
 * (its Markdown for a model, its structured data without one), which is then
 * left out of the answer.
 *
 * - A model (the request's provider and model, else the server's default) fills
 *   the schema, or a schema it designs from the prompt, once per job.
 * - A schema alone with no model configured is filled from the page's structured
 *   data; the fields not found are named in metadata.warning, and a page whose
 *   data does not satisfy the schema fails, saying which fields are missing: a
 *   half-filled object never passes for a complete one.
 * - A page the server answered with an HTTP error is not sent to the model: it
 *   has no json, and its warning says why.
 *
 * Loaded (with the model clients and ajv) only by jobs that ask for json.
 */
import { ConfigError, PageError, errorMessage } from '../api/errors.js';
import type { Format, JsonOptions, ScrapeOptions } from '../api/types.js';
import type { Engine, EnginePage } from '../engine/engine.js';
import { inputBudget } from '../engine/extract/extractor.js';
import { llmSettings } from '../engine/extract/llm.js';
import { createProvider } from '../engine/extract/providers/index.js';
import { checkSchema, type CheckedSchema } from '../engine/extract/schema.js';
import { askedSchema, extractWithModel, fillFromStructuredData, fillsWithoutModel, modelConfigured } from './extractStep.js';

const WHERE = 'scrapeOptions.jsonOptions';

/** The json format's options, when the scrape asks for it. */
export function jsonAsked(options: ScrapeOptions | undefined): JsonOptions | undefined {
  return options?.formats?.includes('json') ? options.jsonOptions : undefined;
}

/** Refuses, before the job exists, a schema that is not JSON Schema and a model that cannot be asked (no key, an unknown setting). */
export function jsonPreflight(options: ScrapeOptions | undefined, env: NodeJS.ProcessEnv): void {
  const ask = jsonAsked(options);
  if (!ask) return;
  if (ask.schema) checkSchema(ask.schema, `${WHERE}.schema`);
  if (fillsWithoutModel(ask, env)) return;
  if (!modelConfigured(env) && ask.prompt !== undefined) {
    throw new ConfigError(
      `${WHERE}.prompt needs a model: set ANTHROPIC_API_KEY (Claude) or OPENAI_API_KEY (OpenAI, or with OPENAI_BASE_URL any server that speaks its ` +
        "Chat Completions API: Ollama, vLLM, LM Studio, LiteLLM); with no model, a schema alone is filled from the page's structured data",
    );
  }
  try {
    llmSettings(env, ask);
    inputBudget(env);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`${WHERE}: ${err.message}`);
    throw err;
  }
}

type Scrape = Engine['scrape'];

/** Adds `note` to the page's warning. */
function warn(page: EnginePage, note: string): void {
  page.metadata = { ...page.metadata, warning: [page.metadata.warning, note].filter(Boolean).join('; ') };
}

/**
 * `engine`'s scrape with the json format: pages that ask for it get `json`. One per
 * job: a schema generated from a prompt is generated once and used for every page.
 */
export function scrapeWithJson(engine: Engine, env: NodeJS.ProcessEnv): Scrape {
  const generated = new Map<string, Promise<CheckedSchema>>();
  return async (url, scrapeOptions, sessionOptions, signal, access) => {
    const ask = jsonAsked(scrapeOptions);
    if (!ask) return engine.scrape(url, scrapeOptions, sessionOptions, signal, access);
    const asked = scrapeOptions!.formats!;
    const noModel = fillsWithoutModel(ask, env);
    const needed: Format = noModel ? 'structuredData' : 'markdown';
    const { jsonOptions: _json, ...rest } = scrapeOptions!;
    const formats = asked.filter((format) => format !== 'json');
    if (!formats.includes(needed)) formats.push(needed);
    const read = await engine.scrape(url, { ...rest, formats }, sessionOptions, signal, access);
    const page: EnginePage = { ...read };
    if (!asked.includes(needed)) delete page[needed];
    const status = Number(read.metadata.statusCode);
    if (status >= 400) {
      warn(page, `json: not extracted: the server answered HTTP ${status}`);
      return page;
    }
    if (noModel) {
      const fill = fillFromStructuredData(checkSchema(ask.schema), read.structuredData ?? [], 'one');
      if (fill.failure) throw new PageError(`json: ${fill.failure}`);
      page.json = fill.data;
      if (fill.warning) warn(page, `json: ${fill.warning}`);
      return page;
    }
    try {
      const llm = createProvider(llmSettings(env, ask));
      const key = JSON.stringify([ask.prompt, ask.systemPrompt]);
      // A schema generated from the prompt: once for all the job's pages, so that they share one shape.
      const schema = ask.schema ? checkSchema(ask.schema) : await (generated.get(key) ?? generated.set(key, askedSchema(llm, ask, signal)).get(key)!);
      const markdown = read.markdown ?? '';
      page.json = await extractWithModel(llm, ask, schema, [{ url: read.metadata.url ?? url, title: read.metadata.title ?? '', markdown }], env, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new PageError(`json: ${errorMessage(err)}`);
    }
    return page;
  };
}
