/**
 * The store's lock between processes (src/store/atomicFile.ts) under pressure: a
 * holder that works past the stale time keeps its lock (heartbeat), two waiters
 * that find the same dead lock take turns, and a holder never deletes a lock that
 * is no longer its own. Short stale times keep the tests quick; nothing is timed.
 */
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { withFileLock } from '../src/store/atomicFile.js';

const STALE_MS = 200;

function lockPath(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'webjobs-lock-')), 'job.lock');
}

describe('withFileLock', () => {
  it('a holder working past the stale time keeps its lock: a waiter neither breaks it nor enters', async () => {
    const file = lockPath();
    const events: string[] = [];
    let entered!: () => void;
    const holderIn = new Promise<void>((resolve) => (entered = resolve));
    const holder = withFileLock(
      file,
      async () => {
        const mine = readFileSync(file, 'utf8');
        events.push('holder in');
        entered();
        await sleep(STALE_MS * 5);
        events.push(existsSync(file) && readFileSync(file, 'utf8') === mine ? 'holder still owns the lock' : 'holder lost the lock');
        events.push('holder out');
      },
      STALE_MS,
    );
    await holderIn;
    const waiter = withFileLock(file, async () => void events.push('waiter in'), STALE_MS);
    await Promise.all([holder, waiter]);
    expect(events).toEqual(['holder in', 'holder still owns the lock', 'holder out', 'waiter in']);
    expect(existsSync(file)).toBe(false);
  });

  it('two waiters that find the same dead lock take turns', async () => {
    for (let round = 0; round < 3; round++) {
      const file = lockPath();
      // A lock left by a process that died an hour ago.
      writeFileSync(file, 'dead-owner');
      const anHourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(file, anHourAgo, anHourAgo);
      let inside = 0;
      let most = 0;
      const work = () =>
        withFileLock(
          file,
          async () => {
            inside++;
            most = Math.max(most, inside);
            await sleep(STALE_MS * 2);
            inside--;
          },
          STALE_MS,
        );
      await Promise.all([work(), work(), work()]);
      expect(most).toBe(1);
      expect(existsSync(file)).toBe(false);
    }
  });

  it('a holder whose lock was taken by another does not delete that lock when it finishes', async () => {
    const file = lockPath();
    await withFileLock(
      file,
      async () => {
        // As if the lock had been judged stale and another process held it now.
        writeFileSync(file, 'another-owner');
      },
      STALE_MS,
    );
    expect(readFileSync(file, 'utf8')).toBe('another-owner');
  });
});
