/**
 * Worker threads that run the HTTP engine's extraction (parse, main content,
 * Markdown: CPU-bound, about 50-150 ms a page) so that every core works and the
 * event loop stays free for the network. One page per worker at a time; a page
 * that outlives its deadline, or whose job stops, has its worker terminated (the
 * work is synchronous: nothing else would stop it) and a fresh one started when
 * needed. The pool belongs to one engine and ends with it.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PageError } from '../../api/errors.js';
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

interface Pending {
  task: ExtractTask;
  resolve(answer: ExtractAnswer): void;
  reject(err: Error): void;
  signal?: AbortSignal;
  /** Time allowed once a worker has the page (waiting for a free worker does not count). */
  timeoutMs: number;
}

interface Slot {
  worker: Worker;
  busy?: Pending;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
}

export class ExtractPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly size = defaultExtractWorkers()) {}

  /**
   * The extraction of `html` served at `url`; rejects with PageError when a worker
   * spent `timeoutMs` on it, or with the signal's reason when the job stops. A
   * served document's bytes are moved to the worker: the caller's view is empty after.
   */
  run(
    html: string | ServedDocument,
    url: string,
    options: InPageOptions,
    limits: { timeoutMs: number; signal?: AbortSignal },
    reads?: HtmlReads,
  ): Promise<PoolExtraction & { reads?: HtmlReadResult }> {
    return this.submit(html, url, { options, ...(reads ? { reads } : {}) }, limits) as Promise<PoolExtraction & { reads?: HtmlReadResult }>;
  }

  /** Only what `reads` asks of `html` (a page the browser rendered: its content was extracted in the tab). */
  async read(html: string, url: string, reads: HtmlReads, limits: { timeoutMs: number; signal?: AbortSignal }): Promise<HtmlReadResult> {
    return (await this.submit(html, url, { reads }, limits)).reads ?? {};
  }

  private submit(html: string | ServedDocument, url: string, asked: Pick<ExtractTask, 'options' | 'reads'>, limits: { timeoutMs: number; signal?: AbortSignal }): Promise<ExtractAnswer> {
    if (this.closed) return Promise.reject(new Error('the extraction pool is closed'));
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        task: { id: this.nextId++, html, url, ...asked },
        resolve,
        reject,
        signal: limits.signal,
        timeoutMs: limits.timeoutMs,
      };
      if (limits.signal?.aborted) return reject(abortReason(limits.signal));
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /**
   * Starts a worker now if none is free, so that it starts and loads its libraries
   * (~0.2 s) while the page downloads instead of after: a lone page (a cold
   * `webjobs scrape`) then waits for the larger of the two, not their sum.
   */
  warm(): void {
    if (this.closed || this.slots.length >= this.size || this.slots.some((slot) => !slot.busy)) return;
    this.spawn();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.busy) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const pending = this.queue.shift()!;
      if (pending.signal?.aborted) {
        pending.reject(abortReason(pending.signal));
        continue;
      }
      this.assign(slot, pending);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(workerFile(), { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
    const slot: Slot = { worker };
    worker.unref();
    worker.on('message', (reply: ExtractReply) => {
      const pending = slot.busy;
      if (!pending || pending.task.id !== reply.id) return;
      this.finish(slot);
      if ('error' in reply) pending.reject(new PageError(reply.error));
      else pending.resolve({ result: reply.result, signals: reply.signals, contentLength: reply.contentLength, reads: reply.reads });
      this.dispatch();
    });
    const fail = (why: string) => {
      this.drop(slot);
      slot.busy?.reject(new PageError(why));
      this.dispatch();
    };
    worker.on('error', (err) => fail(`could not read the page: ${err.message.split('\n')[0]}`));
    worker.on('exit', () => fail('could not read the page: its reader stopped (out of memory?)'));
    this.slots.push(slot);
    return slot;
  }

  private assign(slot: Slot, pending: Pending): void {
    slot.busy = pending;
    slot.worker.ref();
    const stop = (err: Error) => {
      this.drop(slot);
      void slot.worker.terminate();
      pending.reject(err);
      this.dispatch();
    };
    slot.timer = setTimeout(
      () => stop(new PageError(`timed out reading ${pending.task.url}: the page took too long to extract`)),
      pending.timeoutMs,
    );
    if (pending.signal) {
      const signal = pending.signal;
      slot.onAbort = () => stop(abortReason(signal));
      signal.addEventListener('abort', slot.onAbort, { once: true });
    }
    const { html } = pending.task;
    slot.worker.postMessage(pending.task, typeof html === 'string' ? [] : transferable(html));
  }

  /** The slot is free again: its timer and abort listener go, and an idle worker does not keep the process alive. */
  private finish(slot: Slot): void {
    clearTimeout(slot.timer);
    if (slot.onAbort) slot.busy?.signal?.removeEventListener('abort', slot.onAbort);
    slot.busy = undefined;
    slot.onAbort = undefined;
    slot.worker.unref();
  }

  /** Takes a worker out of the pool (it failed, or is being terminated); its task is the caller's to settle. */
  private drop(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    const pending = slot.busy;
    this.finish(slot);
    slot.busy = pending;
    slot.worker.removeAllListeners('exit');
    slot.worker.removeAllListeners('message');
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error('the extraction pool is closed'));
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      const pending = slot.busy;
      this.finish(slot);
      slot.worker.removeAllListeners('exit');
      pending?.reject(new Error('the extraction pool is closed'));
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new PageError('the job was stopped');
}
