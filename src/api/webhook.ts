/**
 * The `webhook` field of crawl, batch scrape and extract (Firecrawl's form): a URL, or `{url, headers, metadata,
 * events}`. Validated into its object form; the deliveries themselves are jobs/webhooks/'s.
 */
import { LimitError, UsageError } from './errors.js';
import { isObject, rejectUnknown } from './validateFields.js';

/** The events a webhook may ask for; every one by default. */
export const WEBHOOK_EVENTS = ['started', 'page', 'completed', 'failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Webhook {
  url: string;
  /** Sent with every delivery. */
  headers?: Record<string, string>;
  /** Echoed in every delivery. */
  metadata?: Record<string, unknown>;
  /** The events delivered; all of them when absent. */
  events?: WebhookEvent[];
}

export const WEBHOOK_LIMITS = { maxHeaders: 20, maxMetadataBytes: 16 * 1024 } as const;

/** Header names a receiver's HTTP parser accepts (RFC 9110 token); values without line breaks. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers a delivery sets itself: a webhook may not replace them. */
const OURS = new Set(['content-type', 'content-length', 'host', 'x-firecrawl-signature', 'transfer-encoding', 'connection']);

function webhookUrl(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${field} must be an http(s) URL`);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new UsageError(`${field}: "${value}" is not a valid URL (expected e.g. https://example.com/hook)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${field}: "${value}" is not an http or https URL`);
  if (url.username || url.password) throw new UsageError(`${field}: put credentials in webhook.headers, not in the URL`);
  return url.href;
}

function webhookHeaders(value: unknown, field: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new UsageError(`${field} must be an object of header names and string values`);
  const names = Object.keys(value);
  if (names.length > WEBHOOK_LIMITS.maxHeaders) throw new LimitError(`${field}: ${names.length} headers given, the limit is ${WEBHOOK_LIMITS.maxHeaders}`);
  for (const name of names) {
    const header = value[name];
    if (!TOKEN.test(name)) throw new UsageError(`${field}: "${name}" is not a valid header name`);
    if (OURS.has(name.toLowerCase())) throw new UsageError(`${field}: ${name} is set by webjobs, not by the webhook`);
    if (typeof header !== 'string' || /[\r\n\0]/.test(header)) throw new UsageError(`${field}.${name} must be a string on one line`);
  }
  return value as Record<string, string>;
}

function webhookMetadata(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new UsageError(`${field} must be a JSON object`);
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > WEBHOOK_LIMITS.maxMetadataBytes) throw new LimitError(`${field}: ${bytes} bytes of JSON, the limit is ${WEBHOOK_LIMITS.maxMetadataBytes} (16 KB)`);
  return value;
}

function webhookEvents(value: unknown, field: string): WebhookEvent[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new UsageError(`${field} must be an array of events (${WEBHOOK_EVENTS.join(', ')})`);
  for (const event of value) {
    if (!(WEBHOOK_EVENTS as readonly unknown[]).includes(event)) {
      throw new UsageError(`${field}: unknown event ${JSON.stringify(event)} (events: ${WEBHOOK_EVENTS.join(', ')})`);
    }
  }
  return [...new Set(value as WebhookEvent[])];
}

/** `value` (a URL string or the object form) as a Webhook, or undefined when absent; a UsageError naming the field else. */
export function validateWebhook(value: unknown, field = 'request.webhook'): Webhook | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return { url: webhookUrl(value, field) };
  if (!isObject(value)) throw new UsageError(`${field} must be a URL or an object {url, headers, metadata, events}`);
  rejectUnknown(value, ['url', 'headers', 'metadata', 'events'], field);
  const headers = webhookHeaders(value.headers, `${field}.headers`);
  const metadata = webhookMetadata(value.metadata, `${field}.metadata`);
  const events = webhookEvents(value.events, `${field}.events`);
  return {
    url: webhookUrl(value.url, `${field}.url`),
    ...(headers ? { headers } : {}),
    ...(metadata ? { metadata } : {}),
    ...(events ? { events } : {}),
  };
}

/** Whether `webhook` asks for `event`. */
export function wantsEvent(webhook: Webhook, event: WebhookEvent): boolean {
  return !webhook.events || webhook.events.includes(event);
}
