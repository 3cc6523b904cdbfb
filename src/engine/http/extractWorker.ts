/**
 * A worker thread of the HTTP engine's extraction pool (extractPool.ts): parses
 * each page it is sent and runs the browser's extraction on it (inNode.ts), and
 * reads what else the task asks of its HTML (structured/readHtml.ts).
 */
import { parentPort } from 'node:worker_threads';
import { extractInNode, nodeLibraries } from '../content/inNode.js';
import { readHtml } from '../structured/readHtml.js';
import type { ExtractReply, ExtractTask } from './extractPool.js';

// Loaded before the first page comes: the pool starts a worker while that page downloads (extractPool.ts warm).
nodeLibraries();

parentPort!.on('message', (task: ExtractTask) => {
  let reply: ExtractReply;
  try {
    // The reads parse a DOM of their own: the extraction changes the one it works on.
    const reads = task.reads ? readHtml(task.html, task.url, task.reads) : undefined;
    const extraction = task.options ? extractInNode(task.html, task.url, task.options) : {};
    reply = { id: task.id, ...extraction, ...(reads ? { reads } : {}) };
  } catch (err) {
    reply = { id: task.id, error: (err as Error)?.message ?? String(err) };
  }
  parentPort!.postMessage(reply);
});
