/**
 * Chromium's profile folders, owned by webjobs: one per launched browser, in the
 * OS temporary folder, named `webjobs-chromium-<pid>-<random>` after the process
 * that launched it. Removed when that browser exits, when this process exits, and,
 * for a process that could not clean up (SIGKILL), by the next webjobs that
 * launches a browser and finds the owning pid gone.
 */
import { mkdirSync, mkdtempSync, promises as fs, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive } from '../../api/processes.js';

export const PROFILE_PREFIX = 'webjobs-chromium-';
/** The owner's pid in a profile folder's name. */
const OWNER_PID = new RegExp(`^${PROFILE_PREFIX}(\\d+)-`);

/**
 * Profile folders of browsers this process launched and that have not exited yet,
 * with a way to kill their browser. Process-wide because the 'exit' hook is: it
 * is the last chance to remove them when the process ends without closing them.
 */
const live = new Map<string, () => void>();
let exitHookInstalled = false;

function removeAllNow(): void {
  for (const [dir, kill] of live) {
    // The browser goes first: a running Chromium would write into a folder being removed.
    kill();
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  }
  live.clear();
}

export interface ProfileDir {
  /** Chromium's --user-data-dir. */
  dir: string;
  /** Chromium's TMPDIR, inside `dir`, so its own temporary files go with the profile. */
  tmpDir: string;
  /** How to kill the browser using it, should this process exit with the browser still running. */
  setKill(kill: () => void): void;
  /** Removes the folder; call once the browser has exited. */
  release(): Promise<void>;
}

/** A fresh profile folder for one browser. */
export function createProfileDir(tmpDir = os.tmpdir()): ProfileDir {
  const dir = mkdtempSync(path.join(tmpDir, `${PROFILE_PREFIX}${process.pid}-`));
  const browserTmp = path.join(dir, 'tmp');
  mkdirSync(browserTmp);
  live.set(dir, () => undefined);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', removeAllNow);
  }
  return {
    dir,
    tmpDir: browserTmp,
    setKill(kill) {
      if (live.has(dir)) live.set(dir, kill);
    },
    async release() {
      // Listed until it is gone: a process.exit() while the removal runs (serve, mcp) leaves it to the exit hook.
      await fs.rm(dir, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
      live.delete(dir);
    },
  };
}

/** Removes profile folders left by webjobs processes that no longer exist (killed with SIGKILL, a crash). */
export async function removeStaleProfileDirs(tmpDir = os.tmpdir()): Promise<string[]> {
  const names = await fs.readdir(tmpDir).catch(() => [] as string[]);
  const stale = names.filter((name) => {
    const match = OWNER_PID.exec(name);
    return match !== null && Number(match[1]) !== process.pid && !isProcessAlive(Number(match[1]));
  });
  await Promise.all(stale.map((name) => fs.rm(path.join(tmpDir, name), { recursive: true, force: true }).catch(() => undefined)));
  return stale;
}
