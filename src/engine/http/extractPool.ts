/**
 * Worker threads that run the HTTP engine's extraction (parse, main content,
 * Markdown: CPU-bound, about 50-150 ms a page) so that every core works and the
 * event loop stays free for the network. One page per worker at a time; a page
 * that outlives its deadline, or whose job stops, has its worker terminated (the
 * work is synchronous: nothing else would stop it) and a fresh one started when
 * needed (api/workerPool.ts). The pool belongs to one engine and ends with it.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { PageError } from '../../api/errors.js';
import { WorkerPool } from '../../api/workerPool.js';
import type { InPageOptions } from '../content/inPage.js';
import type { NodeExtraction } from '../content/inNode.js';
import type { HtmlReadResult, HtmlReads } from '../structured/readHtml.js';
import { transferable, type ServedDocument } from './servedDocument.js';

/**
 * A page to read: its content with `options` (extraction), and what `reads` asks of its HTML besides (structured/readHtml.ts).
 * `html`: the HTML, or the document as served, decoded by the worker.
 */
export interface ExtractTask {
  id: number;
  html: string | ServedDocument;
  url: string;
  options?: InPageOptions;
  reads?: HtmlReads;
}

/** An extraction as the pool answers it: with the length of its content's text (choice.ts contentLength), counted in the worker. */
export type PoolExtraction = NodeExtraction & { contentLength: number };

/** What a worker found: the extraction when asked, the reads when asked. */
export type ExtractAnswer = Partial<PoolExtraction> & { reads?: HtmlReadResult };

export type ExtractReply = ({ id: number } & ExtractAnswer) | { id: number; error: string };

/** Heap of one worker: the DOM of a very large page takes ten times its HTML. */
const WORKER_HEAP_MB = 1024;

/**
 * Young generation of one worker: a page's DOM is garbage once its reply is sent, and V8's default for
 * a 1 GB heap let each worker hold much of it between collections. The 181-page CLI batch on 2 workers,
 * A/B three times: peak RSS 309-329 -> 279-297 MiB, for 1-2% more CPU (8 MB: 273 MiB, 5% more CPU).
 * 16 -> 6 MB (semi-spaces of 2 MB; a worker's live heap is ~15 MB, its DOM garbage dies young), A/B
 * interleaved three times: peak RSS 284-297 -> 234-268 MiB, CPU 44.8-45.7 -> 45.0-47.2 ms/page.
 */
const WORKER_YOUNG_MB = 6;

/** What V8 may give one extraction worker (test/workerHeap.test.ts checks the CLI's workers get it). */
export const EXTRACT_WORKER_LIMITS = { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB };

/** Workers for this machine: one per core, a few at most (each holds a heap of its own). */
export function defaultExtractWorkers(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

/**
 * The compiled worker. Tests that import the TypeScript sources get the build's
 * worker (tests run after `npm run build`): a worker thread cannot load .ts.
 */
function workerFile(): URL {
  const own = fileURLToPath(import.meta.url);
  if (!own.endsWith('.ts')) return new URL('./extractWorker.js', import.meta.url);
  return new URL('../../../dist/engine/http/extractWorker.js', import.meta.url);
}

/** A page's bounds in the pool: its time once a worker has it, its job's signal, and whose turn it takes (`key`, workerPool.ts). */
export interface ExtractLimits {
  timeoutMs: number;
  signal?: AbortSignal;
  key?: string;
}

export class ExtractPool {
  private readonly pool: WorkerPool<ExtractTask, ExtractReply>;

  constructor(size = defaultExtractWorkers()) {
    this.pool = new WorkerPool({
      file: workerFile(),
      size,
      resourceLimits: EXTRACT_WORKER_LIMITS,
      closedMessage: 'the extraction pool is closed',
      workerFailed: (message) => new PageError(`could not read the page: ${message ?? 'its reader stopped (out of memory?)'}`),
      aborted: abortReason,
    });
  }

  /**
   * The extraction of `html` served at `url`; rejects with PageError when a worker
   * spent `timeoutMs` on it, or with the signal's reason when the job stops. A
   * served document's bytes are moved to the worker: the caller's view is empty after.
   */
  run(
    html: string | ServedDocument,
    url: string,
    options: InPageOptions,
    limits: ExtractLimits,
    reads?: HtmlReads,
  ): Promise<PoolExtraction & { reads?: HtmlReadResult }> {
    return this.submit(html, url, { options, ...(reads ? { reads } : {}) }, limits) as Promise<PoolExtraction & { reads?: HtmlReadResult }>;
  }

  /** Only what `reads` asks of `html` (a page the browser rendered: its content was extracted in the tab). */
  async read(html: string, url: string, reads: HtmlReads, limits: ExtractLimits): Promise<HtmlReadResult> {
    return (await this.submit(html, url, { reads }, limits)).reads ?? {};
  }

  private async submit(html: string | ServedDocument, url: string, asked: Pick<ExtractTask, 'options' | 'reads'>, limits: ExtractLimits): Promise<ExtractAnswer> {
    const reply = await this.pool.run(
      { html, url, ...asked },
      {
        timeoutMs: limits.timeoutMs,
        timedOut: () => new PageError(`timed out reading ${url}: the page took too long to extract`),
        signal: limits.signal,
        key: limits.key,
        transfer: typeof html === 'string' ? [] : transferable(html),
      },
    );
    if ('error' in reply) throw new PageError(reply.error);
    return { result: reply.result, signals: reply.signals, contentLength: reply.contentLength, reads: reply.reads };
  }

  /**
   * Starts a worker now if none is free, so that it starts and loads its libraries
   * (~0.2 s) while the page downloads instead of after: a lone page (a cold
   * `webjobs scrape`) then waits for the larger of the two, not their sum.
   */
  warm(): void {
    this.pool.warm();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new PageError('the job was stopped');
}
