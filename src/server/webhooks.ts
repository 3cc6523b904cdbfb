/**
 * serve's webhooks on the file store: signed with the operator's secret, retried on the operator's schedule,
 * each attempt through the address guard, owed deliveries kept under their job (store/webhookSpool.ts) and sent
 * again by the next serve.
 */
import { createEgressGuard, type AllowList } from '../engine/net/ssrf.js';
import type { JobStore } from '../jobs/jobStore.js';
import { countInRecord, Webhooks } from '../jobs/webhooks/webhooks.js';
import { FileWebhookSpool } from '../store/webhookSpool.js';

export interface ServeWebhookOptions {
  home: string;
  store: JobStore;
  /** WEBJOBS_WEBHOOK_SECRET or the file of --webhook-secret-file: deliveries carry X-Firecrawl-Signature. */
  secret?: string;
  retryDelaysMs?: readonly number[];
  allowPrivate?: boolean;
  allowHosts: AllowList;
  log: (line: string) => void;
}

export async function serveWebhooks(options: ServeWebhookOptions): Promise<Webhooks> {
  const { store, log } = options;
  const webhooks = new Webhooks({
    secret: options.secret,
    retryDelaysMs: options.retryDelaysMs,
    // No cache: every attempt resolves the name again and is checked on what it resolves to now.
    guard: options.allowPrivate ? undefined : createEgressGuard({ allow: options.allowHosts, cacheMs: 0 }),
    spool: new FileWebhookSpool(options.home),
    log,
    count: countInRecord(store),
  });
  const owed = await webhooks.resumeOwed();
  if (owed > 0) log(`webhooks: ${owed} deliveries owed by a previous run are being sent`);
  return webhooks;
}
