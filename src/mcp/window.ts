/**
 * How much one tool answer may hold: `maxChars` (characters of page content, RESULT_CHARS
 * unless given, MIN_CHARS to MAX_CHARS) and `maxTokens` (o200k_base tokens of the whole
 * answer text). A window too large for maxTokens is made again smaller until it fits; the
 * cursor then reads on from where it ends, as with maxChars.
 */
import { promises as fs } from 'node:fs';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tokenCounter } from '../agents/tokens.js';
import { LIMITS } from '../api/limits.js';
import type { JsonSchema } from '../api/requestSchema.js';
import { thousands } from '../api/thousands.js';

export interface WindowOptions {
  /** Characters of page content at most. */
  chars: number;
  /** The service's API key, to fetch a screenshot's URL with (--remote). */
  apiKey?: string;
}

export const MIN_CHARS = 100;
export const MAX_CHARS = 100_000;
/** A screenshot larger than this is named, not sent: about 1.3 MB of base64 in the answer. */
export const MAX_IMAGE_BYTES = 1_000_000;

/** The two arguments every tool that returns page content takes. */
export function windowArguments(defaultChars: number): Record<string, JsonSchema> {
  return {
    maxChars: { type: 'integer', minimum: MIN_CHARS, maximum: MAX_CHARS, description: `most characters of content in this answer (default ${thousands(defaultChars)}); a cursor reads on` },
    maxTokens: { type: 'integer', minimum: LIMITS.minTokens, maximum: LIMITS.maxTokens, description: 'most tokens (o200k_base) of this answer; a cursor reads on' },
  };
}

/** Takes maxChars and maxTokens out of a tool's arguments. */
export function takeWindow(args: Record<string, unknown>): { maxChars?: number; maxTokens?: number; rest: Record<string, unknown> } {
  const { maxChars, maxTokens, ...rest } = args;
  return { maxChars: maxChars as number | undefined, maxTokens: maxTokens as number | undefined, rest };
}

const textOf = (result: CallToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

/**
 * The answer `make` gives for a window of `maxChars` characters; with maxTokens, made again with fewer
 * characters until its text fits (a window always shows something, so the smallest may not).
 */
export async function sizedAnswer(make: (chars: number) => Promise<CallToolResult>, defaultChars: number, maxChars?: number, maxTokens?: number): Promise<CallToolResult> {
  let chars = maxChars ?? defaultChars;
  let answer = await make(chars);
  if (maxTokens === undefined) return answer;
  const count = await tokenCounter();
  for (let tokens = count(textOf(answer)); tokens > maxTokens && chars > 1; tokens = count(textOf(answer))) {
    chars = Math.max(1, Math.min(chars - 1, Math.floor((chars * maxTokens * 0.9) / tokens)));
    answer = await make(chars);
  }
  return answer;
}

function mimeOf(ref: string): string {
  if (/\.jpe?g(\?|$)/i.test(ref)) return 'image/jpeg';
  if (/\.webp(\?|$)/i.test(ref)) return 'image/webp';
  return 'image/png';
}

/** A screenshot as MCP image content: the file of a local job, or the URL of a service's (fetched with its key). */
export async function imageContent(ref: string, options: WindowOptions): Promise<CallToolResult['content'][number]> {
  try {
    let bytes: Uint8Array;
    if (/^https?:\/\//.test(ref)) {
      const response = await fetch(ref, { headers: options.apiKey ? { 'x-api-key': options.apiKey } : {} });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      bytes = new Uint8Array(await response.arrayBuffer());
    } else bytes = await fs.readFile(ref);
    if (bytes.byteLength > MAX_IMAGE_BYTES) {
      return { type: 'text', text: `The screenshot (${thousands(bytes.byteLength)} bytes) is larger than ${thousands(MAX_IMAGE_BYTES)} bytes, the most an answer carries: it is at ${ref}` };
    }
    return { type: 'image', data: Buffer.from(bytes).toString('base64'), mimeType: mimeOf(ref) };
  } catch (err) {
    return { type: 'text', text: `The screenshot could not be read (${(err as Error).message}): it is at ${ref}` };
  }
}
