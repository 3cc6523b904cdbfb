/**
 * The text a reader sees in Markdown, for scoring: the Markdown is parsed
 * (CommonMark, by commonmark.js) and the text is read off the parse tree, so
 * escapes, emphasis, entities and nesting come out as a renderer would show them.
 *
 * - Text, inline code and code blocks are kept; soft breaks become spaces, hard
 *   breaks newlines, and blocks (paragraphs, headings, items...) are separated by
 *   a blank line, as in WCXB's ground truth.
 * - Link text is kept, link destinations and titles are not text.
 * - Images go entirely, alt text included: alt text is not shown on the page
 *   (Readability's textContent, which published figures score, has none either).
 * - Raw HTML (html_inline, html_block) is kept verbatim. Both producers scored
 *   here are turndown without `keep` rules, which never writes HTML tags but does
 *   not escape `<` either: anything that parses as HTML in their output is page
 *   text, such as `<div>` in a tutorial's prose, so it is what the reader saw.
 * - GFM tables: commonmark.js has no tables, so a table arrives as a paragraph
 *   of pipe-separated lines. Such a paragraph is split into cells the way GFM does
 *   (at unescaped pipes), each cell parsed as Markdown; the delimiter row goes,
 *   cells are joined by tabs and rows by newlines (WCXB's ground truth does the same).
 */
import { Parser, type Node } from 'commonmark';

/** Whether the Markdown opens with a level-1 heading: the page's headline (main content opens with it). */
export const opensWithHeadline = (markdown: string) => /^# \S/.test(markdown);

/**
 * The Markdown without its first line when that line is the headline. The truths of both sets leave the
 * title out, and the peers give it apart from the text (Readability's title): scored with it, webjobs would
 * lose precision for a line every reader expects.
 */
export function withoutHeadline(markdown: string): string {
  return opensWithHeadline(markdown) ? markdown.replace(/^[^\n]*\n?/, '') : markdown;
}

export function readerText(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: string[] = [];
  collectBlocks(new Parser().parse(lines.join('\n')), lines, blocks);
  return blocks.filter((block) => block.trim() !== '').join('\n\n');
}

/** Appends the text of every leaf block under `node` to `out`, in order. */
function collectBlocks(node: Node, source: string[], out: string[]): void {
  switch (node.type) {
    case 'paragraph':
      out.push(tableText(node, source) ?? tidy(inlineText(node)));
      return;
    case 'heading':
      out.push(tidy(inlineText(node)));
      return;
    case 'code_block':
    case 'html_block':
      // Verbatim, indentation included: it is shown as written.
      out.push((node.literal ?? '').replace(/\n+$/, ''));
      return;
    case 'thematic_break':
      return;
    default:
      for (let child = node.firstChild; child; child = child.next) collectBlocks(child, source, out);
  }
}

function inlineText(node: Node): string {
  let text = '';
  for (let child = node.firstChild; child; child = child.next) text += inlinePiece(child);
  return text;
}

function inlinePiece(node: Node): string {
  switch (node.type) {
    case 'text':
    case 'code':
    case 'html_inline':
      return node.literal ?? '';
    case 'softbreak':
      return ' ';
    case 'linebreak':
      return '\n';
    case 'image':
      return '';
    default:
      // emph, strong, link: their children are the text; a link's destination is not a child.
      return inlineText(node);
  }
}

/** Prose as shown: runs of spaces collapse, lines lose outer spaces, line structure stays. */
function tidy(block: string): string {
  return block
    .split('\n')
    .map((line) => line.replace(/[ \u00a0]+$/, '').replace(/^ +/, '').replace(/ {2,}/g, ' '))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const DELIMITER_CELL = /^\s*:?-+:?\s*$/;

/**
 * The text of a paragraph that is a GFM table (header row, then a delimiter row),
 * or undefined when it is not one. Works on the paragraph's source lines because
 * the parse has already turned escaped pipes into plain ones.
 */
function tableText(paragraph: Node, source: string[]): string | undefined {
  const rows = paragraphSource(paragraph, source);
  if (rows.length < 2 || !rows[1]!.includes('|')) return undefined;
  const delimiter = splitCells(rows[1]!);
  if (!delimiter.every((cell) => DELIMITER_CELL.test(cell))) return undefined;
  return [rows[0]!, ...rows.slice(2)]
    .map((row) =>
      splitCells(row)
        .map((cell) => readerText(inlineOnly(cell)).replace(/\s+/g, ' '))
        .filter((cell) => cell !== '')
        .join('\t'),
    )
    .join('\n');
}

/**
 * A GFM cell holds inline content only, but parsed alone `1. x` would be a list
 * and `# x` a heading, losing `1` or `#`: a backslash before the marker keeps it text.
 */
function inlineOnly(cell: string): string {
  return cell
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2') // ordered list item
    .replace(/^([-+*])(?=\s|$)/, '\\$1') // bullet list item
    .replace(/^([-*_])(?=(?:\s*\1){2,}\s*$)/, '\\$1') // thematic break
    .replace(/^(#{1,6})(?=\s|$)/, '\\$1') // ATX heading
    .replace(/^(>|`{3,}|~{3,})/, '\\$1'); // block quote, code fence
}

/**
 * A paragraph's own source lines, without the prefixes of the containers it sits in
 * (list indentation, `> `): each line is cut at the paragraph's first column.
 */
function paragraphSource(paragraph: Node, source: string[]): string[] {
  const [[startLine, startColumn], [endLine]] = paragraph.sourcepos;
  return source.slice(startLine - 1, endLine).map((line) => line.slice(startColumn - 1));
}

/**
 * A table row's cells: split at pipes not escaped by a backslash, as GFM does
 * (even inside code spans); the optional outer pipes open and close the row.
 */
export function splitCells(row: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < row.length; i++) {
    const ch = row[i]!;
    if (ch === '\\' && i + 1 < row.length) {
      cell += ch + row[i + 1]!;
      i++;
    } else if (ch === '|') {
      cells.push(cell);
      cell = '';
    } else {
      cell += ch;
    }
  }
  cells.push(cell);
  const trimmed = row.trim();
  if (trimmed.startsWith('|')) cells.shift();
  if (trimmed.endsWith('|') && !trimmed.endsWith('\\|') && cells.length > 0) cells.pop();
  return cells.map((c) => c.trim());
}
