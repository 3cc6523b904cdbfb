/**
 * One page over plain HTTP, for the HTTP engine: GET through Engine.fetch (the
 * session's proxy, the request guard on every redirect hop, the job's headers
 * and cookies where they may go), the body decompressed by fetch and read up to
 * a cap, its charset the one a browser would pick (charset.ts).
 *
 * The result keeps what the formats built on it need: the document as served
 * (its bytes, and how to decode them), the response headers, the final URL and
 * status. The text is not decoded here: the extraction worker decodes the bytes
 * it is handed (extractPool.ts), and only the head is read on this thread, for a
 * meta refresh (a page's text was most of what the event loop allocated).
 */
import { PageError } from '../../api/errors.js';
import type { PlainFetch, PlainResponse } from '../crawl/fetchText.js';
import { capped } from '../crawl/fetchText.js';
import { EGRESS_ERROR_HEADER } from '../net/egress.js';
import { decodeAs, decodePrefix, sniffEncoding, type Encoding } from './charset.js';
import { PDF } from '../pdfPage.js';

export interface HttpPage {
  /** The URL asked for. */
  sourceURL: string;
  /** The URL answered, after redirects (HTTP and meta refresh). */
  url: string;
  status: number;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  /** The media type, without parameters, lower case ('' when the server sent none). */
  mediaType: string;
  /** The body as served, after Content-Encoding is undone; its memory is its own (it can be moved to a worker). */
  body: Buffer;
  /** How the body reads as text (decodedText); unused for a PDF document, read from its bytes. */
  encoding: Encoding;
}

/** The page's body as text. */
export function decodedText(page: Pick<HttpPage, 'body' | 'encoding'>): string {
  return decodeAs(page.body, page.encoding);
}

/** Bodies beyond this are not read further: no article is 20 MB of HTML, and the DOM costs ten times its size. */
export const MAX_HTML_BYTES = 20 * 1024 * 1024;

/** What a browser sends for a navigation: some sites answer other Accept headers with JSON or an error. */
export const NAVIGATION_HEADERS = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en-US,en;q=0.9',
};

/** Meta refreshes due within this long are followed, as the browser engine does (scrape.ts). */
const REFRESH_FOLLOW_S = 3;
const MAX_REFRESHES = 5;

