/**
 * What the extract engine needs of a model server, whichever it is: a
 * conversation that asks for one structured answer in a given way (an output
 * mode) and takes corrections. Validation, retries and the fallback from one
 * mode to the next live once, in ../structured.ts; a provider only speaks its
 * API (./anthropic.ts, ./openai.ts).
 */
import type { ModelProviderName as ProviderName } from '../../../api/types.js';

/** A JSON Schema object (checked by ../schema.ts). */
type JsonSchema = Record<string, unknown>;

/**
 * How a model can be made to answer in JSON, in the order they are tried:
 * a forced tool (function) call; `response_format` with a JSON Schema; JSON
 * written in the text of the answer.
 */
export type OutputMode = 'tool' | 'json_schema' | 'text';

/** The tool the model must call; in the other modes its input schema is the answer's schema. */
export interface ToolSpec {
  name: string;
  description: string;
  /** A JSON Schema whose top level is an object. */
  inputSchema: JsonSchema;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ConversationStart {
  system: string;
  /** The user turn: pages, instructions, and how to answer in this mode. */
  content: string;
  tool: ToolSpec;
}

/** One answer of the model, as the API gave it. */
export type ModelReply =
  /** A call of the tool; `input` as the API parsed it (an object when all is well). */
  | { kind: 'tool'; input: unknown }
  /** A call of the tool whose arguments are not JSON (APIs that pass them as a string). */
  | { kind: 'toolUnparsable'; arguments: string; problem: string }
  /** Text, and no tool call. */
  | { kind: 'text'; text: string };

export interface Conversation {
  /** One model call. Throws ModeRefusedError when the server will not answer in this conversation's mode. */
  ask(signal?: AbortSignal): Promise<ModelReply>;
  /** Answers the model's last reply with `feedback` (as the tool's error result when it called the tool). */
  correct(feedback: string): void;
}

export interface ModelProvider {
  /** "anthropic" or "openai": what --provider names. */
  readonly name: ProviderName;
  readonly model: string;
  /** The modes this provider offers, in the order to try them. */
  readonly modes: readonly OutputMode[];
  /** Tokens spent by every call so far. */
  readonly usage: Usage;
  /** Modes the server refused during this job, with its reason: not asked again. */
  readonly refused: Map<OutputMode, string>;
  start(mode: OutputMode, start: ConversationStart): Conversation;
}

/** How one job reaches its model: see ../llm.ts for where each value comes from. */
export interface LlmSettings {
  provider: ProviderName;
  apiKey: string;
  baseURL?: string;
  model: string;
  maxRetries: number;
  timeoutMs: number;
}

export { MODEL_PROVIDERS as PROVIDER_NAMES, type ModelProviderName as ProviderName } from '../../../api/types.js';

/** The server refused a request for its mode (tools or response_format not supported): the next mode is tried. */
export class ModeRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModeRefusedError';
  }
}

/** A model call that failed after the SDK's retries, or an answer that could not be used: the job fails with it. */
export class LlmError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LlmError';
  }
}

/** Characters of a reply quoted in an error: enough to recognise it, not a page of it. */
const EXCERPT_CHARS = 200;

/** What the API or the model returned, in one line of at most EXCERPT_CHARS, control characters escaped, for an error message. */
export function excerpt(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  const line = text.replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}… (${line.length} characters)` : line;
}
