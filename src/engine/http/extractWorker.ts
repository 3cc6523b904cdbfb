/**
 * A worker thread of the HTTP engine's extraction pool (extractPool.ts): parses
 * each page it is sent and runs the browser's extraction on it (inNode.ts), and
 * reads what else the task asks of its HTML (structured/readHtml.ts).
 */
import { parentPort } from 'node:worker_threads';
import { extractInNode } from '../content/inNode.js';
import type { ExtractReply, ExtractTask } from './extractPool.js';
import { contentLength } from './choice.js';
import { servedHtml } from './servedDocument.js';

// The extraction (turndown, Readability, linkedom) is loaded with this module, before the first page comes: the
// pool starts a worker while that page downloads (extractPool.ts warm).

/**
 * The reads, loaded by the first task that asks for them: they bring a linkedom of their own, 5-6 MiB of
 * each worker's memory that a batch of Markdown never needs.
 */
let htmlReader: Promise<typeof import('../structured/readHtml.js')> | undefined;

async function answer(task: ExtractTask): Promise<ExtractReply> {
  try {
    const html = typeof task.html === 'string' ? task.html : servedHtml(task.html);
    // The reads parse a DOM of their own: the extraction changes the one it works on.
    const reads = task.reads ? (await (htmlReader ??= import('../structured/readHtml.js'))).readHtml(html, task.url, task.reads) : undefined;
    const extraction = task.options ? extractInNode(html, task.url, task.options) : undefined;
    // Counted here, where the content was made: on the event loop it was the most text it built but the page's.
    const counted = extraction && { contentLength: contentLength(task.options!.wantMarkdown ? extraction.result.markdown : extraction.result.html) };
    return { id: task.id, ...extraction, ...counted, ...(reads ? { reads } : {}) };
  } catch (err) {
    return { id: task.id, error: (err as Error)?.message ?? String(err) };
  }
}

/** Sends `reply`; one that cannot be sent (a value the structured clone refuses) is answered as an error that says why. */
function send(reply: ExtractReply): void {
  try {
    parentPort!.postMessage(reply);
  } catch (err) {
    parentPort!.postMessage({ id: reply.id, error: `could not read the page: its result could not be sent (${(err as Error)?.message || String(err)})` });
  }
}

parentPort!.on('message', (task: ExtractTask) => {
  void answer(task).then(send);
});
