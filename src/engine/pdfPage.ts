/**
 * A PDF document as a page, for both engines: its bytes read in a worker thread
 * (content/pdf.ts), within what is left of the page's timeout, as the PageData of
 * the formats asked. The HTTP engine reads the bytes it fetched; the browser
 * engine those its tab landed on.
 */
import { PageError } from '../api/errors.js';
import type { PageData } from '../api/types.js';
import type { PdfText } from './content/pdf.js';
import type { PageOptions } from './pageOptions.js';

/** A PDF document's media type: its text is read in Node, not rendered. */
export const PDF = /^application\/(x-)?pdf\b/i;
/** A PDF file starts with %PDF- within its first 1,024 bytes; what the viewer hands over instead does not. */
export const isPdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-');
/** Larger PDF documents are refused rather than read into memory. */
export const MAX_PDF_BYTES = 50 * 1024 * 1024;
/** Time a PDF's reading gets when the page's timeout is (nearly) spent by the time it has landed. */
const MIN_PDF_MS = 1_000;

/** Where the document came from: the URL asked for, the one that answered, its status. */
export interface PdfSource {
  sourceURL: string;
  url: string;
  status: number;
}

/**
 * The page of a PDF document. Fails the page (PageError) when the bytes are
 * over MAX_PDF_BYTES or cannot be read; with the signal's reason when the job stops.
 */
export async function pdfPageData(
  bytes: Uint8Array,
  source: PdfSource,
  options: PageOptions,
  limits: { deadline: number; signal?: AbortSignal },
): Promise<PageData> {
  if (bytes.length > MAX_PDF_BYTES) throw new PageError(`the PDF document at ${source.url} is larger than ${MAX_PDF_BYTES / 1024 / 1024} MiB`);
  const formats = options.formats;
  let text: PdfText;
  try {
    // Read in a worker thread, within the time left of the page's timeout (at least a second).
    const { pdfToText } = await import('./content/pdf.js');
    text = await pdfToText(bytes, { timeoutMs: Math.max(MIN_PDF_MS, limits.deadline - Date.now()), signal: limits.signal, links: formats.includes('links') });
  } catch (err) {
    if (limits.signal?.aborted) throw err;
    throw new PageError(`could not read the PDF document at ${source.url}: ${(err as Error).message}`);
  }
  const data: PageData = {
    metadata: {
      title: text.title ?? '',
      description: '',
      url: source.url,
      sourceURL: source.sourceURL,
      statusCode: String(source.status),
      contentType: 'application/pdf',
      numPages: String(text.numPages),
      scrapedAt: new Date().toISOString(),
    },
  };
  if (formats.includes('markdown')) data.markdown = text.markdown;
  if (formats.includes('html')) data.html = text.html;
  if (formats.includes('links')) data.links = text.links;
  if (formats.includes('rawHtml')) data.rawHtml = '';
  if (formats.includes('structuredData')) data.structuredData = [];
  const warnings = [text.warning, formats.includes('screenshot') ? 'a PDF document has no screenshot; its text is in markdown' : undefined].filter(Boolean);
  if (warnings.length > 0) data.metadata.warning = warnings.join('; ');
  return data;
}
