/**
 * A page's Markdown as its blocks, in order: headings, paragraphs, list items, tables,
 * code blocks, quotes, rules. Chunks and token budgets never cut inside a block; each
 * block keeps its place in the Markdown (`start`, `end`), so that a run of blocks is
 * a slice of the Markdown as it was written (a tight list stays tight).
 *
 * Read as webjobs writes Markdown (ATX headings, fenced code, `-` bullets, GFM
 * tables), and as most Markdown is written: a list item holds its indented lines
 * (nested items too); a fence holds everything up to its closing fence.
 */

export type BlockKind = 'heading' | 'paragraph' | 'listItem' | 'table' | 'code' | 'quote' | 'rule';

export interface Block {
  kind: BlockKind;
  /** The block's Markdown: markdown.slice(start, end). */
  text: string;
  start: number;
  end: number;
  /** Headings: 1 to 6. */
  level?: number;
  /** Headings: the heading's text, without its #s. */
  title?: string;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const RULE = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const TABLE_ROW = /^ {0,3}\|/;
const QUOTE = /^ {0,3}>/;
const BLANK = /^[ \t]*$/;

interface Line {
  text: string;
  start: number;
  end: number;
}

function linesOf(markdown: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const newline = markdown.indexOf('\n', start);
    const end = newline === -1 ? markdown.length : newline;
    lines.push({ text: markdown.slice(start, end).replace(/\r$/, ''), start, end });
    if (newline === -1) return lines;
    start = newline + 1;
  }
}

/** How far a line is indented, tabs as 4 columns. */
function indentOf(line: string): number {
  let width = 0;
  for (const c of line) {
    if (c === ' ') width++;
    else if (c === '\t') width += 4 - (width % 4);
    else break;
  }
  return width;
}

/** The line after the last of the block that starts at line `i`, and its kind. */
function blockAt(lines: Line[], i: number): { kind: BlockKind; next: number } {
  const first = lines[i]!.text;
  const fence = FENCE.exec(first);
  if (fence) {
    const mark = fence[1]!;
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^ {0,3}${mark[0]}{${mark.length},}[ \\t]*$`).test(lines[j]!.text)) j++;
    return { kind: 'code', next: Math.min(j + 1, lines.length) };
  }
  if (HEADING.test(first)) return { kind: 'heading', next: i + 1 };
  if (RULE.test(first)) return { kind: 'rule', next: i + 1 };
  const run = (test: (line: string) => boolean) => {
    let j = i + 1;
    while (j < lines.length && test(lines[j]!.text)) j++;
    return j;
  };
  if (TABLE_ROW.test(first)) return { kind: 'table', next: run((line) => TABLE_ROW.test(line)) };
  if (QUOTE.test(first)) return { kind: 'quote', next: run((line) => !BLANK.test(line)) };
  if (LIST_ITEM.test(first)) {
    // The item holds what is indented under it, blank lines between included, and its lazy continuation lines.
    const base = indentOf(first);
    let j = i + 1;
    let inFence: string | undefined;
    while (j < lines.length) {
      const line = lines[j]!.text;
      if (inFence) {
        if (line.trim().startsWith(inFence)) inFence = undefined;
        j++;
        continue;
      }
      if (BLANK.test(line)) {
        let k = j + 1;
        while (k < lines.length && BLANK.test(lines[k]!.text)) k++;
        if (k < lines.length && indentOf(lines[k]!.text) > base && !BLANK.test(lines[k]!.text)) {
          j = k;
          continue;
        }
        break;
      }
      const deeper = indentOf(line) > base;
      if (!deeper && (LIST_ITEM.test(line) || HEADING.test(line) || FENCE.test(line) || TABLE_ROW.test(line) || QUOTE.test(line) || RULE.test(line))) break;
      const innerFence = FENCE.exec(line);
      if (deeper && innerFence) inFence = innerFence[1]!.slice(0, 3);
      j++;
    }
    return { kind: 'listItem', next: j };
  }
  return {
    kind: 'paragraph',
    next: run((line) => !BLANK.test(line) && !HEADING.test(line) && !FENCE.test(line) && !LIST_ITEM.test(line) && !RULE.test(line) && !QUOTE.test(line) && !TABLE_ROW.test(line)),
  };
}

/** The blocks of `markdown`, in order; blank lines between them belong to none. */
export function blocksOf(markdown: string): Block[] {
  const lines = linesOf(markdown);
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    if (BLANK.test(lines[i]!.text)) {
      i++;
      continue;
    }
    const { kind, next } = blockAt(lines, i);
    // A block ends at its last line that is not blank (an item's trailing blank lines are between blocks).
    let last = next - 1;
    while (last > i && BLANK.test(lines[last]!.text)) last--;
    const start = lines[i]!.start;
    const end = lines[last]!.end;
    const block: Block = { kind, text: markdown.slice(start, end), start, end };
    if (kind === 'heading') {
      const match = HEADING.exec(lines[i]!.text)!;
      block.level = match[1]!.length;
      block.title = (match[2] ?? '').trim();
    }
    blocks.push(block);
    i = next;
  }
  return blocks;
}
