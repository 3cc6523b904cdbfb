import { readFileSync } from 'node:fs';

/**
 * Whether a process with this pid is running on this machine; shared by the job store and the browser's profile
 * cleanup. A zombie is not: a process killed with kill -9 answers kill(pid, 0) until its parent (the shell that
 * started it) has reaped it, and `webjobs resume` run right after the kill must find its jobs free (issue 56).
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the pid exists but belongs to someone else; not ours to judge dead.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Linux: the process has exited and waits to be reaped (state Z, or X while it goes). Elsewhere: unknown, false. */
function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // "pid (comm) state ...": comm may hold spaces and parentheses, so the state follows the last ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}
