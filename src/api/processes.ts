/** Whether a process with this pid is running on this machine; shared by the job store and the browser's profile cleanup. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the pid exists but belongs to someone else; not ours to judge dead.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
