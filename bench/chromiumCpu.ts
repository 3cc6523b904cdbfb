/**
 * Chromium's CPU by process type (the browser process, renderers, the GPU process, utility processes,
 * zygotes), read from /proc while a benchmark's tree runs: each process's own utime + stime (never the
 * children it reaped, which are counted as themselves), its last figure kept once it is gone, so a renderer
 * replaced along the run still counts. With `threads`, also by thread name within each type (digits
 * dropped: "CompositorTileW", "VizCompositorTh"...), which says whether the cost is raster, compositing or
 * the page's main thread.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { statCpuMs } from './procTree.js';

/**
 * The process type Chromium gave `pid` on its command line (--type=renderer...); none is the browser process.
 * Read at each sample: a process just forked shows its parent's command line until it execs (the GPU process)
 * or retitles itself (a renderer forked by the zygote).
 */
function kindOf(pid: number): string | undefined {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
  // A process the zygote started has its title rewritten: one string, its arguments spaced, not NUL-separated.
  const args = cmdline.split(/[\0 ]/);
  if (!/chrom/i.test(args[0] ?? '')) return undefined;
  const type = args.find((arg) => arg.startsWith('--type='))?.slice('--type='.length);
  return type === undefined ? 'browser' : type === 'gpu-process' ? 'gpu' : type;
}

export class ChromiumCpu {
  /** Per process: its kind and its latest own CPU ms (the kind last seen: see kindOf). */
  private readonly processes = new Map<number, { kind: string; ms: number }>();
  /** Per thread (pid:tid): its kind:name and its latest CPU ms. */
  private readonly threadMs = new Map<string, { key: string; ms: number }>();

  constructor(private readonly threads = false) {}

  sample(pids: number[]): void {
    for (const pid of pids) {
      const kind = kindOf(pid);
      if (!kind) continue;
      try {
        this.processes.set(pid, { kind, ms: statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'), false) });
      } catch {
        continue; // gone: its last figure stays
      }
      if (!this.threads) continue;
      let tids: string[];
      try {
        tids = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue;
      }
      for (const tid of tids) {
        try {
          const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim().replace(/\d+/g, '');
          this.threadMs.set(`${pid}:${tid}`, { key: `${kind}:${name}`, ms: statCpuMs(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'), false) });
        } catch {
          /* ended */
        }
      }
    }
  }

  /** CPU ms by process type, largest first. */
  byKind(): [string, number][] {
    return sum([...this.processes.values()].map(({ kind, ms }) => [kind, ms]));
  }

  /** CPU ms by process type and thread name, largest first (empty without `threads`). */
  byThread(): [string, number][] {
    return sum([...this.threadMs.values()].map(({ key, ms }) => [key, ms]));
  }
}

function sum(entries: [string, number][]): [string, number][] {
  const totals = new Map<string, number>();
  for (const [key, ms] of entries) totals.set(key, (totals.get(key) ?? 0) + ms);
  return [...totals.entries()].sort((a, b) => b[1] - a[1]);
}
