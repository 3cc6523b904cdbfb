/**
 * A worker thread of documentPool.ts: turns a stored batch or crawl entry's JSON
 * (its bytes, or its text) into its Firecrawl document's JSON, off serve's main thread.
 */
import { parentPort } from 'node:worker_threads';
import { documentJson, type DocumentReply, type DocumentTask } from './documentPool.js';

parentPort!.on('message', (task: DocumentTask) => {
  let reply: DocumentReply;
  const transfer: ArrayBuffer[] = [];
  try {
    const text = typeof task.json === 'string' ? task.json : Buffer.from(task.json, 0, task.length).toString('utf8');
    const json = documentJson(text);
    if (json === undefined) reply = { id: task.id };
    else {
      const bytes = Buffer.from(json, 'utf8');
      // A large Buffer owns its memory (it is no slice of the small-buffer pool): it moves to the main thread uncopied.
      const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const buffer = own ? (bytes.buffer as ArrayBuffer) : new Uint8Array(bytes).buffer;
      transfer.push(buffer);
      reply = { id: task.id, json: buffer, length: bytes.byteLength };
    }
  } catch (err) {
    reply = { id: task.id, error: (err as Error)?.message ?? String(err) };
  }
  parentPort!.postMessage(reply, transfer);
});
