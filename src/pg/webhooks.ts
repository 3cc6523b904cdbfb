/**
 * Webhooks on PostgreSQL (issue 60): the deliveries a job owes are rows of webjobs_webhook_deliveries, written
 * in the transaction that makes each event (migration 9's triggers: the job's row, each page's entry, the job's
 * end), so a worker killed after a page leaves no delivery unsaid, and a delivery survives any restart. Any API
 * node sends them: it claims the first owed delivery of each job (none of that job's is being sent) on a lease,
 * with FOR UPDATE SKIP LOCKED as the job queue does, and sends it as the file store does (jobs/webhooks/: the
 * same body bytes and signature, the address guard on every attempt, failure as no 2xx within 10 s). A failed
 * attempt is due again after the next delay of the schedule; after the last it is dropped, with a line in the log
 * and the job's webhook_failures counted (the record's webhookFailures).
 *
 * A node hears a delivery owed at once: the insert announces it (migration 10, WEBHOOK_OWED_CHANNEL), heard by
 * LISTEN on a connection of its own. It looks at the table again after each delivery it sends, when a retry it
 * scheduled is due, and every few seconds all the same (notifications missed, a dead node's lease run out), or
 * every 500 ms while it cannot listen.
 */
import type pg from 'pg';
import { errorMessage } from '../api/errors.js';
import type { Webhook, WebhookEvent } from '../api/webhook.js';
import type { EgressGuard } from '../engine/net/egress.js';
import type { Delivery } from '../jobs/webhooks/delivery.js';
import { DELIVERY_TIMEOUT_MS, sendOnce } from '../jobs/webhooks/send.js';
import { DEFAULT_RETRY_DELAYS_MS } from '../jobs/webhooks/webhooks.js';
import { pause } from '../jobs/webhooks/pause.js';
import { WEBHOOK_OWED_CHANNEL } from './migrations.js';
import { NotifyWatch } from './notifyWatch.js';

export interface PgWebhookSettings {
  secret?: string;
  retryDelaysMs?: readonly number[];
  /** serve's address guard, checked on every attempt; none with --allow-private. */
  guard?: EgressGuard;
  log: (line: string) => void;
  /** Deliveries this node sends at once (each of another job). */
  concurrency?: number;
  /** How often the table is looked at when nothing was announced (missed notifications, a lease run out). */
  pollMs?: number;
  /** How often while the connection that listens for deliveries owed is down. */
  deafPollMs?: number;
  timeoutMs?: number;
}

interface Claimed {
  id: string;
  job_id: string;
  event: WebhookEvent;
  body: string;
  attempts: number;
  webhook: Webhook | null;
}

/** A claimed delivery is this node's for this long (an attempt lasts at most the timeout); then any node's again. */
const LEASE_SECONDS = 60;

export class PgWebhookSender {
  private readonly closing = new AbortController();
  private readonly sending = new Set<Promise<void>>();
  private readonly retryDelaysMs: readonly number[];
  private loop: Promise<void> | undefined;
  private readonly owed: NotifyWatch;
  /** Ends the loop's wait: a delivery owed was announced, or a retry this node scheduled is due. */
  private wake: () => void = () => undefined;
  private readonly retries = new Set<NodeJS.Timeout>();

  /** `url`: the database's, for the connection that listens for deliveries owed. */
  constructor(
    url: string,
    private readonly pool: pg.Pool,
    private readonly settings: PgWebhookSettings,
  ) {
    this.retryDelaysMs = settings.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.owed = new NotifyWatch(url, {
      channel: WEBHOOK_OWED_CHANNEL,
      about: 'webhook deliveries owed',
      onNotify: () => this.wake(),
      poll: async () => this.wake(),
      pollMs: settings.deafPollMs ?? 500,
      log: settings.log,
    });
  }

  /** Resolves once the node listens for deliveries owed (or, the database out of reach, polls for them). */
  async start(): Promise<void> {
    let listening!: () => void;
    const started = new Promise<void>((resolve) => (listening = resolve));
    this.loop ??= this.run(listening);
    await started;
  }

  /** Stops claiming; attempts under way are aborted and their deliveries given back at once, for any node. */
  async close(): Promise<void> {
    this.closing.abort(new Error('webhooks closed'));
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
    this.wake();
    await this.loop;
    await Promise.all(this.sending);
    await this.owed.close();
  }

  private async run(listening: () => void): Promise<void> {
    const signal = this.closing.signal;
    const concurrency = this.settings.concurrency ?? 8;
    // Listening before the first look: a delivery owed after it is heard.
    await this.owed.start();
    listening();
    while (!signal.aborted) {
      const heard = new Promise<void>((resolve) => (this.wake = resolve));
      const free = concurrency - this.sending.size;
      const claimed = free > 0 ? await this.claim(free).catch((err: unknown) => this.failedClaim(err)) : [];
      for (const delivery of claimed) {
        const sent: Promise<void> = this.send(delivery).finally(() => this.sending.delete(sent));
        this.sending.add(sent);
      }
      if (claimed.length === free && free > 0) continue;
      // Nothing more due: look again when one is announced or a slot frees, else after a while.
      await Promise.race([pause(this.settings.pollMs ?? 5_000, signal), heard, ...this.sending]);
    }
  }

