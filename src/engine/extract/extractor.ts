/**
 * Structured extraction: pages + schema (or a prompt) → one `data` value valid
 * against the schema.
 *
 * How pages are combined: when all pages fit one call's token budget
 * (WEBJOBS_EXTRACT_MAX_INPUT_TOKENS, default 100,000 estimated tokens), one call
 * sees them all and answers once. Otherwise pages are packed in order into
 * batches (a page longer than the budget is split into parts, never cut), each
 * batch is extracted with the schema's `required` lists relaxed, and the answers
 * are merged without a model call (see merge.ts). If the merged answer does not
 * satisfy the real schema, one more call merges the partial answers under it.
 */
import { ConfigError, UsageError } from '../../api/errors.js';
import { planBatches, renderSections, type ScrapedPage, type Section } from './chunk.js';
import type { ModelProvider, ToolSpec } from './providers/provider.js';
import { mergeResults, withoutRequired } from './merge.js';
import { checkSchema, validationProblems, type CheckedSchema, type JsonSchema } from './schema.js';
import { askStructured } from './structured.js';

export const DEFAULT_INPUT_BUDGET_TOKENS = 100_000;
const EXTRACT_TOOL = 'extract_data';
const SCHEMA_TOOL = 'define_schema';

const BASE_SYSTEM = [
  'You extract structured data from web pages for a program that parses your answer.',
  'Use only facts stated in the pages given; never invent or guess values.',
  'When a value is not in the pages, leave the field out, or use null where the schema allows it.',
  'Copy numbers, prices, dates and names exactly as the pages state them, converted to the type the schema asks for.',
].join(' ');

export function inputBudget(env: NodeJS.ProcessEnv): number {
  const raw = env.WEBJOBS_EXTRACT_MAX_INPUT_TOKENS;
  if (raw === undefined || raw === '') return DEFAULT_INPUT_BUDGET_TOKENS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1000) throw new ConfigError(`WEBJOBS_EXTRACT_MAX_INPUT_TOKENS must be a whole number of at least 1000, got "${raw}"`);
  return n;
}

function systemPrompt(userSystemPrompt?: string): string {
  // The user's system prompt adds to the grounding rules rather than replacing them.
  return userSystemPrompt ? `${BASE_SYSTEM}\n\n${userSystemPrompt}` : BASE_SYSTEM;
}

/**
 * The tool the model must call. The API wants an object at the top of a tool's
 * input, so a schema for anything else (an array, a string) is wrapped as
 * {"data": <schema>} and unwrapped after validation.
 */
interface ExtractTool {
  tool: ToolSpec;
  unwrap(input: unknown): unknown;
}

function extractTool(schema: JsonSchema): ExtractTool {
  const description = 'Record the data extracted from the pages. The input must follow the schema exactly.';
  if (schema.type === 'object') {
    return { tool: { name: EXTRACT_TOOL, description, inputSchema: schema }, unwrap: (input) => input };
  }
  return {
    tool: { name: EXTRACT_TOOL, description, inputSchema: { type: 'object', properties: { data: schema }, required: ['data'] } },
    unwrap: (input) => (input as { data?: unknown }).data,
  };
}

function instructions(prompt: string | undefined, batch?: { index: number; count: number }): string {
  const task = prompt ?? 'Extract the data the JSON Schema describes.';
  const scope = batch
    ? `\n\nThese pages are batch ${batch.index} of ${batch.count} of the material; other batches are extracted separately and merged. Extract what this batch contains.`
    : '';
  return `Task: ${task}${scope}`;
}

export interface ExtractInput {
  pages: ScrapedPage[];
  schema: CheckedSchema;
  prompt?: string;
  systemPrompt?: string;
  budgetTokens: number;
}

