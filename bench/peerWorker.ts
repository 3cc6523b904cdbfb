/**
 * Runs the jsdom peer on a list of pages inside a worker thread, one message per
 * page. quality.ts gives each worker a slice of the pages: jsdom's memory grows
 * over a long run (the peer ran Node out of heap two thirds through WCXB in one
 * thread), and a worker's heap is freed whole when it ends.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { jsdomMarkdown, type PeerResult } from './jsdomPeer.js';

export interface PeerJob {
  htmlDir: string;
  pages: { id: string; url: string }[];
}

export interface PeerMessage extends PeerResult {
  id: string;
}

const job = workerData as PeerJob;
for (const page of job.pages) {
  // Announced first: if the page kills the worker, the parent knows which one did.
  parentPort?.postMessage({ started: page.id });
  const html = gunzipSync(readFileSync(path.join(job.htmlDir, `${page.id}.html.gz`))).toString('utf8');
  const message: PeerMessage = { id: page.id, ...jsdomMarkdown(html, page.url) };
  parentPort?.postMessage(message);
}
