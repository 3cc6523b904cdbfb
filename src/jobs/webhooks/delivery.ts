/**
 * One webhook delivery: what is POSTed (Firecrawl's form `{success, type, id, webhookId, data, metadata, error?}`),
 * kept as the exact bytes that are signed, so a retry (or a restarted serve) sends the same body and signature.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { JobKind } from '../../api/types.js';
import type { Webhook, WebhookEvent } from '../../api/webhook.js';

export interface Delivery {
  jobId: string;
  /** Orders a job's deliveries, also across a restart (spool file names). */
  seq: number;
  /** One id per delivery, the same on every retry: a receiver drops duplicates by it (Firecrawl's webhookId). */
  webhookId: string;
  /** `crawl.page`, `batch_scrape.completed`, … */
  type: string;
  event: WebhookEvent;
  url: string;
  headers: Record<string, string>;
  /** The JSON body as sent and signed. */
  body: string;
  /** Attempts failed so far. */
  attempts: number;
  /** Epoch ms before which the next attempt is not made. */
  dueAt: number;
}

/** Where the deliveries a job still owes are kept until sent or dropped, so that they survive a restart. */
export interface WebhookSpool {
  /** Stores a delivery, or its new attempt count and due time. */
  put(delivery: Delivery): Promise<void>;
  remove(delivery: Delivery): Promise<void>;
  /** Every delivery still owed, each job's in order. */
  owed(): Promise<Delivery[]>;
}

/** Firecrawl's name of a kind in event types: a batch is `batch_scrape`. */
const TYPE_PREFIX: Partial<Record<JobKind, string>> = { crawl: 'crawl', batch: 'batch_scrape', extract: 'extract' };

export function eventType(kind: JobKind, event: WebhookEvent): string {
  return `${TYPE_PREFIX[kind] ?? kind}.${event}`;
}

let lastSeq = 0;
/** Increasing across this process and above any earlier process's (milliseconds × 1000 + a counter). */
export function nextSeq(): number {
  lastSeq = Math.max(lastSeq + 1, Date.now() * 1000);
  return lastSeq;
}

/** Seqs this process hands out come after `seq` (a spool read back after a restart). */
export function seqAfter(seq: number): void {
  lastSeq = Math.max(lastSeq, seq);
}

export interface DeliveryContent {
  success: boolean;
  data: unknown;
  error?: string;
}

export function newDelivery(jobId: string, kind: JobKind, webhook: Webhook, event: WebhookEvent, content: DeliveryContent): Delivery {
  const webhookId = randomUUID();
  const type = eventType(kind, event);
  const body = JSON.stringify({
    success: content.success,
    type,
    id: jobId,
    webhookId,
    data: content.data,
    metadata: webhook.metadata ?? {},
    ...(content.error !== undefined ? { error: content.error } : {}),
  });
  return { jobId, seq: nextSeq(), webhookId, type, event, url: webhook.url, headers: webhook.headers ?? {}, body, attempts: 0, dueAt: 0 };
}

/** Firecrawl's signature header value: `sha256=` and the hex HMAC-SHA256 of the raw body under the operator's secret. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
