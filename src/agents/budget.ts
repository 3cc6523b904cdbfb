/**
 * A token budget on a page's Markdown (`maxTokens`, `--max-tokens`): the Markdown is
 * cut after the last whole block that fits. A page whose first block alone is
 * larger keeps the first piece of it that fits (split.ts), so that a cut page is
 * never empty.
 */
import { blocksOf } from './blocks.js';
import { splitBlock } from './split.js';
import type { CountTokens } from './tokens.js';

export interface Cut {
  markdown: string;
  /** Whether anything was cut. */
  truncated: boolean;
}

export function cutMarkdown(markdown: string, maxTokens: number, count: CountTokens): Cut {
  if (count(markdown) <= maxTokens) return { markdown, truncated: false };
  const blocks = blocksOf(markdown);
  // The most blocks whose slice fits: a prefix grows with each block, so a binary search finds it.
  let low = 0;
  let high = blocks.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (count(markdown.slice(0, blocks[mid - 1]!.end)) <= maxTokens) low = mid;
    else high = mid - 1;
  }
  if (low > 0) return { markdown: markdown.slice(0, blocks[low - 1]!.end), truncated: true };
  return { markdown: blocks.length > 0 ? splitBlock(blocks[0]!, maxTokens, count)[0]! : '', truncated: true };
}
