/**
 * One structured answer from whichever model: the validate-and-retry loop, and
 * the fallback from one output mode to the next (providers/provider.ts).
 *
 * Modes are tried in the provider's order: a forced tool call; `response_format`
 * with the JSON Schema; JSON written in the text. A mode ends when the server
 * refuses it (a 400 to the request), when the model answers without using it
 * (no tool call; no JSON), or when its answers stay invalid. Within a mode, ajv
 * checks each answer and a wrong one goes back to the model with the problems
 * listed, a bounded number of times. When every mode has ended, the error says
 * what each one came to; the caller never gets unvalidated input.
 */
import { excerpt } from './llm.js';
import { LlmError, ModeRefusedError, type Conversation, type ModelProvider, type ModelReply, type OutputMode, type ToolSpec } from './providers/provider.js';

/** First answer plus two corrections: most fixable mistakes are fixed by the second. */
export const MAX_ATTEMPTS = 3;
/** JSON in the text is asked again once with the problems, as the last resort. */
export const TEXT_ATTEMPTS = 2;

export interface StructuredRequest<T> {
  system: string;
  /** The user turn: pages and instructions; how to answer is added per mode. */
  content: string;
  tool: ToolSpec;
  /** Problems with the answer (the tool's input), empty when it is acceptable; then `accept` turns it into the result. */
  check(input: unknown): string[];
  accept(input: unknown): T;
  /** What the answer is, for error messages: "the extracted data", "the generated schema". */
  what: string;
}

const MODE_NAMES: Record<OutputMode, string> = {
  tool: 'tool calling',
  json_schema: 'response_format json_schema',
  text: 'JSON in the text',
};

function howToAnswer(mode: OutputMode, tool: ToolSpec): string {
  if (mode === 'tool') return `Answer by calling the ${tool.name} tool.`;
  const schema = JSON.stringify(tool.inputSchema);
  if (mode === 'json_schema') return `Answer with one JSON object that follows this JSON Schema, and nothing else:\n${schema}`;
  return `Answer with one JSON object that follows this JSON Schema, in a \`\`\`json code block, and nothing else:\n${schema}`;
}

/** A JSON value written in text: a ```json block, the whole text, or from its first "{" to its last "}". */
export function jsonInText(text: string): { value: unknown } | { problem: string } | undefined {
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text)?.[1];
  const trimmed = text.trim();
  const first = trimmed.indexOf('{');
  const candidate = fenced ?? (trimmed.startsWith('{') || trimmed.startsWith('[') ? trimmed : first >= 0 ? trimmed.slice(first, trimmed.lastIndexOf('}') + 1) : undefined);
  if (candidate === undefined || candidate.trim() === '') return undefined;
  try {
    return { value: JSON.parse(candidate) };
  } catch (err) {
    return { problem: `the JSON in the answer does not parse: ${(err as Error).message}` };
  }
}

/** What one reply came to, in a mode. */
type Reading =
  | { kind: 'value'; value: unknown }
  /** Tried to answer in this mode, but not readably: the model is told and asked again. */
  | { kind: 'invalid'; problem: string; answer: unknown }
  /** Did not answer in this mode at all. */
  | { kind: 'none'; answer: string };

function read(mode: OutputMode, reply: ModelReply, request: StructuredRequest<unknown>): Reading {
  if (reply.kind === 'toolUnparsable') return { kind: 'invalid', problem: reply.problem, answer: reply.arguments };
  if (reply.kind === 'tool') {
    // A tool input is a JSON object; a string (JSON the model wrote as text, cut short) or null is not,
    // and an API would refuse it sent back in the conversation: nothing to correct, the call failed.
    if (typeof reply.input !== 'object' || reply.input === null || Array.isArray(reply.input)) {
      throw new LlmError(`${request.what} could not be read: the model called ${request.tool.name} with something that is not a JSON object: ${excerpt(reply.input)}`);
    }
    return { kind: 'value', value: reply.input };
  }
  if (mode === 'tool') return { kind: 'none', answer: reply.text };
  const found = jsonInText(reply.text);
  if (!found) return { kind: 'none', answer: reply.text };
  return 'value' in found ? { kind: 'value', value: found.value } : { kind: 'invalid', problem: found.problem, answer: reply.text };
}