async function extractBatch(llm: ModelProvider, input: ExtractInput, sections: Section[], checked: CheckedSchema, batch: { index: number; count: number } | undefined, signal?: AbortSignal): Promise<unknown> {
  const { tool, unwrap } = extractTool(checked.schema);
  return askStructured(
    llm,
    {
      system: systemPrompt(input.systemPrompt),
      content: `${renderSections(sections)}\n\n${instructions(input.prompt, batch)}`,
      tool,
      check: (answer) => validationProblems(checked, unwrap(answer)),
      accept: unwrap,
      what: batch ? `the data extracted from batch ${batch.index} of ${batch.count}` : 'the extracted data',
    },
    signal,
  );
}

/** The fallback when merging by rule breaks the schema (e.g. maxItems): the model merges. */
async function mergeWithModel(llm: ModelProvider, input: ExtractInput, partials: unknown[], signal?: AbortSignal): Promise<unknown> {
  const { tool, unwrap } = extractTool(input.schema.schema);
  const listed = partials.map((p, i) => `<partial batch="${i + 1}">\n${JSON.stringify(p, null, 2)}\n</partial>`).join('\n\n');
  return askStructured(
    llm,
    {
      system: systemPrompt(input.systemPrompt),
      content:
        `Data was extracted from the pages in ${partials.length} batches:\n\n${listed}\n\n` +
        `Merge these partial answers into one answer that follows the schema: combine lists without duplicates, ` +
        `and keep one value per field, the one best supported. Task of the extraction: ${input.prompt ?? 'as the schema describes'}`,
      tool,
      check: (answer) => validationProblems(input.schema, unwrap(answer)),
      accept: unwrap,
      what: 'the merged data',
    },
    signal,
  );
}

/** Extracts one `data` value, valid against `input.schema`, from all pages. */
export async function extractData(llm: ModelProvider, input: ExtractInput, signal?: AbortSignal): Promise<unknown> {
  const batches = planBatches(input.pages, input.budgetTokens);
  if (batches.length === 1) return extractBatch(llm, input, batches[0]!, input.schema, undefined, signal);
  const relaxed = checkSchema(withoutRequired(input.schema.schema));
  const partials: unknown[] = [];
  for (const [i, sections] of batches.entries()) {
    partials.push(await extractBatch(llm, input, sections, relaxed, { index: i + 1, count: batches.length }, signal));
  }
  const merged = mergeResults(partials);
  if (validationProblems(input.schema, merged).length === 0) return merged;
  return mergeWithModel(llm, input, partials, signal);
}

const SCHEMA_TOOL_DEF: ToolSpec = {
  name: SCHEMA_TOOL,
  description: 'Record the JSON Schema that the extracted data must follow.',
  inputSchema: {
    type: 'object',
    properties: {
      schema: {
        type: 'object',
        description: 'A JSON Schema (draft 2020-12) whose top level is {"type":"object", "properties": {...}}, with a description on each property.',
      },
    },
    required: ['schema'],
  },
};

function schemaProblems(answer: unknown): string[] {
  const schema = (answer as { schema?: unknown })?.schema;
  try {
    const checked = checkSchema(schema, 'schema');
    if (checked.schema.type !== 'object') return ['schema: the top level must be {"type":"object", ...}'];
    return [];
  } catch (err) {
    if (err instanceof UsageError) return [err.message];
    throw err;
  }
}

/** Asks the model for a JSON Schema that fits the prompt; it is checked like a user's schema. */
export async function generateSchema(llm: ModelProvider, prompt: string, userSystemPrompt?: string, signal?: AbortSignal): Promise<CheckedSchema> {
  const schema = await askStructured(
    llm,
    {
      system:
        'You design JSON Schemas for data extraction from web pages. Name properties in camelCase, give each a ' +
        'description, use arrays of objects for repeated items, and mark as required only what every page of the ' +
        `kind must state.${userSystemPrompt ? `\n\n${userSystemPrompt}` : ''}`,
      content: `Design the JSON Schema for this extraction request:\n\n${prompt}`,
      tool: SCHEMA_TOOL_DEF,
      check: schemaProblems,
      accept: (answer) => (answer as { schema: JsonSchema }).schema,
      what: 'the generated schema',
    },
    signal,
  );
  return checkSchema(schema, 'generated schema');
}