async function readBody(response: PlainResponse): Promise<Buffer> {
  if (!response.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of capped(response.body, MAX_HTML_BYTES)) {
    chunks.push(chunk);
    length += chunk.length;
  }
  // Not Buffer.concat: a small result of it is a slice of Node's shared pool, which cannot be moved to a worker.
  const body = Buffer.from(new ArrayBuffer(length));
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

/** The characters of a document within which a meta refresh counts (refreshTarget). */
const REFRESH_SCAN_CHARS = 65_536;
const REFRESH_WORD = [...'refresh'].map((c) => c.charCodeAt(0));

/** Whether `bytes` hold the ASCII word "refresh", in any case. */
function mentionsRefresh(bytes: Uint8Array): boolean {
  const last = bytes.length - REFRESH_WORD.length;
  next: for (let i = 0; i <= last; i++) {
    if ((bytes[i]! | 0x20) !== REFRESH_WORD[0]) continue;
    for (let j = 1; j < REFRESH_WORD.length; j++) if ((bytes[i + j]! | 0x20) !== REFRESH_WORD[j]) continue next;
    return true;
  }
  return false;
}

/**
 * refreshTarget of the body, decoding only the first REFRESH_SCAN_CHARS characters, and
 * none of them when the bytes that hold them do not spell "refresh": a character takes at
 * most 4 bytes (UTF-16's 2), and in every charset but UTF-16 an ASCII letter is its own
 * byte. ISO-2022-JP's escapes take bytes without characters: its bytes are all looked at.
 * (The word split by a comment, `re<!-- -->fresh`, no longer counts: no browser reads it so.)
 */
function refreshOf(body: Buffer, encoding: Encoding, base: string): string | undefined {
  const utf16 = encoding.charset.startsWith('utf-16');
  const bytesPerChar = encoding.charset === 'iso-2022-jp' ? Infinity : 4;
  if (!utf16 && !mentionsRefresh(body.subarray(0, encoding.bom + bytesPerChar * REFRESH_SCAN_CHARS))) return undefined;
  return refreshTarget(decodePrefix(body, encoding, REFRESH_SCAN_CHARS), base);
}

/** The target of a `<meta http-equiv="refresh">` due within REFRESH_FOLLOW_S seconds, resolved against `base`. */
export function refreshTarget(html: string, base: string): string | undefined {
  // A refresh inside a comment (IE's conditional comments) is no refresh.
  const start = html.slice(0, REFRESH_SCAN_CHARS);
  const head = start.includes('<!--') ? start.replace(/<!--[\s\S]*?-->/g, '') : start;
  for (const tag of head.match(/<meta\b[^>]*http-equiv\s*=\s*["']?refresh[^>]*>/gi) ?? []) {
    const content = /\bcontent\s*=\s*(["'])(.*?)\1/i.exec(tag)?.[2] ?? '';
    const match = /^\s*(\d+(?:\.\d+)?)\s*[;,]?\s*(?:url\s*=\s*)?["']?([^"']*)["']?\s*$/i.exec(content);
    if (!match || !match[2] || Number(match[1]) > REFRESH_FOLLOW_S) continue;
    try {
      return new URL(match[2].trim(), base).href;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function describeFetchError(err: unknown, url: string, timeoutMs: number): string {
  const error = err as Error & { cause?: Error & { code?: string } };
  if (error.name === 'TimeoutError' || error.cause?.name === 'TimeoutError') return `timed out after ${timeoutMs} ms waiting for ${url} to load`;
  const code = error.cause?.code;
  if (code === 'ECONNREFUSED') return `connection refused: nothing is listening at that address for ${url}`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DNS lookup failed: the host name could not be resolved for ${url}`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `the connection was reset by the server for ${url}`;
  // fetch refuses the ports browsers refuse (SMTP, IRC...), as Chromium does.
  if (/bad port/i.test(error.cause?.message ?? error.message)) return `the port of ${url} is one browsers refuse to connect to (ERR_UNSAFE_PORT)`;
  return `could not load ${url}: ${error.cause?.message ?? error.message}`;
}

/**
 * Fetches `url` as a page. Redirects (each hop checked by the guard inside
 * `fetcher`) and meta refreshes due soon are followed; the whole page shares one
 * deadline. Throws PageError when nothing usable came back. With `conditional`
 * headers (If-None-Match, If-Modified-Since) a 304 comes back as it is.
 */
export async function fetchPage(
  fetcher: PlainFetch,
  url: string,
  options: { timeoutMs: number; signal?: AbortSignal; userAgent: string; conditional?: Record<string, string> },
): Promise<HttpPage> {
  const deadline = Date.now() + options.timeoutMs;
  let current = url;
  for (let refresh = 0; ; refresh++) {
    let response: PlainResponse;
    let body: Buffer;
    try {
      response = await fetcher(current, {
        timeoutMs: Math.max(1, deadline - Date.now()),
        signal: options.signal,
        // The conditional headers (validators.ts) go with the page's own request, not with a refresh's.
        headers: { ...NAVIGATION_HEADERS, ...(refresh === 0 ? options.conditional : undefined), 'user-agent': options.userAgent },
      });
      body = await readBody(response);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      if (err instanceof PageError) throw err;
      throw new PageError(describeFetchError(err, current, options.timeoutMs));
    }
    const egressError = response.headers.get(EGRESS_ERROR_HEADER);
    if (egressError) throw new PageError(egressError);
    if (response.status === 407) throw new PageError(`the proxy refused the credentials (HTTP 407) for ${url}`);
    const headers = Object.fromEntries(response.headers.entries());
    const contentType = headers['content-type'] ?? '';
    // A PDF is read from its bytes (pdfPage.ts): its charset means nothing.
    const encoding = PDF.test(contentType) ? { charset: 'utf-8', bom: 0 } : sniffEncoding(body, contentType);
    const page: HttpPage = {
      sourceURL: url,
      url: response.url || current,
      status: response.status,
      headers,
      mediaType: contentType.split(';')[0]!.trim().toLowerCase(),
      body,
      encoding,
    };
    // A saved page (file://) is read as it was saved: its refresh would load another page.
    const follows = refresh < MAX_REFRESHES && /html/.test(page.mediaType || 'html') && !page.url.startsWith('file:');
    const next = follows ? refreshOf(body, encoding, page.url) : undefined;
    if (!next || next === page.url) return page;
    current = next;
  }
}
