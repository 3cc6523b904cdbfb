/**
 * A worker thread of the HTTP engine's extraction pool (extractPool.ts): parses
 * each page it is sent and runs the browser's extraction on it (inNode.ts).
 */
import { parentPort } from 'node:worker_threads';
import { extractInNode, nodeLibraries } from '../content/inNode.js';
import type { ExtractReply, ExtractTask } from './extractPool.js';

// Loaded before the first page comes: the pool starts a worker while that page downloads (extractPool.ts warm).
nodeLibraries();

parentPort!.on('message', (task: ExtractTask) => {
  let reply: ExtractReply;
  try {
    reply = { id: task.id, ...extractInNode(task.html, task.url, task.options) };
  } catch (err) {
    reply = { id: task.id, error: (err as Error)?.message ?? String(err) };
  }
  parentPort!.postMessage(reply);
});
