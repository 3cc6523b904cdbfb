/**
 * The chunks format: a page's Markdown in pieces of at most a token budget, for
 * retrieval and for agents that read a page a piece at a time.
 *
 * - Chunks follow the page's sections: a heading starts a new chunk (headings that
 *   follow one another with nothing between stay together), and a section larger
 *   than the budget goes on in the next chunk.
 * - A block (paragraph, list item, table, code block, quote) is never split, unless
 *   it alone is larger than the budget: then it is split at sentence boundaries, a
 *   table between rows and code between lines (split.ts).
 * - Every block is in exactly one chunk, in order; a chunk of whole blocks is the
 *   slice of the Markdown they span, as written.
 * - `headings` is the path of headings the chunk's content sits under, outermost
 *   first; `tokens` is its text's length in o200k_base tokens (tokens.ts).
 */
import type { Chunk } from '../api/types.js';
import { blocksOf, type Block } from './blocks.js';
import { splitBlock } from './split.js';
import type { CountTokens } from './tokens.js';

/** A chunk being filled: its text and where its last whole block ended in the Markdown (undefined after a piece). */
interface Open {
  text: string;
  lastEnd: number | undefined;
  headings: string[];
  /** Only headings so far: the next heading joins it instead of starting a chunk. */
  headingsOnly: boolean;
}

export function chunkMarkdown(markdown: string, budget: number, count: CountTokens): Chunk[] {
  const chunks: Chunk[] = [];
  const path: { level: number; title: string }[] = [];
  let open: Open | undefined;
  const flush = () => {
    if (open) chunks.push({ index: chunks.length, text: open.text, headings: open.headings, tokens: count(open.text) });
    open = undefined;
  };
  const titles = () => path.map((h) => h.title);
  /** The chunk's text with `text` added: the whitespace between two whole blocks as written, else a blank line. */
  const joined = (text: string, block: Block | undefined) => {
    if (!open) return text;
    const between = block && open.lastEnd !== undefined ? markdown.slice(open.lastEnd, block.start) : '\n\n';
    return `${open.text}${between}${text}`;
  };
  /** Adds a whole block or a piece of one; false when it does not fit in the open chunk. */
  const add = (text: string, block: Block | undefined, heading: boolean): boolean => {
    const next = joined(text, block);
    if (open && count(next) > budget) return false;
    open = open ? { ...open, text: next } : { text, lastEnd: undefined, headings: titles(), headingsOnly: heading };
    open.lastEnd = block?.end;
    if (heading) open.headings = titles();
    else open.headingsOnly = false;
    return true;
  };

  for (const block of blocksOf(markdown)) {
    if (block.kind === 'heading') {
      while (path.length > 0 && path.at(-1)!.level >= block.level!) path.pop();
      path.push({ level: block.level!, title: block.title! });
      if (open && !open.headingsOnly) flush();
    }
    const heading = block.kind === 'heading';
    const pieces = count(block.text) <= budget ? [block.text] : splitBlock(block, budget, count);
    const whole = pieces.length === 1 && pieces[0] === block.text ? block : undefined;
    for (const piece of pieces) {
      if (add(piece, whole, heading)) continue;
      flush();
      add(piece, whole, heading);
    }
  }
  flush();
  return chunks;
}
