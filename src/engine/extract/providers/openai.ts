/**
 * Any server that speaks OpenAI's Chat Completions API (OpenAI, Ollama, vLLM,
 * LM Studio, LiteLLM), through the official SDK, configured as it is:
 * OPENAI_API_KEY and OPENAI_BASE_URL. It offers the three output modes; a
 * server that answers 400 (or 422) to a request with `tools` or
 * `response_format` does not support them, which ModeRefusedError says to the
 * caller, who tries the next mode.
 * The SDK retries 408/409/429/5xx, connection errors and timeouts; what still
 * fails becomes an LlmError with the status and the server's own message.
 */
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions.js';
import { excerpt, LlmError, type LlmSettings, ModeRefusedError, type Conversation, type ConversationStart, type ModelProvider, type ModelReply, type OutputMode, type Usage } from './provider.js';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

function describeApiError(err: unknown, settings: LlmSettings): string {
  const server = `the Chat Completions API at ${settings.baseURL ?? DEFAULT_BASE_URL}`;
  const retries = `after ${settings.maxRetries + 1} attempts`;
  if (err instanceof APIConnectionTimeoutError) return `${server} did not answer within ${settings.timeoutMs} ms (${retries}; raise WEBJOBS_LLM_TIMEOUT_MS)`;
  if (err instanceof APIError && err.status !== undefined) {
    const text = serverMessage(err);
    if (err.status === 401) return `${server} refused the key (401: ${text}); check OPENAI_API_KEY`;
    if (err.status === 404) return `${server} does not know model "${settings.model}" (404: ${text}); pick another with --model`;
    const retried = err.status === 429 || err.status >= 500 ? ` ${retries}` : '';
    return `${server} answered ${err.status}: ${text}${retried}`;
  }
  if (err instanceof APIError) return `could not reach ${server} (${retries}): ${err.message}`;
  return (err as Error).message ?? String(err);
}

/** The server's own words: `error.message` of the body when it has one (OpenAI, vLLM, LiteLLM), else the SDK's line. */
function serverMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | string | undefined;
  if (typeof body === 'string') return body;
  return typeof body?.message === 'string' ? body.message : err.message;
}

function isCompletion(value: unknown): value is ChatCompletion {
  const choices = (value as ChatCompletion | null)?.choices;
  return typeof value === 'object' && value !== null && Array.isArray(choices) && typeof choices[0]?.message === 'object' && choices[0]?.message !== null;
}

/** What each mode adds to a request. */
function modeParams(mode: OutputMode, start: ConversationStart): Partial<ChatCompletionCreateParamsNonStreaming> {
  const { tool } = start;
  if (mode === 'tool') {
    return {
      tools: [{ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }],
      tool_choice: { type: 'function', function: { name: tool.name } },
    };
  }
  if (mode === 'json_schema') {
    // strict: false, because strict mode accepts only a subset of JSON Schema; ajv checks the answer anyway.
    return { response_format: { type: 'json_schema', json_schema: { name: tool.name, description: tool.description, schema: tool.inputSchema, strict: false } } };
  }
  return {};
}

export class OpenAiProvider implements ModelProvider {
  readonly name = 'openai';
  readonly modes: readonly OutputMode[] = ['tool', 'json_schema', 'text'];
  readonly usage: Usage = { inputTokens: 0, outputTokens: 0 };
  readonly refused = new Map<OutputMode, string>();
  private readonly client: OpenAI;

  constructor(readonly settings: LlmSettings) {
    // Passed explicitly so that the job's environment, not this process's, decides where requests go.
    this.client = new OpenAI({
      apiKey: settings.apiKey,
      baseURL: settings.baseURL ?? DEFAULT_BASE_URL,
      maxRetries: settings.maxRetries,
      timeout: settings.timeoutMs,
    });
  }

  get model(): string {
    return this.settings.model;
  }

  start(mode: OutputMode, start: ConversationStart): Conversation {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: start.system },
      { role: 'user', content: start.content },
    ];
    const params = modeParams(mode, start);
    let last: ChatCompletion.Choice['message'] | undefined;
    return {
      ask: async (signal) => {
        const completion = await this.create({ model: this.settings.model, messages, ...params }, mode, signal);
        const message = completion.choices[0]!.message;
        last = message;
        const call = message.tool_calls?.find((c) => c.type === 'function' && c.function.name === start.tool.name);
        if (call?.type === 'function') {
          try {
            return { kind: 'tool', input: JSON.parse(call.function.arguments) } satisfies ModelReply;
          } catch (err) {
            return { kind: 'toolUnparsable', arguments: call.function.arguments, problem: `the arguments of ${start.tool.name} are not valid JSON (${(err as Error).message})` };
          }
        }
        return { kind: 'text', text: message.content ?? '' };
      },
      correct: (feedback) => {
        if (!last) return;
        const calls = last.tool_calls ?? [];
        messages.push({ role: 'assistant', content: last.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
        // Every tool call of the turn needs its answer; the feedback goes to each.
        if (calls.length > 0) for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: feedback });
        else messages.push({ role: 'user', content: feedback });
        last = undefined;
      },
    };
  }

  private async create(body: ChatCompletionCreateParamsNonStreaming, mode: OutputMode, signal?: AbortSignal): Promise<ChatCompletion> {
    let completion: unknown;
    try {
      completion = await this.client.chat.completions.create(body, { signal });
    } catch (err) {
      if (err instanceof APIUserAbortError || signal?.aborted) throw signal?.reason ?? err;
      // A server without tool or response_format support refuses the request itself.
      if (mode !== 'text' && err instanceof APIError && (err.status === 400 || err.status === 422)) {
        throw new ModeRefusedError(`${err.status}: ${serverMessage(err)}`);
      }
      throw new LlmError(describeApiError(err, this.settings));
    }
    if (!isCompletion(completion)) {
      throw new LlmError(`the Chat Completions API at ${this.settings.baseURL ?? DEFAULT_BASE_URL} answered with something that is not a chat completion: ${excerpt(completion)}`);
    }
    this.usage.inputTokens += completion.usage?.prompt_tokens ?? 0;
    this.usage.outputTokens += completion.usage?.completion_tokens ?? 0;
    return completion;
  }
}
