/**
 * A worker thread that reads one PDF document with Mozilla's pdf.js (its legacy
 * build runs in Node) for pdf.ts: pdf.js and the layout are synchronous, CPU-bound
 * work that a hostile document can make long, so they never run on the main
 * thread, and the thread is terminated at the page's deadline. Reading is capped
 * by pages, text and annotations; a cap that cuts says so in a warning.
 *
 * It answers, in order: `text` (Markdown, HTML, title: the document is read), then
 * when links are wanted `links` (the new ones of each page) and `done`; or `error`.
 */
import { parentPort } from 'node:worker_threads';
import { AnnotationType, getDocument, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { layoutPdf, linesOf, type PdfLine } from './pdfLayout.js';

export interface PdfTask {
  bytes: Uint8Array;
  links: boolean;
}

export type PdfReply =
  | { type: 'text'; markdown: string; html: string; title?: string; numPages: number; warnings: string[] }
  | { type: 'links'; links: string[] }
  | { type: 'done'; warnings: string[] }
  | { type: 'error'; message: string };

/** What is read of one document at most; past a cap the rest is left out, with a warning. */
export const PDF_LIMITS = {
  pages: 2_000,
  /** Characters of text (a long book has about 2 M). */
  textChars: 5_000_000,
  /** Text items (a page of tiny lines is many items of little text). */
  textItems: 1_000_000,
  /** Link annotations read, over all pages. */
  annotations: 20_000,
  /** Entries of the outline (bookmarks) that name headings. */
  outlineEntries: 10_000,
} as const;

function isTextItem(item: unknown): item is TextItem {
  return typeof (item as TextItem).str === 'string' && Array.isArray((item as TextItem).transform);
}

/** Titles of the outline (bookmarks), by depth: a line with one of these texts is a heading of that level. */
async function outlineLevels(doc: PDFDocumentProxy): Promise<Map<string, number>> {
  const levels = new Map<string, number>();
  type Entry = { title: string; items?: Entry[] };
  // Breadth first, without recursion: a deep outline cannot overflow the stack.
  let depth = 1;
  let level = ((await doc.getOutline().catch(() => null)) ?? []) as Entry[];
  let seen = 0;
  while (level.length > 0 && seen < PDF_LIMITS.outlineEntries) {
    const next: Entry[] = [];
    for (const item of level) {
      if (++seen > PDF_LIMITS.outlineEntries) break;
      const title = String(item.title ?? '').replace(/\s+/g, ' ').trim();
      if (title && !levels.has(title)) levels.set(title, Math.min(depth, 6));
      next.push(...(item.items ?? []));
    }
    level = next;
    depth++;
  }
  return levels;
}

async function declaredTitle(doc: PDFDocumentProxy): Promise<string | undefined> {
  const info = (await doc.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
  return typeof info?.Title === 'string' && info.Title.trim() !== '' && info.Title !== 'about:blank' ? info.Title.trim() : undefined;
}

/** The pages' lines, within the caps; warnings say what a cap left out. */
async function readLines(doc: PDFDocumentProxy): Promise<{ pages: PdfLine[][]; warnings: string[] }> {
  const pages: PdfLine[][] = [];
  const warnings: string[] = [];
  const pageCount = Math.min(doc.numPages, PDF_LIMITS.pages);
  if (doc.numPages > pageCount) warnings.push(`the PDF has ${doc.numPages} pages; only the first ${pageCount} were read`);
  let chars = 0;
  let items = 0;
  for (let n = 1; n <= pageCount; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    page.cleanup();
    const kept: TextItem[] = [];
    let cut = false;
    for (const item of content.items) {
      if (!isTextItem(item)) continue;
      if (++items > PDF_LIMITS.textItems || (chars += item.str.length) > PDF_LIMITS.textChars) {
        cut = true;
        break;
      }
      kept.push(item);
    }
    pages.push(linesOf(kept));
    if (cut) {
      const limit = items > PDF_LIMITS.textItems ? `${PDF_LIMITS.textItems} pieces of text` : `${PDF_LIMITS.textChars} characters of text`;
      warnings.push(`the PDF's text is cut at page ${n} of ${doc.numPages}: only its first ${limit} were read`);
      break;
    }
  }
  return { pages, warnings };
}

/** An annotation's Invisible and NoView flags (the PDF specification's annotation flags 1 and 6). */
const UNSEEN_FLAGS = 0x01 | 0x20;

/** Pages whose link annotations are asked of pdf.js at once: at most about 20 asks a document. */
function linkChunk(pageCount: number): number {
  return Math.max(25, Math.ceil(pageCount / 20));
}

/**
 * The link annotations' URLs, a few pages at a time (each new one once), as they are read.
 * pdf.js's getAnnotations, per page, also finds the text under each link, over a 64 x 64
 * grid of the page: a page of 30,000 links across the page took 10 s and 1.5 GB. Its
 * getAnnotationsByType builds only the links' own data.
 */
async function sendLinks(doc: PDFDocumentProxy, post: (reply: PdfReply) => void): Promise<string[]> {
  const seen = new Set<string>();
  let annotations = 0;
  const pageCount = Math.min(doc.numPages, PDF_LIMITS.pages);
  const chunk = linkChunk(pageCount);
  for (let first = 0; first < pageCount; first += chunk) {
    const last = Math.min(first + chunk, pageCount);
    const skip = new Set<number>();
    for (let i = 0; i < doc.numPages; i++) if (i < first || i >= last) skip.add(i);
    const found = ((await doc.getAnnotationsByType(new Set([AnnotationType.LINK]), skip)) ?? []) as { url?: string; pageIndex?: number; annotationFlags?: number }[];
    // In the document's order: pdf.js may gather the pages' annotations as the pages load.
    found.sort((a, b) => (a.pageIndex ?? 0) - (b.pageIndex ?? 0));
    const fresh: string[] = [];
    let cutAt: number | undefined;
    for (const annotation of found) {
      if (++annotations > PDF_LIMITS.annotations) {
        cutAt = (annotation.pageIndex ?? first) + 1;
        break;
      }
      // What a viewer does not show (as getAnnotations for display left out) is no link of the document.
      const unseen = ((annotation.annotationFlags ?? 0) & UNSEEN_FLAGS) !== 0;
      if (annotation.url && !unseen && !seen.has(annotation.url)) {
        seen.add(annotation.url);
        fresh.push(annotation.url);
      }
    }
    if (fresh.length > 0) post({ type: 'links', links: fresh });
    if (cutAt !== undefined) {
      return [`the PDF's links are cut at page ${cutAt} of ${doc.numPages}: only those of its first ${PDF_LIMITS.annotations} link annotations were read`];
    }
  }
  return [];
}

async function readPdf(task: PdfTask, post: (reply: PdfReply) => void): Promise<void> {
  const doc = await getDocument({ data: task.bytes, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const { pages, warnings } = await readLines(doc);
    const layout = layoutPdf(pages, await outlineLevels(doc));
    const title = (await declaredTitle(doc)) ?? layout.firstHeading;
    post({ type: 'text', markdown: layout.markdown, html: layout.html, numPages: doc.numPages, warnings, ...(title !== undefined ? { title } : {}) });
    if (task.links) post({ type: 'done', warnings: await sendLinks(doc, post) });
  } finally {
    await doc.destroy();
  }
}

parentPort!.once('message', (task: PdfTask) => {
  const post = (reply: PdfReply) => parentPort!.postMessage(reply);
  readPdf(task, post).catch((err: unknown) => post({ type: 'error', message: (err as Error)?.message ?? String(err) }));
});
