/**
 * PDF documents as Markdown, read with Mozilla's pdf.js (its legacy build runs
 * on Node 20). The text of each page is put back into lines (items on one
 * baseline) and paragraphs (lines of one size, close together); a line in a
 * larger type than the body's, or one the document's outline names, becomes a
 * heading, the largest sizes the highest levels. Pages are divided by a
 * thematic break (---). Links are the document's link annotations.
 */
import { getDocument, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';

export interface PdfText {
  markdown: string;
  html: string;
  links: string[];
  title?: string;
  numPages: number;
}

interface Line {
  text: string;
  /** Type size: the tallest item of the line. */
  size: number;
  /** Baseline, from the bottom of the page. */
  y: number;
}

type Block = { kind: 'heading'; level: number; text: string } | { kind: 'paragraph'; text: string } | { kind: 'page' };

/** Larger than the body's size by this much: a heading. */
const HEADING_RATIO = 1.15;
/** A gap between two lines of more than this many line heights starts a new paragraph. */
const PARAGRAPH_GAP = 1.6;

function isTextItem(item: unknown): item is TextItem {
  return typeof (item as TextItem).str === 'string' && Array.isArray((item as TextItem).transform);
}

/** The page's text items as lines, in reading order (top to bottom, as pdf.js gives them). */
function linesOf(items: TextItem[]): Line[] {
  const lines: Line[] = [];
  let current: (Line & { end: number }) | undefined;
  let broke = false;
  for (const item of items) {
    const size = Math.hypot(item.transform[2] as number, item.transform[3] as number) || item.height;
    const x = item.transform[4] as number;
    const y = item.transform[5] as number;
    if (item.str === '') {
      broke ||= Boolean(item.hasEOL);
      continue;
    }
    const sameLine = current && !broke && Math.abs(current.y - y) < Math.max(current.size, size) * 0.5;
    if (current && sameLine) {
      const gap = x - current.end;
      const spaced = current.text.endsWith(' ') || item.str.startsWith(' ') || gap < size * 0.15;
      current.text += spaced ? item.str : ` ${item.str}`;
      current.size = Math.max(current.size, size);
      current.end = x + item.width;
    } else {
      if (current) lines.push(current);
      current = { text: item.str, size, y, end: x + item.width };
    }
    broke = Boolean(item.hasEOL);
  }
  if (current) lines.push(current);
  return lines.map(({ text, size, y }) => ({ text: text.replace(/\s+/g, ' ').trim(), size: Math.round(size * 10) / 10, y })).filter((l) => l.text !== '');
}

/** The size most of the text is set in. */
function bodySize(pages: Line[][]): number {
  const weight = new Map<number, number>();
  for (const line of pages.flat()) weight.set(line.size, (weight.get(line.size) ?? 0) + line.text.length);
  let best = 0;
  let bestWeight = -1;
  for (const [size, w] of weight) if (w > bestWeight) [best, bestWeight] = [size, w];
  return best;
}

/** Titles of the outline (bookmarks), by depth: a line with one of these texts is a heading of that level. */
async function outlineLevels(doc: PDFDocumentProxy): Promise<Map<string, number>> {
  const levels = new Map<string, number>();
  const walk = (items: { title: string; items: unknown[] }[] | null, depth: number) => {
    for (const item of items ?? []) {
      const title = item.title.replace(/\s+/g, ' ').trim();
      if (title && !levels.has(title)) levels.set(title, Math.min(depth, 6));
      walk(item.items as { title: string; items: unknown[] }[], depth + 1);
    }
  };
  walk(await doc.getOutline().catch(() => null), 1);
  return levels;
}

function blocksOf(pages: Line[][], outline: Map<string, number>): Block[] {
  const body = bodySize(pages);
  const headingSizes = [...new Set(pages.flat().map((l) => l.size))].filter((s) => s >= body * HEADING_RATIO).sort((a, b) => b - a);
  const blocks: Block[] = [];
  pages.forEach((lines, index) => {
    if (index > 0) blocks.push({ kind: 'page' });
    let paragraph: Line | undefined;
    const flush = () => {
      if (paragraph) blocks.push({ kind: 'paragraph', text: paragraph.text });
      paragraph = undefined;
    };
    for (const line of lines) {
      const level = outline.get(line.text) ?? (headingSizes.includes(line.size) ? Math.min(headingSizes.indexOf(line.size) + 1, 6) : undefined);
      if (level !== undefined) {
        flush();
        blocks.push({ kind: 'heading', level, text: line.text });
        continue;
      }
      const continues = paragraph && paragraph.size === line.size && paragraph.y - line.y <= line.size * PARAGRAPH_GAP && paragraph.y > line.y;
      if (paragraph && continues) {
        // A word broken across lines with a hyphen is one word again.
        paragraph.text = /[a-z]-$/.test(paragraph.text) && /^[a-z]/.test(line.text) ? paragraph.text.slice(0, -1) + line.text : `${paragraph.text} ${line.text}`;
        paragraph.y = line.y;
      } else {
        flush();
        paragraph = { ...line };
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

function render(blocks: Block[]): { markdown: string; html: string } {
  const markdown = blocks.map((b) => (b.kind === 'page' ? '---' : b.kind === 'heading' ? `${'#'.repeat(b.level)} ${escapeMarkdown(b.text)}` : escapeMarkdown(b.text)));
  const html = blocks.map((b) => (b.kind === 'page' ? '<hr>' : b.kind === 'heading' ? `<h${b.level}>${escapeHtml(b.text)}</h${b.level}>` : `<p>${escapeHtml(b.text)}</p>`));
  return { markdown: markdown.join('\n\n'), html: html.join('\n') };
}

/** The text of a PDF document. Throws pdf.js's error for a file that is no PDF, or is encrypted. */
export async function pdfToText(bytes: Uint8Array): Promise<PdfText> {
  // pdf.js takes the buffer over: it gets a copy, so the caller's stays usable.
  const doc = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const pages: Line[][] = [];
    const links: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pages.push(linesOf(content.items.filter(isTextItem)));
      for (const annotation of (await page.getAnnotations()) as { subtype?: string; url?: string }[]) {
        if (annotation.subtype === 'Link' && annotation.url && !links.includes(annotation.url)) links.push(annotation.url);
      }
      page.cleanup();
    }
    const blocks = blocksOf(pages, await outlineLevels(doc));
    const info = (await doc.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
    const declared = typeof info?.Title === 'string' && info.Title.trim() !== '' && info.Title !== 'about:blank' ? info.Title.trim() : undefined;
    const firstHeading = blocks.find((b): b is Extract<Block, { kind: 'heading' }> => b.kind === 'heading')?.text;
    return { ...render(blocks), links, numPages: doc.numPages, ...(declared ?? firstHeading ? { title: declared ?? firstHeading } : {}) };
  } finally {
    await doc.destroy();
  }
}
