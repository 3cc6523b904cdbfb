/**
 * The text of a PDF put back together from pdf.js's text items: lines (items on
 * one baseline) and paragraphs (lines of one size, close together); a line in a
 * larger type than the body's, or one the document's outline names, becomes a
 * heading, the largest sizes the highest levels. Pages are divided by a thematic
 * break (---). Pure and linear in the size of the text: lines and paragraphs are
 * gathered as parts and joined once (a string tested or grown at its end on every
 * line is read whole each time: quadratic, minutes for a page of tiny lines).
 */

/** What the layout needs of a pdf.js TextItem. */
export interface PdfTextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL?: boolean;
}

export interface PdfLine {
  text: string;
  /** Type size: the tallest item of the line. */
  size: number;
  /** Baseline, from the bottom of the page. */
  y: number;
}

type Block = { kind: 'heading'; level: number; text: string } | { kind: 'paragraph'; text: string } | { kind: 'page' };

export interface PdfLayout {
  markdown: string;
  html: string;
  /** The first heading's text, the title of a document that declares none. */
  firstHeading?: string;
}

/** Larger than the body's size by this much: a heading. */
const HEADING_RATIO = 1.15;
/** A gap between two lines of more than this many line heights starts a new paragraph. */
const PARAGRAPH_GAP = 1.6;
/** A word broken across lines with a hyphen: the line before ends so, the next starts with a small letter. */
const HYPHEN_END = /[a-z]-$/;
const SMALL_START = /^[a-z]/;

/** The page's text items as lines, in reading order (top to bottom, as pdf.js gives them). */
export function linesOf(items: readonly PdfTextItem[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let parts: string[] = [];
  let size = 0;
  let y = 0;
  let end = 0;
  /** The last character of the line so far (a space ends a part or starts the next). */
  let last = '';
  let broke = false;
  const close = () => {
    const text = parts.join('').replace(/\s+/g, ' ').trim();
    if (text !== '') lines.push({ text, size: Math.round(size * 10) / 10, y });
    parts = [];
  };
  for (const item of items) {
    const itemSize = Math.hypot(item.transform[2] ?? 0, item.transform[3] ?? 0) || item.height;
    const x = item.transform[4] ?? 0;
    const itemY = item.transform[5] ?? 0;
    if (item.str === '') {
      broke ||= Boolean(item.hasEOL);
      continue;
    }
    const sameLine = parts.length > 0 && !broke && Math.abs(y - itemY) < Math.max(size, itemSize) * 0.5;
    if (sameLine) {
      const spaced = last === ' ' || item.str.startsWith(' ') || x - end < itemSize * 0.15;
      if (!spaced) parts.push(' ');
      parts.push(item.str);
      size = Math.max(size, itemSize);
    } else {
      if (parts.length > 0) close();
      parts.push(item.str);
      size = itemSize;
      y = itemY;
    }
    end = x + item.width;
    last = item.str.at(-1)!;
    broke = Boolean(item.hasEOL);
  }
  if (parts.length > 0) close();
  return lines;
}

/** The size most of the text is set in. */
function bodySize(pages: readonly PdfLine[][]): number {
  const weight = new Map<number, number>();
  for (const lines of pages) for (const line of lines) weight.set(line.size, (weight.get(line.size) ?? 0) + line.text.length);
  let best = 0;
  let bestWeight = -1;
  for (const [size, w] of weight) if (w > bestWeight) [best, bestWeight] = [size, w];
  return best;
}

/** Heading level by type size: the sizes larger than the body's, the largest first (level 1), at most 6. */
function headingLevels(pages: readonly PdfLine[][]): Map<number, number> {
  const body = bodySize(pages);
  const sizes = new Set<number>();
  for (const lines of pages) for (const line of lines) if (line.size >= body * HEADING_RATIO) sizes.add(line.size);
  return new Map([...sizes].sort((a, b) => b - a).map((size, i) => [size, Math.min(i + 1, 6)]));
}

function blocksOf(pages: readonly PdfLine[][], outline: ReadonlyMap<string, number>): Block[] {
  const levels = headingLevels(pages);
  const blocks: Block[] = [];
  pages.forEach((lines, index) => {
    if (index > 0) blocks.push({ kind: 'page' });
    let paragraph: { parts: string[]; lastLine: string; size: number; y: number } | undefined;
    const flush = () => {
      if (paragraph) blocks.push({ kind: 'paragraph', text: paragraph.parts.join('') });
      paragraph = undefined;
    };
    for (const line of lines) {
      const level = outline.get(line.text) ?? levels.get(line.size);
      if (level !== undefined) {
        flush();
        blocks.push({ kind: 'heading', level, text: line.text });
        continue;
      }
      const continues = paragraph && paragraph.size === line.size && paragraph.y - line.y <= line.size * PARAGRAPH_GAP && paragraph.y > line.y;
      if (paragraph && continues) {
        // A word broken across lines with a hyphen is one word again. The paragraph ends as its last line does.
        if (HYPHEN_END.test(paragraph.lastLine) && SMALL_START.test(line.text)) {
          const parts = paragraph.parts;
          parts[parts.length - 1] = parts[parts.length - 1]!.slice(0, -1);
        } else {
          paragraph.parts.push(' ');
        }
        paragraph.parts.push(line.text);
        paragraph.lastLine = line.text;
        paragraph.y = line.y;
      } else {
        flush();
        paragraph = { parts: [line.text], lastLine: line.text, size: line.size, y: line.y };
      }
    }
    flush();
  });
  return blocks;
}

/** Text that Markdown reads as text: its punctuation escaped, and line starts that would open a block. */
function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\`*_[\]<>]/g, '\\$&')
    .replace(/^(#{1,6}\s|[-+]\s|(\d+)[.)]\s)/, (m, _all, n: string | undefined) => (n !== undefined ? `${n}\\${m.slice(n.length)}` : `\\${m}`));
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The document's pages of lines as Markdown and HTML; `outline` gives the heading level of a line by its text. */
export function layoutPdf(pages: readonly PdfLine[][], outline: ReadonlyMap<string, number> = new Map()): PdfLayout {
  const blocks = blocksOf(pages, outline);
  const markdown = blocks.map((b) => (b.kind === 'page' ? '---' : b.kind === 'heading' ? `${'#'.repeat(b.level)} ${escapeMarkdown(b.text)}` : escapeMarkdown(b.text)));
  const html = blocks.map((b) => (b.kind === 'page' ? '<hr>' : b.kind === 'heading' ? `<h${b.level}>${escapeHtml(b.text)}</h${b.level}>` : `<p>${escapeHtml(b.text)}</p>`));
  const firstHeading = blocks.find((b): b is Extract<Block, { kind: 'heading' }> => b.kind === 'heading')?.text;
  return { markdown: markdown.join('\n\n'), html: html.join('\n'), ...(firstHeading !== undefined ? { firstHeading } : {}) };
}
