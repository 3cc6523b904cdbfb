/**
 * How a worker hears that a job it runs pages of has ended: ENDED_CHANNEL, announced when a job is stopped or
 * fails (store.ts, workStore.ts), heard by NotifyWatch, polled for while that connection is down.
 */
import { NotifyWatch } from './notifyWatch.js';
import { ENDED_CHANNEL } from './store.js';

export interface EndedWatchOptions {
  /** A job that ended (stopped by a user, or failed) was announced. */
  onEnded: (jobId: string) => void;
  /** Asks the database which held jobs ended: while not listening, and once after each (re)connection. */
  poll: () => Promise<void>;
  pollMs: number;
  log: (line: string) => void;
}

export class EndedWatch extends NotifyWatch {
  constructor(url: string, options: EndedWatchOptions) {
    super(url, {
      channel: ENDED_CHANNEL,
      about: 'stopped jobs',
      onNotify: (jobId) => jobId && options.onEnded(jobId),
      poll: options.poll,
      pollMs: options.pollMs,
      log: options.log,
    });
  }
}
