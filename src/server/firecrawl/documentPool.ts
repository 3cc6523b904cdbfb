/**
 * Firecrawl documents of stored batch and crawl entries, for the status routes
 * (/v1 and /v2): an entry's JSON is parsed, renamed into a document (toDocument)
 * and written again. For a large entry (19 MB of rawHtml) that took ~0.1 s of CPU,
 * and on serve's main thread six readers held /healthz ~90 ms (issue 43); entries
 * of LARGE_ENTRY_BYTES or more are converted in worker threads instead, their bytes
 * moved to the worker and the document's bytes moved back (no copy on either side).
 * Smaller entries are converted in place: a worker's round trip would cost more.
 * The workers (api/workerPool.ts) are started on the first large entry and do not
 * keep the process alive.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { WorkerPool } from '../../api/workerPool.js';
import type { EntryText } from '../../api/backend.js';
import type { PageEntry } from '../../api/types.js';
import { entryJson } from '../pagedAnswer.js';
import { finishedDocuments } from './response.js';

/** Entries this long (bytes) or longer are converted in a worker. */
export const LARGE_ENTRY_BYTES = 256 * 1024;
/** Workers at most: the conversion is CPU-bound, and the main thread needs a core too. */
const MAX_WORKERS = Math.max(1, Math.min(2, os.availableParallelism() - 1));
/** Heap of one worker: the entry's text, its parsed copy and the document's text. */
const WORKER_HEAP_MB = 1024;

export interface DocumentTask {
  id: number;
  /** The entry's JSON: its text, or its UTF-8 bytes (the first `length` of them). */
  json: string | ArrayBuffer;
  length?: number;
}

/** The document's UTF-8 JSON bytes; neither json nor error: the entry is no document yet (pending). */
export type DocumentReply = { id: number; json?: ArrayBuffer; length?: number } | { id: number; error: string };

/** A stored entry's JSON text as its Firecrawl document's JSON text; undefined for an entry not done yet. */
export function documentJson(entryText: string): string | undefined {
  const document = finishedDocuments([JSON.parse(entryText) as PageEntry])[0];
  return document && JSON.stringify(document);
}

function workerFile(): URL {
  // Tests import the TypeScript sources and get the build's worker (a worker thread cannot load .ts).
  if (!fileURLToPath(import.meta.url).endsWith('.ts')) return new URL('./documentWorker.js', import.meta.url);
  return new URL('../../../dist/server/firecrawl/documentWorker.js', import.meta.url);
}

const pool = new WorkerPool<DocumentTask, DocumentReply>({
  file: workerFile(),
  size: MAX_WORKERS,
  resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  workerFailed: (message) => new Error(`could not convert a stored entry: ${message ?? 'its worker stopped (out of memory?)'}`),
});

/** `json` (an entry's JSON text or UTF-8 bytes) converted by a worker. */
export async function documentInWorker(json: string | Buffer): Promise<Buffer | undefined> {
  let task: Omit<DocumentTask, 'id'>;
  const transfer: ArrayBuffer[] = [];
  if (typeof json === 'string') task = { json };
  else {
    // A Buffer that owns its memory moves to the worker; a slice of a shared one is copied first.
    const own = json.byteOffset === 0 && json.byteLength === json.buffer.byteLength && json.buffer instanceof ArrayBuffer;
    const buffer = own ? (json.buffer as ArrayBuffer) : new Uint8Array(json).buffer;
    transfer.push(buffer);
    task = { json: buffer, length: json.byteLength };
  }
  const reply = await pool.run(task, { transfer });
  if ('error' in reply) throw new Error(`could not read a stored entry: ${reply.error}`);
  return reply.json ? Buffer.from(reply.json, 0, reply.length) : undefined;
}

/** An entry's bytes, whole. */
async function entryBytes(entry: EntryText): Promise<string | Buffer> {
  const text = await entry.text();
  if (typeof text === 'string') return text;
  const chunks: Buffer[] = [];
  for await (const chunk of text) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * The Firecrawl document of a stored entry, as JSON text (a string, or its UTF-8
 * bytes), or undefined for an entry not done yet: a large entry is converted in a worker.
 */
export async function entryDocument(entry: EntryText): Promise<string | Buffer | undefined> {
  if (entry.bytes < LARGE_ENTRY_BYTES) return documentJson(await entryJson(entry));
  return documentInWorker(await entryBytes(entry));
}
