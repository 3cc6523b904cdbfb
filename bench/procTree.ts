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

export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

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
