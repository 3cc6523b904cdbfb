/** Plain HTTP GETs for robots.txt and sitemaps: no browser needed, bounded in time and size. */
import { gunzipSync } from 'node:zlib';

export const CRAWLER_USER_AGENT = 'webjobs';

export interface Fetched {
  status: number;
  /** Final URL after redirects. */
  url: string;
  text: string;
}

const MAX_BYTES = 20 * 1024 * 1024;

/** How plain requests go out: Engine.fetch, which applies the session's proxy and the request guard. */
export type PlainFetch = (url: string, init: { timeoutMs: number; signal?: AbortSignal; headers: Record<string, string> }) => Promise<Response>;

function isGzip(bytes: Buffer): boolean {
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * GET `url` as text, un-gzipping a gzip body (sitemap.xml.gz is served as a file,
 * not with Content-Encoding). Network errors and timeouts come back as status 0,
 * so callers treat "unreachable" like "absent" without try/catch.
 */
export async function fetchText(fetcher: PlainFetch, url: string, timeoutMs: number, signal?: AbortSignal): Promise<Fetched> {
  try {
    const response = await fetcher(url, {
      timeoutMs,
      signal,
      headers: { 'user-agent': CRAWLER_USER_AGENT, accept: 'text/plain, application/xml, text/xml, */*' },
    });
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > MAX_BYTES) {
      await response.body?.cancel();
      return { status: 0, url, text: '' };
    }
    let bytes: Buffer = Buffer.from(await response.arrayBuffer());
    if (isGzip(bytes)) bytes = gunzipSync(bytes, { maxOutputLength: MAX_BYTES * 5 });
    return { status: response.status, url: response.url || url, text: bytes.toString('utf8') };
  } catch {
    return { status: 0, url, text: '' };
  }
}
