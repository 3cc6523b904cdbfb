/** `--webhook URL` of crawl, batch and extract: the job's events POSTed to URL (jobs/webhooks/). */
import type { Command } from 'commander';
import { validateWebhook, type Webhook } from '../api/webhook.js';

export interface WebhookFlags {
  webhook?: string;
}

export function addWebhookOption(cmd: Command): Command {
  return cmd.option(
    '--webhook <url>',
    "POST the job's events (started, each page, completed or failed) to this http(s) URL as JSON, in order; signed with WEBJOBS_WEBHOOK_SECRET when set",
  );
}

/** The request's webhook field; a bad URL is a usage error (exit 2) naming --webhook. */
export function webhookFrom(flags: WebhookFlags): { webhook?: Webhook } {
  const webhook = validateWebhook(flags.webhook, '--webhook');
  return webhook ? { webhook } : {};
}