  private failedClaim(err: unknown): Claimed[] {
    if (!this.closing.signal.aborted) this.settings.log(`webhooks: cannot read the deliveries owed: ${errorMessage(err)}`);
    return [];
  }

  /** The first owed delivery of up to `count` jobs, each due and not being sent, leased to this node. */
  private async claim(count: number): Promise<Claimed[]> {
    const { rows } = await this.pool.query<Claimed>(
      `UPDATE webjobs_webhook_deliveries d SET lease_until = now() + make_interval(secs => $2)
       FROM (
         SELECT h.id FROM webjobs_webhook_deliveries h
         WHERE h.due_at <= now() AND (h.lease_until IS NULL OR h.lease_until < now())
           AND NOT EXISTS (SELECT 1 FROM webjobs_webhook_deliveries e WHERE e.job_id = h.job_id AND (e.rank, e.id) < (h.rank, h.id))
         ORDER BY h.due_at, h.id LIMIT $1 FOR UPDATE SKIP LOCKED
       ) pick
       WHERE d.id = pick.id
       RETURNING d.id, d.job_id, d.event, d.body, d.attempts, (SELECT j.request->'webhook' FROM webjobs_jobs j WHERE j.id = d.job_id) AS webhook`,
      [count, LEASE_SECONDS],
    );
    return rows;
  }

  private async send(claimed: Claimed): Promise<void> {
    const signal = this.closing.signal;
    try {
      if (!claimed.webhook) throw new Error('the job no longer has a webhook');
      await sendOnce(asDelivery(claimed, claimed.webhook), { guard: this.settings.guard, secret: this.settings.secret, timeoutMs: this.settings.timeoutMs ?? DELIVERY_TIMEOUT_MS, signal });
      await this.pool.query('DELETE FROM webjobs_webhook_deliveries WHERE id = $1', [claimed.id]);
    } catch (err) {
      if (signal.aborted) {
        // Given back, and announced: the next node (or this one's next start) sends it now, not after the lease.
        await this.pool
          .query(`WITH given AS (UPDATE webjobs_webhook_deliveries SET lease_until = NULL WHERE id = $1 RETURNING id) SELECT pg_notify($2, '') FROM given`, [claimed.id, WEBHOOK_OWED_CHANNEL])
          .catch(() => undefined);
        return;
      }
      await this.failed(claimed, err).catch((stored: unknown) => this.settings.log(`webhooks: cannot store a failed attempt: ${errorMessage(stored)}`));
    }
  }

  /** Looks at the table again once a retry this node scheduled is due. */
  private lookAgainIn(ms: number): void {
    if (this.closing.signal.aborted) return;
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      this.wake();
    }, ms);
    this.retries.add(timer);
  }

  /** A failed attempt: due again after the next delay of the schedule, or dropped after the last, counted in the job. */
  private async failed(claimed: Claimed, err: unknown): Promise<void> {
    if (claimed.attempts < this.retryDelaysMs.length) {
      await this.pool.query(
        `UPDATE webjobs_webhook_deliveries SET attempts = attempts + 1, due_at = now() + make_interval(secs => $2), lease_until = NULL WHERE id = $1`,
        [claimed.id, this.retryDelaysMs[claimed.attempts]! / 1000],
      );
      this.lookAgainIn(this.retryDelaysMs[claimed.attempts]!);
      return;
    }
    const type = (JSON.parse(claimed.body) as { type?: string }).type ?? claimed.event;
    this.settings.log(`webhook ${type} of job ${claimed.job_id} dropped after ${claimed.attempts + 1} attempts: ${errorMessage(err)}`);
    await this.pool.query(
      `WITH dropped AS (DELETE FROM webjobs_webhook_deliveries WHERE id = $1 RETURNING job_id)
       UPDATE webjobs_jobs SET webhook_failures = webhook_failures + 1 WHERE id IN (SELECT job_id FROM dropped)`,
      [claimed.id],
    );
  }
}

/** What sendOnce reads of a delivery: where, with which headers, the body as stored. */
function asDelivery(claimed: Claimed, webhook: Webhook): Delivery {
  const { type, webhookId } = JSON.parse(claimed.body) as { type: string; webhookId: string };
  return {
    jobId: claimed.job_id,
    seq: Number(claimed.id),
    webhookId,
    type,
    event: claimed.event,
    url: webhook.url,
    headers: webhook.headers ?? {},
    body: claimed.body,
    attempts: claimed.attempts,
    dueAt: 0,
  };
}
