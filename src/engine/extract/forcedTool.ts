/**
 * The validate-and-retry loop around a forced tool call. The API makes the model
 * call the tool, but does not guarantee the input matches the schema; ajv does.
 * A wrong answer goes back to the model as an error tool_result listing the
 * problems, a bounded number of times; after that the caller gets an error, never
 * the unvalidated input.
 */
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages.js';
import { excerpt, LlmError, type LlmClient } from './llm.js';

/** First answer plus two corrections: most fixable mistakes are fixed by the second. */
export const MAX_ATTEMPTS = 3;

export interface ForcedToolRequest<T> {
  system: string;
  /** The user turn: pages and instructions. */
  content: string;
  tool: Tool;
  /** Problems with the tool input, empty when it is acceptable; then `accept` turns it into the result. */
  check(input: unknown): string[];
  accept(input: unknown): T;
  /** What the answer is, for error messages: "the extracted data", "the generated schema". */
  what: string;
}

export async function askWithTool<T>(llm: LlmClient, request: ForcedToolRequest<T>, signal?: AbortSignal): Promise<T> {
  const messages: MessageParam[] = [{ role: 'user', content: request.content }];
  let problems: string[] = [];
  let answer: unknown;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const { toolUse, assistant } = await llm.callTool({ system: request.system, messages, tool: request.tool }, signal);
    if (!toolUse) {
      answer = textOf(assistant);
      problems = [`the model answered without calling the ${request.tool.name} tool`];
      messages.push(assistant, { role: 'user', content: `Call the ${request.tool.name} tool with your answer.` });
      continue;
    }
    answer = toolUse.input;
    // A tool input is a JSON object; a string (JSON the model wrote as text, cut short) or null is not,
    // and the API would refuse it sent back in the conversation: nothing to correct, the call failed.
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
      throw new LlmError(`${request.what} could not be read: the model called ${request.tool.name} with something that is not a JSON object: ${excerpt(answer)}`);
    }
    problems = request.check(answer);
    if (problems.length === 0) return request.accept(toolUse.input);
    messages.push(assistant, {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: toolUse.id,
          is_error: true,
          content:
            `The input does not match the tool's input schema:\n${problems.map((p) => `- ${p}`).join('\n')}\n` +
            `Call ${request.tool.name} again with corrected input. Use only information from the pages.`,
        },
      ],
    });
  }
  throw new LlmError(
    `${request.what} did not match the schema after ${MAX_ATTEMPTS} attempts: ${problems.slice(0, 10).join('; ')}; the model's last answer: ${excerpt(answer)}`,
  );
}

/** The text blocks of an assistant turn: what a model that did not call the tool said instead. */
function textOf(assistant: MessageParam): string {
  if (typeof assistant.content === 'string') return assistant.content;
  return assistant.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}
