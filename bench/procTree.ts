/** Process trees from /proc: a benchmark's child and the Chromium processes below it. */
import { readFileSync, readdirSync } from 'node:fs';

function childrenOf(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      /* gone */
    }
  }
  return children;
}

/** A size line of /proc/PID/status (VmRSS, VmHWM), in bytes; 0 once the process is gone. */
function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

export const rssOf = (pid: number): number => statusBytes(pid, 'VmRSS');

/** Every process below `root`, each after its parent. */
export function descendants(root: number): number[] {
  const children = childrenOf();
  const found: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      found.push(child);
      stack.push(child);
    }
  }
  return found;
}

/** RSS of `root` and all its descendants (Chromium's browser, renderer, GPU and utility processes). */
export function treeRss(root: number): number {
  return [root, ...descendants(root)].reduce((total, pid) => total + rssOf(pid), 0);
}

/** The peak RSS of `pid` so far (VmHWM), in bytes; 0 once it is gone. */
export const peakRssOf = (pid: number): number => statusBytes(pid, 'VmHWM');

/**
 * CPU ms in a stat line of /proc (a process's or a thread's): its own (utime, stime), and with `reaped` also that
 * of the children it waited for (cutime, cstime). Fields 14-17 of stat(5), counted here from the state (field 3)
 * after the command's name; clock ticks of 10 ms.
 */
export function statCpuMs(stat: string, reaped: boolean): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (reaped ? [11, 12, 13, 14] : [11, 12]).reduce((total, i) => total + Number(fields[i]), 0) * 10;
}

/** CPU ms `pid` has used, with that of its children it waited for; 0 once it is gone. */
export function cpuMsOf(pid: number): number {
  try {
    return statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'), true);
  } catch {
    return 0;
  }
}
