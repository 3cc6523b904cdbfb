/**
 * The webhooks of the jobs a process runs: each job's deliveries in a queue of its own, sent in order, one at a
 * time, beside the job (a slow receiver never slows it). A queue is bounded: when full, `page` deliveries give
 * way first (counted in the record's webhookDropped). A failed attempt is retried after each delay of the
 * schedule in turn; after the last it is dropped, with a line in the log and a count in the record
 * (webhookFailures). With a spool, owed deliveries are stored until sent, and a later process sends them.
 */
import { errorMessage } from '../../api/errors.js';
import type { JobKind, JobRequest, PageEntry } from '../../api/types.js';
import { wantsEvent, type Webhook, type WebhookEvent } from '../../api/webhook.js';
import type { EgressGuard } from '../../engine/net/egress.js';
import type { OwnedJobStore, RecordHeader } from '../jobStore.js';
import { newDelivery, seqAfter, type Delivery, type DeliveryContent, type WebhookSpool } from './delivery.js';
import { DELIVERY_TIMEOUT_MS, sendOnce } from './send.js';
import { pause } from './pause.js';

/** Firecrawl's schedule: retried after 1, 5 and 15 minutes, then dropped. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [60_000, 300_000, 900_000];
/** Deliveries one job may have waiting; past that, page deliveries are dropped. */
export const MAX_QUEUED_PER_JOB = 100;

export type WebhookCount = 'webhookFailures' | 'webhookDropped';

export interface WebhookSettings {
  secret?: string;
  retryDelaysMs?: readonly number[];
  /** serve's address guard, checked on every attempt; none on the CLI. */
  guard?: EgressGuard;
  spool?: WebhookSpool;
  /** A line for serve's log (a delivery dropped after its last retry). */
  log?: (line: string) => void;
  /** Adds to a count of the job's record. */
  count?: (jobId: string, field: WebhookCount, by: number) => Promise<void>;
  maxQueuedPerJob?: number;
  timeoutMs?: number;
}

interface Queue {
  deliveries: Delivery[];
  /** The delivery being sent (deliveries[0]) may not be dropped for room. */
  sending?: Delivery;
  /** Resolves when the queue is empty (or the process closes). */
  drained: Promise<void>;
  /** Spool writes of this queue, in order. */
  writes: Promise<void>;
}

/** The webjobs CLI's schedule: a command waits for its deliveries before it exits, so its retries come sooner. */
export const CLI_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 15_000];

/** WebhookSettings.count on a job store: the count added to the job's record. */
export function countInRecord(store: Pick<OwnedJobStore, 'update'>): NonNullable<WebhookSettings['count']> {
  return async (jobId, field, by) => {
    await store.update(jobId, (record) => {
      const counts = record as { [name in WebhookCount]?: number };
      counts[field] = (counts[field] ?? 0) + by;
    });
  };
}

/** The webhook of a request, if it has one. */
export function webhookOf(request: JobRequest): Webhook | undefined {
  return 'webhook' in request ? request.webhook : undefined;
}

export class Webhooks {
  private readonly queues = new Map<string, Queue>();
  private readonly closing = new AbortController();
  private readonly retryDelaysMs: readonly number[];
  private readonly maxQueued: number;

  constructor(private readonly settings: WebhookSettings = {}) {
    this.retryDelaysMs = settings.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.maxQueued = Math.max(4, settings.maxQueuedPerJob ?? MAX_QUEUED_PER_JOB);
  }

  started(jobId: string, kind: JobKind, request: JobRequest): void {
    this.emit(jobId, kind, request, 'started', { success: true, data: [] });
  }

  page(jobId: string, kind: JobKind, request: JobRequest, entry: PageEntry): void {
    this.emit(jobId, kind, request, 'page', { success: entry.status !== 'failed', data: [entry], ...(entry.error ? { error: entry.error } : {}) });
  }

  /** The job's end: `completed` with the counts (an extract: its data), or `failed` (a stopped job too) with the error. */
  ended(jobId: string, kind: JobKind, request: JobRequest, record: RecordHeader, counts: { done: number; failed: number }): void {
    const data = kind === 'extract' ? record.data : { total: counts.done, completed: counts.done - counts.failed, failed: counts.failed };
    if (record.status === 'completed') this.emit(jobId, kind, request, 'completed', { success: true, data });
    else this.emit(jobId, kind, request, 'failed', { success: false, data, error: record.error ?? (record.status === 'stopped' ? 'the job was stopped' : `the job ended ${record.status}`) });
  }

