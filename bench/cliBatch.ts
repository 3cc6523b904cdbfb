/**
 * The built CLI's `webjobs batch - --engine http` over a page set served on 127.0.0.1 (issue 44's
 * RSS goal): the peak RSS of its whole process tree (each process's VmHWM, summed over the processes
 * seen), its CPU per page (its own and its children's) and its wall time, sampled from /proc every 50 ms.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BIN } from './paths.js';
import { startServer } from './pageServer.js';
import { cpuMsOf, descendants, peakRssOf } from './procTree.js';
import type { BenchSet } from './sets.js';

export interface CliBatch {
  pages: number;
  /** Peak RSS of the CLI's process tree, bytes. */
  peakRss: number;
  cpuMsPerPage: number;
  seconds: number;
}

/** Runs the batch over the set's pages (at most `limit`), each page once, its Markdown written to a pipe not kept. */
export async function cliBatch(set: BenchSet, limit = 1000): Promise<CliBatch> {
  const server = await startServer(set.htmlDir);
  const home = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bench-extract-'));
  const pages = set.pages.slice(0, limit);
  try {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'batch', '-', '--engine', 'http'], {
      env: { ...process.env, WEBJOBS_HOME: home, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let written = 0;
    child.stdout.on('data', (chunk: Buffer) => (written += chunk.length));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(pages.map((page) => `${server.base}/${page.id}.html\n`).join(''));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let done = false;
    void exited.then(() => (done = true));
    const peaks = new Map<number, number>();
    let cpuMs = 0;
    while (!done) {
      const tree = [child.pid!, ...descendants(child.pid!)];
      for (const pid of tree) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, peakRssOf(pid)));
      // The root's figure holds the children it waited for; a child seen alive is counted until it is reaped.
      const now = tree.reduce((total, pid) => total + cpuMsOf(pid), 0);
      cpuMs = Math.max(cpuMs, now);
      await sleep(50);
    }
    const code = await exited;
    if (code !== 0 || written === 0) throw new Error(`webjobs batch exited with ${code}: ${stderr.slice(0, 500)}`);
    return {
      pages: pages.length,
      peakRss: [...peaks.values()].reduce((a, b) => a + b, 0),
      cpuMsPerPage: cpuMs / pages.length,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}
