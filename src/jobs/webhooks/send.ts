/**
 * One attempt at a delivery: a POST that succeeds on a 2xx answer within the timeout. Under serve the address
 * guard resolves the receiver's name and checks every address (as the egress proxy does for a page), and the
 * request connects to those addresses only: a name that changes its answer between the check and the
 * connection (DNS rebinding) never reaches a refused address.
 */
import net, { type LookupFunction } from 'node:net';
import type { EgressGuard } from '../../engine/net/egress.js';
import { signature, type Delivery } from './delivery.js';

// Taken with process.getBuiltinModule, as session/directFetch.ts does: an ES import of node:http loads undici
// too (for its WebSocket getter), and this module is loaded with every batch, crawl and extract command.
const http = process.getBuiltinModule('node:http');
const https = process.getBuiltinModule('node:https');

/** Failure: no 2xx within this long (Firecrawl's rule). */
export const DELIVERY_TIMEOUT_MS = 10_000;

export interface SendOptions {
  /** The address guard of serve; none on the CLI, which runs as its user. */
  guard?: EgressGuard;
  /** WEBJOBS_WEBHOOK_SECRET: the body is signed in X-Firecrawl-Signature. */
  secret?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Why an attempt failed (a refused connection, a DNS failure, the guard, an HTTP status, the timeout). */
export class DeliveryFailure extends Error {}

/** A lookup that answers the addresses the guard checked, whatever the resolver would say now. */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  return (_hostname, options, callback) => {
    const all = addresses.map((address) => ({ address, family: net.isIP(address) }));
    const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
    if (wanted.length === 0) {
      callback(Object.assign(new Error('no address of the family asked for'), { code: 'ENOTFOUND' }), '', 4);
      return;
    }
    if (options.all) (callback as unknown as (err: null, addresses: { address: string; family: number }[]) => void)(null, wanted);
    else callback(null, wanted[0]!.address, wanted[0]!.family);
  };
}

/** Sends `delivery` once; resolves on a 2xx answer, throws DeliveryFailure saying why not. */
export async function sendOnce(delivery: Delivery, options: SendOptions = {}): Promise<void> {
  const url = new URL(delivery.url);
  const https_ = url.protocol === 'https:';
  let lookup: LookupFunction | undefined;
  if (options.guard) {
    const port = Number(url.port) || (https_ ? 443 : 80);
    const decision = await options.guard(url.hostname, port);
    if ('refusal' in decision) throw new DeliveryFailure(`address guard: ${decision.refusal}`);
    lookup = pinnedLookup(decision.addresses);
  }
  const body = Buffer.from(delivery.body);
  const headers: Record<string, string | number> = {
    ...delivery.headers,
    'content-type': 'application/json',
    'content-length': body.length,
    ...(options.secret ? { 'x-firecrawl-signature': signature(options.secret, delivery.body) } : {}),
  };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) headers['user-agent'] = 'webjobs-webhook';
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    const fail = (why: string) => reject(new DeliveryFailure(why));
    const request = (https_ ? https : http).request(url, { method: 'POST', headers, lookup, agent: false, signal: options.signal }, (answer) => {
      clearTimeout(timer);
      answer.resume();
      const status = answer.statusCode ?? 0;
      if (status >= 200 && status < 300) resolve();
      else fail(`the receiver answered HTTP ${status}`);
      // The answer's body is not waited for: the status decides.
      answer.on('error', () => undefined);
    });
    const timer = setTimeout(() => request.destroy(new DeliveryFailure(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err instanceof DeliveryFailure) return reject(err);
      const code = err.code ? ` (${err.code})` : '';
      if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return fail(`DNS lookup failed for ${url.hostname}${code}`);
      fail(`${err.message}${err.message.includes(err.code ?? '\0') ? '' : code}`);
    });
    request.end(body);
  });
}