function notUsed(mode: OutputMode, tool: ToolSpec): string {
  return mode === 'tool' ? `the model answered without calling the ${tool.name} tool` : 'the model answered without a JSON object';
}

function feedback(mode: OutputMode, tool: ToolSpec, problems: string[]): string {
  const listed = problems.map((p) => `- ${p}`).join('\n');
  if (mode === 'tool') return `The input does not match the tool's input schema:\n${listed}\nCall ${tool.name} again with corrected input. Use only information from the pages.`;
  return `The answer does not match the JSON Schema:\n${listed}\nAnswer again with the corrected JSON object only. Use only information from the pages.`;
}

type Outcome = { ok: true; value: unknown } | { ok: false; why: string };

async function tryMode(conversation: Conversation, mode: OutputMode, request: StructuredRequest<unknown>, last: boolean, signal?: AbortSignal): Promise<Outcome> {
  const attempts = mode === 'text' ? TEXT_ATTEMPTS : MAX_ATTEMPTS;
  let problems: string[] = [];
  let answer: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const reading = read(mode, await conversation.ask(signal), request);
    if (reading.kind === 'none') {
      // A later mode may get what this one did not; the last one asks again.
      if (!last) return { ok: false, why: `${notUsed(mode, request.tool)}; it answered: ${excerpt(reading.answer)}` };
      answer = reading.answer;
      problems = [notUsed(mode, request.tool)];
      conversation.correct(mode === 'tool' ? `Call the ${request.tool.name} tool with your answer.` : howToAnswer(mode, request.tool));
      continue;
    }
    if (reading.kind === 'invalid') {
      answer = reading.answer;
      problems = [reading.problem];
    } else {
      answer = reading.value;
      problems = request.check(reading.value);
      if (problems.length === 0) return { ok: true, value: reading.value };
    }
    conversation.correct(feedback(mode, request.tool, problems));
  }
  return { ok: false, why: `did not match the schema after ${attempts} attempts: ${problems.slice(0, 10).join('; ')}; the model's last answer: ${excerpt(answer)}` };
}

/** Asks `provider` for an answer that passes `request.check`, trying its modes in order. */
export async function askStructured<T>(provider: ModelProvider, request: StructuredRequest<T>, signal?: AbortSignal): Promise<T> {
  const untyped = request as StructuredRequest<unknown>;
  const failures: string[] = [];
  for (const [i, mode] of provider.modes.entries()) {
    const refusal = provider.refused.get(mode);
    if (refusal !== undefined) {
      failures.push(`${MODE_NAMES[mode]}: the server refused it (${refusal})`);
      continue;
    }
    const conversation = provider.start(mode, { system: request.system, content: `${request.content}\n\n${howToAnswer(mode, request.tool)}`, tool: request.tool });
    let outcome: Outcome;
    try {
      outcome = await tryMode(conversation, mode, untyped, i === provider.modes.length - 1, signal);
    } catch (err) {
      if (!(err instanceof ModeRefusedError)) throw err;
      provider.refused.set(mode, err.message);
      failures.push(`${MODE_NAMES[mode]}: the server refused it (${err.message})`);
      continue;
    }
    if (outcome.ok) return request.accept(outcome.value);
    failures.push(provider.modes.length === 1 ? outcome.why : `${MODE_NAMES[mode]}: ${outcome.why}`);
  }
  if (provider.modes.length === 1) throw new LlmError(`${request.what} ${failures[0]}`);
  const tried = provider.modes.map((m) => MODE_NAMES[m]).join(', ');
  throw new LlmError(`${request.what}: ${provider.name} model "${provider.model}" gave no valid answer by any of ${tried}: ${failures.join(' | ')}`);
}
