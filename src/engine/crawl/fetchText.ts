/**
 * Plain HTTP GETs for robots.txt and sitemaps: no browser needed, bounded in
 * time and size. The body is read as a stream and never past `maxBytes`; a
 * gzip body (sitemap.xml.gz is served as a file, not with Content-Encoding) is
 * inflated by a zlib stream, which works in libuv's thread pool rather than on
 * the event loop, and never past `maxBytes` of output either. What fits under
 * the cap is kept: the first part of an oversized robots.txt or sitemap is
 * still read, as crawlers do (Google reads the first 500 KiB of robots.txt).
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { PageError } from '../../api/errors.js';

/** robots.txt and each sitemap file (and a map's pages) get this long: they are small files. */
export const FETCH_TIMEOUT_MS = 10_000;

export interface Fetched {
  status: number;
  /** Final URL after redirects. */
  url: string;
  /** The body, or its beginning when it was longer than the cap (before or after inflating). */
  text: string;
  /** Why the page was not fetched when the engine refused it (an address the guard refuses, a redirect to data:), not the network. */
  refused?: string;
}

export interface FetchTextOptions {
  timeoutMs: number;
  /** Most bytes read from the network, and most bytes of text after inflating. */
  maxBytes: number;
  signal?: AbortSignal;
}

/** A plain answer's body: its chunks, read once; leaving the reading early, or cancel, closes its connection. */
export interface PlainBody extends AsyncIterable<Uint8Array> {
  cancel(): Promise<void>;
}

/**
 * What a plain request answers: the parts of a WHATWG Response that its readers use. Node's fetch and undici's
 * give a Response (asPlain), a request without a proxy a lighter object of its own (session/directFetch.ts).
 */
export interface PlainResponse {
  readonly status: number;
  readonly ok: boolean;
  /** The URL answering, without its fragment. */
  readonly url: string;
  readonly headers: { get(name: string): string | null; entries(): IterableIterator<[string, string]> };
  readonly body: PlainBody | null;
}

/** A fetch Response as a PlainResponse: its body, a ReadableStream, is async iterable in Node (not in the DOM's types). */
export const asPlain = (response: Response): PlainResponse => response as unknown as PlainResponse;

/** How plain requests go out: Engine.fetch, which applies the session's proxy and the request guard. */
export type PlainFetch = (url: string, init: { timeoutMs: number; signal?: AbortSignal; headers: Record<string, string> }) => Promise<PlainResponse>;

/** The chunks of `source`, stopping (and so cancelling the source) after `maxBytes`. */
export async function* capped(source: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of source) {
    const room = maxBytes - total;
    if (chunk.length > room) {
      if (room > 0) yield chunk.subarray(0, room);
      return;
    }
    total += chunk.length;
    yield chunk;
  }
}

/** `first` and then the rest of `iterator`. */
async function* prepend(first: Uint8Array, iterator: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (first.length > 0) yield first;
  for (let step = await iterator.next(); !step.done; step = await iterator.next()) yield step.value;
}

/** Reads until at least two bytes (the gzip magic) are in, or the body ended. */
async function peek(iterator: AsyncIterator<Uint8Array>): Promise<Buffer> {
  let head = Buffer.alloc(0);
  while (head.length < 2) {
    const step = await iterator.next();
    if (step.done) break;
    head = Buffer.concat([head, step.value]);
  }
  return head;
}

const isGzip = (head: Buffer) => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;

/** Inflates a gzip stream in the thread pool. A body cut short or corrupt ends the text where inflating stopped. */
async function* gunzipped(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const input = Readable.from(source);
  const gunzip = createGunzip();
  input.on('error', (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch {
    // keep what was inflated before the error
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

async function readBody(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string> {
  const raw = capped(body, maxBytes)[Symbol.asyncIterator]();
  const head = await peek(raw);
  const bytes = isGzip(head) ? capped(gunzipped(prepend(head, raw)), maxBytes) : prepend(head, raw);
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  try {
    for await (const chunk of bytes) parts.push(decoder.decode(chunk, { stream: true }));
  } finally {
    // Stops reading the network; not awaited, as a stalled server would hold it until the timeout.
    void raw.return?.(undefined).catch(() => undefined);
  }
  parts.push(decoder.decode());
  return parts.join('');
}

/**
 * GET `url` as text. Network errors and timeouts come back as status 0, so
 * callers treat "unreachable" like "absent" without try/catch.
 */
export async function fetchText(fetcher: PlainFetch, url: string, options: FetchTextOptions): Promise<Fetched> {
  try {
    const response = await fetcher(url, {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      // The User-Agent is the fetcher's (Engine.fetch, after userAgent.ts).
      headers: { accept: 'text/plain, application/xml, text/xml, */*' },
    });
    const finalUrl = response.url || url;
    const text = response.body ? await readBody(response.body, options.maxBytes) : '';
    return { status: response.status, url: finalUrl, text };
  } catch (err) {
    return { status: 0, url, text: '', ...(err instanceof PageError ? { refused: err.message } : {}) };
  }
}