  private emit(jobId: string, kind: JobKind, request: JobRequest, event: WebhookEvent, content: DeliveryContent): void {
    const webhook = webhookOf(request);
    if (!webhook || !wantsEvent(webhook, event) || this.closing.signal.aborted) return;
    this.enqueue(newDelivery(jobId, kind, webhook, event, content));
  }

  private enqueue(delivery: Delivery): void {
    const queue = this.queueOf(delivery.jobId);
    if (queue.deliveries.length >= this.maxQueued) {
      // Room is made by dropping a waiting page delivery, the oldest; else the new one, when it is a page.
      const victim = queue.deliveries.findIndex((d) => d.event === 'page' && d !== queue.sending);
      if (victim >= 0) {
        const [dropped] = queue.deliveries.splice(victim, 1);
        this.write(queue, () => this.settings.spool?.remove(dropped!));
      } else if (delivery.event === 'page') {
        void this.settings.count?.(delivery.jobId, 'webhookDropped', 1).catch(() => undefined);
        return;
      }
      if (victim >= 0) void this.settings.count?.(delivery.jobId, 'webhookDropped', 1).catch(() => undefined);
    }
    queue.deliveries.push(delivery);
    this.write(queue, () => this.settings.spool?.put(delivery));
  }

  private write(queue: Queue, op: () => Promise<void> | undefined): void {
    queue.writes = queue.writes.then(op).catch((err: unknown) => this.settings.log?.(`webhook: could not store a delivery: ${errorMessage(err)}`));
  }

  private queueOf(jobId: string): Queue {
    let queue = this.queues.get(jobId);
    if (!queue) {
      const created: Queue = { deliveries: [], drained: Promise.resolve(), writes: Promise.resolve() };
      created.drained = Promise.resolve().then(() => this.run(jobId, created));
      this.queues.set(jobId, created);
      queue = created;
    }
    return queue;
  }

  /** Sends the queue's deliveries in order until it is empty (then forgets it) or the process closes. */
  private async run(jobId: string, queue: Queue): Promise<void> {
    const signal = this.closing.signal;
    while (queue.deliveries.length > 0 && !signal.aborted) {
      const delivery = queue.deliveries[0]!;
      queue.sending = delivery;
      await queue.writes;
      if (delivery.dueAt > Date.now()) await pause(delivery.dueAt - Date.now(), signal);
      if (signal.aborted) break;
      try {
        await sendOnce(delivery, { guard: this.settings.guard, secret: this.settings.secret, timeoutMs: this.settings.timeoutMs ?? DELIVERY_TIMEOUT_MS, signal });
      } catch (err) {
        if (signal.aborted) break;
        if (delivery.attempts < this.retryDelaysMs.length) {
          delivery.dueAt = Date.now() + this.retryDelaysMs[delivery.attempts]!;
          delivery.attempts++;
          this.write(queue, () => this.settings.spool?.put({ ...delivery }));
          continue;
        }
        this.settings.log?.(`webhook ${delivery.type} of job ${jobId} dropped after ${delivery.attempts + 1} attempts: ${errorMessage(err)}`);
        await this.settings.count?.(jobId, 'webhookFailures', 1).catch(() => undefined);
      }
      queue.deliveries.shift();
      queue.sending = undefined;
      this.write(queue, () => this.settings.spool?.remove(delivery));
    }
    queue.sending = undefined;
    await queue.writes;
    // A delivery queued while the last writes ended is sent by this run too.
    if (queue.deliveries.length > 0 && !signal.aborted) return this.run(jobId, queue);
    if (this.queues.get(jobId) === queue) this.queues.delete(jobId);
  }

  /** Takes up the deliveries an earlier process left owed (serve's start): each job's go on in order. */
  async resumeOwed(): Promise<number> {
    const owed = (await this.settings.spool?.owed()) ?? [];
    for (const delivery of owed) {
      seqAfter(delivery.seq);
      const queue = this.queueOf(delivery.jobId);
      queue.deliveries.push(delivery);
    }
    return owed.length;
  }

  /** Resolves once every queue is empty: what the CLI waits for before it exits. */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.all([...this.queues.values()].map((queue) => queue.drained));
  }

  /** Stops sending: what is owed stays in the spool for the next process. */
  async close(): Promise<void> {
    this.closing.abort(new Error('webhooks closed'));
    await Promise.all([...this.queues.values()].map((queue) => queue.drained));
  }
}
