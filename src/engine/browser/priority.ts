/**
 * Chromium at a lower CPU priority than webjobs itself (`webjobs serve --browser-nice`):
 * on a small machine the renderers of the jobs running take every core, and the
 * server's own answers (status, /healthz) waited behind them.
 *
 * Two levers, because each holds only in some setups (measured on Linux 6.18):
 *   - The autogroup. Puppeteer starts Chromium in its own session, and the kernel
 *     then schedules the whole session (browser, zygotes, every renderer forked
 *     later) as one group against webjobs' group; the group's nice is set in
 *     /proc/<pid>/autogroup. This holds as root too. It exists only while
 *     autogroups are on and webjobs runs in the root CPU cgroup (not under
 *     systemd's or a container's cgroup).
 *   - Each thread's nice. os.setPriority(pid) changes the browser's main thread
 *     alone (Linux nice is per thread) and renderers, forked from a zygote started
 *     earlier, did not inherit it; so every thread of every process of the
 *     browser's tree is reniced, and renderers forked later inherit the zygote's.
 *     Running as root, Chromium sets its threads' nice itself (0, -8 for its IO
 *     threads), which undoes this; unprivileged, it cannot lower it again. So a
 *     process that may raise priorities (CAP_SYS_NICE, i.e. root) starts Chromium
 *     through util-linux's setpriv without that capability (launchWithoutSysNice),
 *     and the nice it is given holds on every thread. Where autogroups are off
 *     (some kernels and containers) this lever is the only one.
 * The price: the browser's weight is then a tenth of any other process's on the
 * machine, not only of webjobs'; on a machine shared with other work the jobs
 * starve (a one-page scrape was still loading after 20 s at load average 70).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const CAP_SYS_NICE = 23n;
const SETPRIV = '/usr/bin/setpriv';

/** Whether this process may raise priorities (Linux: CAP_SYS_NICE in its effective set, as root). */
function holdsSysNice(): boolean {
  try {
    const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return hex !== undefined && ((BigInt(`0x${hex}`) >> CAP_SYS_NICE) & 1n) === 1n;
  } catch {
    return false;
  }
}

/**
 * The command that starts `executablePath` with `args` unable to raise its threads'
 * priority again (see above): through setpriv, dropping CAP_SYS_NICE, when this
 * process holds it and setpriv is there; else the command as it is.
 */
function launchWithoutSysNice(executablePath: string, args: string[]): { executablePath: string; args: string[] } {
  if (os.platform() !== 'linux' || !holdsSysNice() || !existsSync(SETPRIV)) return { executablePath, args };
  return { executablePath: SETPRIV, args: ['--inh-caps=-sys_nice', '--bounding-set=-sys_nice', '--', executablePath, ...args] };
}

const NICE = '/usr/bin/nice';

/**
 * The command that starts `executablePath` with `args` at `nice` from its first instruction,
 * through coreutils' nice, and unable to raise its priority again (launchWithoutSysNice).
 * Renicing after the launch (lowerPriority) left a window: a browser started while a test or
 * a job looked ran its main thread at the server's priority until the launch returned.
 */
export function launchNiced(executablePath: string, args: string[], nice: number): { executablePath: string; args: string[] } {
  const command = launchWithoutSysNice(executablePath, args);
  if (os.platform() !== 'linux' || !existsSync(NICE)) return command;
  return { executablePath: NICE, args: ['-n', String(nice), command.executablePath, ...command.args] };
}


function childrenOf(pid: number): number[] {
  try {
    // Linux: the children of each of the process's threads.
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [pid];
  }
}

/**
 * Lowers the CPU priority of the browser process `pid` and everything it has started
 * by `nice` (10: a weight of 110 against webjobs' 1024); what a platform refuses is
 * left as it is.
 */
export function lowerPriority(pid: number, nice: number): void {
  if (os.platform() !== 'linux') {
    try {
      os.setPriority(pid, nice);
    } catch {
      // not permitted here: the browser runs at webjobs' priority
    }
    return;
  }
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch {
    // no autogroups in this kernel
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i]!));
  for (const process of tree) {
    for (const tid of threadsOf(process)) {
      try {
        if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
      } catch {
        // gone, or not permitted
      }
    }
  }
}
