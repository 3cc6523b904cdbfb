/**
 * Completing a worker's finished queue jobs in pg-boss a group at a time.
 */
import type PgBoss from 'pg-boss';
import { errorMessage } from '../api/errors.js';
import { retrying } from './connect.js';

/** Completions sent together: up to this many, or what came within COMPLETE_AFTER_MS of the first. */
const COMPLETE_BATCH = 64;
const COMPLETE_AFTER_MS = 100;

/**
 * Queue jobs whose page (or job) is done, completed in pg-boss a group at a time:
 * one statement for many pages, not one each. A completion lost with its worker
 * (SIGKILL) costs nothing: the queue job expires and is delivered again, and its
 * page, found finished, is not run again.
 */
export class Completions {
  private readonly pending = new Map<string, string[]>();
  private count = 0;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly boss: PgBoss,
    private readonly log: (line: string) => void,
  ) {}

  add(queue: string, id: string): void {
    const ids = this.pending.get(queue) ?? [];
    ids.push(id);
    this.pending.set(queue, ids);
    if (++this.count >= COMPLETE_BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), COMPLETE_AFTER_MS);
  }

  /** Sends what is pending; resolves when all sent so far is. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const groups = [...this.pending];
    this.pending.clear();
    this.count = 0;
    this.sending = this.sending.then(() =>
      Promise.all(
        groups.map(([queue, ids]) =>
          retrying(() => this.boss.complete(queue, ids)).catch((err: unknown) =>
            this.log(`cannot complete ${ids.length} ${queue} job(s): ${errorMessage(err)}; they are delivered again and found done`),
          ),
        ),
      ).then(() => undefined),
    );
    return this.sending;
  }
}
