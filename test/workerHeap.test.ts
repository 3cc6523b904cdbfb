/**
 * The `webjobs` command starts Node with `--max-semi-space-size=16` (bin/webjobs.js's first line) to keep the
 * main thread's young generation at Node 22's size. V8 reads that flag again for every worker thread, where it
 * overrides the young generation an extraction worker is given (resourceLimits): each worker grew to 48 MB of
 * young generation where it is given 6, and a crawl's tree by 35-60 MiB. The command clears the flag once its
 * own heap exists. Checked on the command as a user runs it (through its first line), each extraction worker
 * reporting its heap's limit from a module preloaded by NODE_OPTIONS.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXTRACT_WORKER_LIMITS } from '../src/engine/http/extractPool.js';
import { BIN, runShell, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

let site: FixtureServer;
beforeAll(async () => {
  site = await startFixtureServer({ '/': (_req, res) => sendHtml(res, html(`<article><h1>Heap</h1>${articleText('heap')}</article>`)) });
});
afterAll(() => site.close());

/** The heap limit V8 gives a worker started with `limits` in a process started without flags (this one). */
async function limitOfWorker(limits: typeof EXTRACT_WORKER_LIMITS): Promise<number> {
  const worker = new Worker(`require('node:worker_threads').parentPort.postMessage(require('node:v8').getHeapStatistics().heap_size_limit)`, { eval: true, resourceLimits: limits });
  const [limit] = (await once(worker, 'message')) as [number];
  await worker.terminate();
  return limit;
}

it("the command's extraction workers keep their own young generation, not the main thread's flag", async () => {
  const dir = tempHome();
  const probe = path.join(dir, 'probe.mjs');
  const told = path.join(dir, 'limits.txt');
  writeFileSync(
    probe,
    `import { isMainThread } from 'node:worker_threads';
import { getHeapStatistics } from 'node:v8';
import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(told)}, (isMainThread ? 'main ' : 'worker ') + getHeapStatistics().heap_size_limit + '\\n');
`,
  );
  // Run as a user runs it: the file itself, so its first line's flag applies, with this Node first on PATH.
  const { code, stdout, stderr } = await runShell(`PATH=${JSON.stringify(path.dirname(process.execPath))}:"$PATH" ${JSON.stringify(BIN)} scrape ${site.at('/')} --engine http`, {
    env: { WEBJOBS_HOME: path.join(dir, 'home'), NODE_OPTIONS: `--import=${pathToFileURL(probe).href}` },
  });
  expect(code, stderr).toBe(0);
  expect(stdout).toContain('# Heap');
  const lines = readFileSync(told, 'utf8').trim().split('\n').map((line) => line.split(' '));
  const limitsOf = (thread: string) => lines.filter(([which]) => which === thread).map(([, limit]) => Number(limit));
  const workers = limitsOf('worker');
  expect(workers.length).toBeGreaterThan(0);
  const own = await limitOfWorker(EXTRACT_WORKER_LIMITS);
  // With the flag left set, each is 42 MB more (a young generation of 48 MB instead of 6).
  expect(workers).toEqual(workers.map(() => own));
  // The main thread keeps the flag's young generation (on Node 24 without it, 192 MB instead of 48).
  const flagged = spawnSync(process.execPath, ['--max-semi-space-size=16', '-p', "require('node:v8').getHeapStatistics().heap_size_limit"], { encoding: 'utf8' });
  expect(limitsOf('main')).toEqual([Number(flagged.stdout)]);
});
