/**
 * The one place webjobs talks to Claude: a forced tool call over the Messages API.
 * The SDK retries 408/409/429/5xx/529 (overloaded), connection errors and timeouts
 * with backoff, honouring retry-after; we only set how many times and how long.
 * What is still failing after that becomes an LlmError with the status and the
 * API's own message, which ends up in the job's `error`.
 */
import Anthropic, { APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { Message, MessageParam, Tool, ToolUseBlock } from '@anthropic-ai/sdk/resources/messages/messages.js';
import { ConfigError } from '../../api/errors.js';
import { DEFAULT_MODEL } from './defaults.js';

export { DEFAULT_MODEL };
const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_TIMEOUT_MS = 120_000;
/** Room for large answers (long product lists) without requiring streaming. */
const MAX_OUTPUT_TOKENS = 8192;

export class LlmError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LlmError';
  }
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ToolCall {
  system: string;
  messages: MessageParam[];
  tool: Tool;
}

export interface LlmSettings {
  apiKey: string;
  baseURL?: string;
  model: string;
  maxRetries: number;
  timeoutMs: number;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  return n;
}

/** Throws the ConfigError that refuses an extract job when no key is configured. */
export function requireApiKey(env: NodeJS.ProcessEnv): string {
  const key = env.ANTHROPIC_API_KEY?.trim();
  if (!key) {
    throw new ConfigError('extract needs an Anthropic API key: set ANTHROPIC_API_KEY (get one at https://console.anthropic.com/)');
  }
  return key;
}

export function llmSettings(env: NodeJS.ProcessEnv, model?: string): LlmSettings {
  return {
    apiKey: requireApiKey(env),
    baseURL: env.ANTHROPIC_BASE_URL?.trim() || undefined,
    model: model ?? (env.WEBJOBS_MODEL?.trim() || DEFAULT_MODEL),
    maxRetries: positiveInt(env, 'WEBJOBS_LLM_MAX_RETRIES', DEFAULT_MAX_RETRIES),
    timeoutMs: positiveInt(env, 'WEBJOBS_LLM_TIMEOUT_MS', DEFAULT_TIMEOUT_MS),
  };
}

export function describeApiError(err: unknown, settings: LlmSettings): string {
  const retries = `after ${settings.maxRetries + 1} attempts`;
  if (err instanceof APIConnectionTimeoutError) {
    return `the Anthropic API did not answer within ${settings.timeoutMs} ms (${retries}; raise WEBJOBS_LLM_TIMEOUT_MS)`;
  }
  if (err instanceof APIError && err.status !== undefined) {
    const type = err.type ? ` ${err.type}` : '';
    const text = err.apiMessage ?? err.message;
    if (err.status === 401) return `the Anthropic API refused the key (401${type}: ${text}); check ANTHROPIC_API_KEY`;
    if (err.status === 404) return `the Anthropic API does not know model "${settings.model}" (404${type}: ${text}); pick another with --model or WEBJOBS_MODEL`;
    const retried = err.status === 429 || err.status >= 500 ? ` ${retries}` : '';
    return `the Anthropic API answered ${err.status}${type}: ${text}${retried}`;
  }
  if (err instanceof APIError) return `could not reach the Anthropic API at ${settings.baseURL ?? 'https://api.anthropic.com'} (${retries}): ${err.message}`;
  return (err as Error).message ?? String(err);
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

/** A Messages API answer as far as webjobs reads it: content blocks that are objects with a type. */
function isMessage(value: unknown): value is Message {
  const content = (value as Message | null)?.content;
  return typeof value === 'object' && value !== null && Array.isArray(content) && content.every((b) => typeof b === 'object' && b !== null && typeof b.type === 'string');
}

export class LlmClient {
  private readonly client: Anthropic;
  readonly usage: Usage = { inputTokens: 0, outputTokens: 0 };

  constructor(readonly settings: LlmSettings) {
    // baseURL and apiKey are passed explicitly so that the job's environment (not
    // whatever this process inherited) decides where requests go.
    this.client = new Anthropic({
      apiKey: settings.apiKey,
      baseURL: settings.baseURL ?? null,
      maxRetries: settings.maxRetries,
      timeout: settings.timeoutMs,
    });
  }

  /**
   * One request that must answer with a call of `call.tool`. Returns that tool_use
   * block and the assistant turn, so the caller can reply with a tool_result.
   */
  async callTool(call: ToolCall, signal?: AbortSignal): Promise<{ toolUse: ToolUseBlock | undefined; assistant: MessageParam }> {
    let message: unknown;
    try {
      message = await this.client.messages.create(
        {
          model: this.settings.model,
          max_tokens: MAX_OUTPUT_TOKENS,
          system: call.system,
          messages: call.messages,
          tools: [call.tool],
          tool_choice: { type: 'tool', name: call.tool.name },
        },
        { signal },
      );
    } catch (err) {
      if (err instanceof APIUserAbortError || signal?.aborted) throw signal?.reason ?? err;
      throw new LlmError(describeApiError(err, this.settings));
    }
    // A gateway's page, or JSON of another shape: the SDK hands either over as it came.
    if (!isMessage(message)) throw new LlmError(`the Anthropic API answered with something that is not a message: ${excerpt(message)}`);
    this.usage.inputTokens += message.usage?.input_tokens ?? 0;
    this.usage.outputTokens += message.usage?.output_tokens ?? 0;
    const toolUse = message.content.find((b): b is ToolUseBlock => b.type === 'tool_use' && b.name === call.tool.name);
    return { toolUse, assistant: { role: 'assistant', content: message.content as MessageParam['content'] } };
  }
}
