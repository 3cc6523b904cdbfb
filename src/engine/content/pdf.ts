/**
 * PDF documents as Markdown (and HTML, links), read in a worker thread
 * (pdfWorker.ts: pdf.js, then the layout of pdfLayout.ts), never on the main
 * thread: a small hostile document (20,000 tiny lines, 30,000 link annotations)
 * kept pdf.js busy for a minute, and `serve` with it. The worker is terminated
 * when the time left of the page's timeout runs out or the job stops, and its heap
 * is bounded. A document whose text was read but whose links were not, by then,
 * gives its text and the links found so far, with a warning.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PageError } from '../../api/errors.js';
import type { PdfReply, PdfTask } from './pdfWorker.js';

export interface PdfText {
  markdown: string;
  html: string;
  links: string[];
  title?: string;
  numPages: number;
  /** What a cap or the deadline left out. */
  warning?: string;
}

export interface PdfReadLimits {
  /** Time the reading may take (the time left of the page's timeout). */
  timeoutMs: number;
  /** The job's signal: the reading ends at once when it aborts. */
  signal?: AbortSignal;
  /** Whether the document's link annotations are read (they can be most of the work). */
  links?: boolean;
}

/** Heap of one reader: pdf.js holds the document and every page's objects. */
const WORKER_HEAP_MB = 1024;
/** Readers at once in this process; more documents wait their turn (within their own time). */
const MAX_READERS = Math.max(1, Math.min(4, os.availableParallelism()));

/** The compiled worker; tests that import the TypeScript sources get the build's (a worker thread cannot load .ts). */
function workerFile(): URL {
  if (!fileURLToPath(import.meta.url).endsWith('.ts')) return new URL('./pdfWorker.js', import.meta.url);
  return new URL('../../../dist/engine/content/pdfWorker.js', import.meta.url);
}

let readers = 0;
const waiting: (() => void)[] = [];

function release(): void {
  readers--;
  waiting.shift()?.();
}

type TextReply = Extract<PdfReply, { type: 'text' }>;

function pdfText(text: TextReply, links: string[], warnings: string[]): PdfText {
  const warning = warnings.join('; ');
  return {
    markdown: text.markdown,
    html: text.html,
    links,
    numPages: text.numPages,
    ...(text.title !== undefined ? { title: text.title } : {}),
    ...(warning ? { warning } : {}),
  };
}

/**
 * The text of a PDF document. Rejects with PageError for a file that is no PDF,
 * or is encrypted, or whose text was not read within `timeoutMs`; with the signal's
 * reason when the job stops.
 */
export function pdfToText(bytes: Uint8Array, limits: PdfReadLimits): Promise<PdfText> {
  const { signal, timeoutMs } = limits;
  return new Promise<PdfText>((resolve, reject) => {
    let worker: Worker | undefined;
    let text: TextReply | undefined;
    const links: string[] = [];
    let settled = false;
    const queued = () => {
      readers++;
      start();
    };
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      const index = waiting.indexOf(queued);
      if (index >= 0) waiting.splice(index, 1);
      if (worker) {
        worker.removeAllListeners();
        worker.on('error', () => undefined);
        void worker.terminate();
        release();
      }
      outcome();
    };
    /** The reading stops short: the text with the links found so far, or, without the text, an error. */
    const cut = (why: string) => {
      const linksCut = `its links were not all read (${links.length} found): ${why}`;
      if (text) finish(() => resolve(pdfText(text!, links, [...text!.warnings, linksCut])));
      else finish(() => reject(new PageError(why)));
    };
    const onAbort = () => finish(() => reject(signal!.reason instanceof Error ? signal!.reason : new PageError('the job was stopped')));
    const timer = setTimeout(
      () => cut(`reading it took longer than the ${timeoutMs} ms left of the page's timeout`),
      Math.max(1, timeoutMs),
    );
    const start = () => {
      if (settled) return release();
      worker = new Worker(workerFile(), { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
      worker.on('message', (reply: PdfReply) => {
        if (reply.type === 'text') {
          text = reply;
          if (!limits.links) finish(() => resolve(pdfText(reply, [], reply.warnings)));
        } else if (reply.type === 'links') links.push(...reply.links);
        else if (reply.type === 'done') finish(() => resolve(pdfText(text!, links, [...text!.warnings, ...reply.warnings])));
        else finish(() => reject(new PageError(reply.message)));
      });
      worker.on('error', (err) => cut(/memory/i.test(err.message) ? 'reading it took more memory than a document may' : err.message.split('\n')[0]!));
      worker.on('exit', () => cut('its reader stopped before it was done'));
      // pdf.js takes the buffer over: it gets a copy, so the caller's stays usable.
      const copy = new Uint8Array(bytes);
      worker.postMessage({ bytes: copy, links: limits.links ?? false } satisfies PdfTask, [copy.buffer]);
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (readers < MAX_READERS) queued();
    else waiting.push(queued);
  });
}
