#!/usr/bin/env -S node --max-semi-space-size=16
// Loads the compiled CLI; run `npm run build` after changing src/.
// The young generation's semi-spaces are kept at 16 MB, Node 22's size on a large machine: Node 24 grows them to
// 64 MB (new space 128 MB) on a machine of 24 GB (a crawl's tree at 10,000 pages: 321 MiB on Node 24 without
// this). A CLI run as `node bin/webjobs.js` gets Node's own size. The flag is for this thread only: V8 reads it
// again for every worker thread, where it overrides the young generation a pool gives its workers (an extraction
// worker's 6 MB became 48), so it is cleared below, once this thread's heap exists and before any worker starts
// (test/workerHeap.test.ts). With both, that crawl's tree peaks at 246 MiB on Node 24 and 216 on Node 22
// (docs/cli.md, Large crawls).
import { setFlagsFromString } from 'node:v8';
// Node.js 22.12 or newer: Node 20 reached its end of life in April 2026, and dependencies
// (jsdom, fastify's cookie) refuse it. Said in one line rather than as a crash deep inside one.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`webjobs: needs Node.js 22.12 or newer (this is ${process.version}); see https://nodejs.org\n`);
  process.exit(1);
}
setFlagsFromString('--max-semi-space-size=0');
import('../dist/cli/main.js').then(
  ({ main }) => main(process.argv),
  (err) => {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
      process.stderr.write('webjobs: not built yet; run `npm run build` in the webjobs folder first\n');
    } else {
      process.stderr.write(`webjobs: ${err && err.stack ? err.stack : err}\n`);
    }
    process.exitCode = 1;
  },
);
