/**
 * The extraction step that extract jobs and the json format share (issue 42):
 * what a schema and/or prompt asks of some pages, answered by a model (Claude, or
 * any OpenAI-compatible server), or, with a schema alone and no model configured,
 * filled from the pages' structured data. The extract runner asks it of all its
 * pages at once; the json format (jsonFormat.ts) of each page on its own.
 *
 * Loads the model clients and ajv: import it only when a job extracts.
 */
import type { JsonOptions } from '../api/types.js';
import type { ScrapedPage } from '../engine/extract/chunk.js';
import { extractData, generateSchema, inputBudget } from '../engine/extract/extractor.js';
import { fillFromStructured } from '../engine/extract/fromStructured.js';
import type { ModelProvider } from '../engine/extract/providers/provider.js';
import { checkSchema, validationProblems, type CheckedSchema } from '../engine/extract/schema.js';

/** What is asked: extract's schema, prompt, system prompt and model choice (JsonOptions has the same fields). */
export type ExtractAsk = JsonOptions;

/** Keys of the model servers extract can use; with none set, no model is configured. */
const MODEL_KEYS = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'];

export function modelConfigured(env: NodeJS.ProcessEnv): boolean {
  return MODEL_KEYS.some((name) => (env[name]?.trim() ?? '') !== '');
}

/** A schema alone (no prompt, no model named) with no model configured: filled from structured data. */
export function fillsWithoutModel(ask: ExtractAsk, env: NodeJS.ProcessEnv): boolean {
  return ask.schema !== undefined && ask.prompt === undefined && ask.model === undefined && ask.provider === undefined && !modelConfigured(env);
}

/** The schema the data must follow: the asker's, else one the model designs from the prompt. */
export async function askedSchema(llm: ModelProvider, ask: ExtractAsk, signal?: AbortSignal): Promise<CheckedSchema> {
  if (ask.schema) return checkSchema(ask.schema);
  return generateSchema(llm, ask.prompt!, ask.systemPrompt, signal);
}

/** One value, valid against `schema`, from the pages' Markdown, by the model. */
export function extractWithModel(llm: ModelProvider, ask: ExtractAsk, schema: CheckedSchema, pages: ScrapedPage[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<unknown> {
  return extractData(llm, { pages, schema, prompt: ask.prompt, systemPrompt: ask.systemPrompt, budgetTokens: inputBudget(env) }, signal);
}

export interface StructuredFill {
  /** What was found (undefined: nothing). */
  data: unknown;
  /** Paths of the schema's fields not found. */
  missing: string[];
  /** Says that no model filled it, and names the fields not found; absent when all were. */
  warning?: string;
  /** Why what was found does not satisfy the schema; absent when it does. A half-filled record never passes for a complete one. */
  failure?: string;
}

/** `schema` filled from the structured data items of one page or of several (how the messages name them). */
export function fillFromStructuredData(checked: CheckedSchema, items: readonly Record<string, unknown>[], pages: 'one' | 'several'): StructuredFill {
  const whose = pages === 'one' ? "the page's" : "the pages'";
  const { data, missing } = fillFromStructured(checked.schema, items);
  const problems = validationProblems(checked, data);
  const notFound = missing.length === 0 ? '' : `${missing.length} field${missing.length === 1 ? '' : 's'} not found: ${missing.join(', ')}`;
  const fill: StructuredFill = { data, missing };
  if (notFound) fill.warning = `no model is configured: filled from ${whose} structured data; ${notFound}`;
  if (problems.length > 0) {
    const found = items.length === 0 ? `${pages === 'one' ? 'the page has' : 'the pages have'} no structured data (JSON-LD, microdata, RDFa)` : `${whose} structured data does not fill the schema (${problems.slice(0, 5).join('; ')})`;
    fill.failure = `no model is configured (set ANTHROPIC_API_KEY or OPENAI_API_KEY), and ${found}${notFound ? `; ${notFound}` : ''}`;
  }
  return fill;
}
