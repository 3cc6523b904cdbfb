/**
 * Runs the jsdom peer on a list of pages inside a worker thread, one message per
 * page. quality.ts gives each worker a slice of the pages: jsdom's memory grows
 * over a long run (the peer ran Node out of heap two thirds through WCXB in one
 * thread), and a worker's heap is freed whole when it ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { jsdomMarkdown, type PeerResult } from './jsdomPeer.js';
import { pageHtml } from './sets.js';

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
  const html = pageHtml(job.htmlDir, page.id);
  const message: PeerMessage = { id: page.id, ...jsdomMarkdown(html, page.url) };
  parentPort?.postMessage(message);
}
