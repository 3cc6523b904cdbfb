/**
 * Claude over the Messages API: a forced tool call, the one output mode the API
 * needs (tool_choice makes the model call the tool).
 * The SDK retries 408/409/429/5xx/529 (overloaded), connection errors and timeouts
 * with backoff, honouring retry-after; we only set how many times and how long.
 * What is still failing after that becomes an LlmError with the status and the
 * API's own message, which ends up in the job's `error`.
 */
import Anthropic, { APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { Message, MessageParam, ToolUseBlock } from '@anthropic-ai/sdk/resources/messages/messages.js';
import { excerpt, LlmError, type LlmSettings, type Conversation, type ConversationStart, type ModelProvider, type ModelReply, type OutputMode, type Usage } from './provider.js';

/** Room for large answers (long product lists) without requiring streaming. */
const MAX_OUTPUT_TOKENS = 8192;

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

/** A Messages API answer as far as webjobs reads it: content blocks that are objects with a type. */
function isMessage(value: unknown): value is Message {
  const content = (value as Message | null)?.content;
  return typeof value === 'object' && value !== null && Array.isArray(content) && content.every((b) => typeof b === 'object' && b !== null && typeof b.type === 'string');
}

export class AnthropicProvider implements ModelProvider {
  readonly name = 'anthropic';
  readonly modes: readonly OutputMode[] = ['tool'];
  readonly usage: Usage = { inputTokens: 0, outputTokens: 0 };
  readonly refused = new Map<OutputMode, string>();
  private readonly client: Anthropic;

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

  get model(): string {
    return this.settings.model;
  }

  start(_mode: OutputMode, start: ConversationStart): Conversation {
    const messages: MessageParam[] = [{ role: 'user', content: start.content }];
    const tool = { name: start.tool.name, description: start.tool.description, input_schema: start.tool.inputSchema as { type: 'object' } };
    let last: { assistant: MessageParam; toolUse?: ToolUseBlock } | undefined;
    return {
      ask: async (signal) => {
        const message = await this.create({ system: start.system, messages, tool }, signal);
        const toolUse = message.content.find((b): b is ToolUseBlock => b.type === 'tool_use' && b.name === tool.name);
        last = { assistant: { role: 'assistant', content: message.content as MessageParam['content'] }, toolUse };
        if (toolUse) return { kind: 'tool', input: toolUse.input } satisfies ModelReply;
        return { kind: 'text', text: message.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n') };
      },
      correct: (feedback) => {
        if (!last) return;
        const reply: MessageParam = last.toolUse
          ? { role: 'user', content: [{ type: 'tool_result', tool_use_id: last.toolUse.id, is_error: true, content: feedback }] }
          : { role: 'user', content: feedback };
        messages.push(last.assistant, reply);
        last = undefined;
      },
    };
  }

  private async create(call: { system: string; messages: MessageParam[]; tool: Anthropic.Tool }, signal?: AbortSignal): Promise<Message> {
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
    return message;
  }
}
