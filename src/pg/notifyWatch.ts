/**
 * Hears a PostgreSQL channel (LISTEN/NOTIFY) on a connection of its own, with a poll while it cannot.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { errorMessage } from '../api/errors.js';

export interface NotifyWatchOptions {
  channel: string;
  /** What the channel announces, for the log: "stopped jobs". */
  about: string;
  /** A notification came, with its payload ('' when none). */
  onNotify: (payload: string) => void;
  /** Asks the database what the channel would have said: while not listening, and once after each (re)connection. */
  poll: () => Promise<void>;
  pollMs: number;
  log: (line: string) => void;
}

/**
 * Hears a channel at once, by LISTEN on a connection of its own (a pooled one
 * would be handed to other queries). While that connection is down (the database
 * restarting, the network cut) notifications are lost, so it polls instead, and
 * polls once more on reconnecting for what happened meanwhile.
 */
export class NotifyWatch {
  private client: pg.Client | undefined;
  private polling: NodeJS.Timeout | undefined;
  private readonly closing = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly options: NotifyWatchOptions,
  ) {}

  /** Resolves once listening (or, if the database cannot be reached now, polling). */
  async start(): Promise<void> {
    let listening!: () => void;
    const first = new Promise<void>((resolve) => (listening = resolve));
    this.loop = this.run(listening);
    await first;
  }

  /** Listening now: what is announced is heard at once (else polled for every pollMs). */
  listening(): boolean {
    return this.client !== undefined;
  }

  private async run(listening: () => void): Promise<void> {
    const { channel, about } = this.options;
    for (let wait = 100; !this.closing.signal.aborted; wait = Math.min(wait * 2, 2_000)) {
      const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 10_000 });
      const lost = new Promise<void>((resolve) => {
        client.on('error', () => resolve());
        client.on('end', () => resolve());
      });
      try {
        await client.connect();
        client.on('notification', (n) => n.channel === channel && this.options.onNotify(n.payload ?? ''));
        await client.query(`LISTEN ${channel}`);
      } catch (err) {
        await client.end().catch(() => undefined);
        if (this.closing.signal.aborted) return;
        this.startPolling();
        listening();
        this.options.log(`cannot listen for ${about} (${errorMessage(err)}); polling meanwhile`);
        await sleep(wait, undefined, { signal: this.closing.signal }).catch(() => undefined);
        continue;
      }
      if (this.closing.signal.aborted) {
        await client.end().catch(() => undefined);
        return;
      }
      wait = 100;
      this.client = client;
      this.stopPolling();
      listening();
      void this.options.poll();
      await lost;
      this.client = undefined;
      if (this.closing.signal.aborted) return;
      this.startPolling();
      this.options.log(`lost the connection that hears ${about}; polling until it is back`);
      await client.end().catch(() => undefined);
    }
  }

  private startPolling(): void {
    this.polling ??= setInterval(() => void this.options.poll(), this.options.pollMs);
  }

  private stopPolling(): void {
    clearInterval(this.polling);
    this.polling = undefined;
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.stopPolling();
    await this.client?.end().catch(() => undefined);
    await this.loop;
  }
}
