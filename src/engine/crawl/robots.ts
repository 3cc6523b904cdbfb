/**
 * robots.txt: which paths the crawler may fetch, how long it waits between
 * requests (Crawl-delay), and the sitemaps it announces. Parsing and the
 * Allow/Disallow precedence (longest match, * and $ wildcards, our group
 * "webjobs" before "*") are robots-parser's. Every origin (scheme, host, port)
 * has its own robots.txt (RFC 9309, 2.3): RobotsCache loads each one once per crawl.
 */
import { createRequire } from 'node:module';
import { ROBOTS_TOKEN } from '../userAgent.js';
import { fetchText, type PlainFetch } from './fetchText.js';

export interface Robots {
  isAllowed(url: string): boolean;
  /** Crawl-delay for webjobs (or *), in milliseconds; 0 when none. */
  delayMs: number;
  sitemaps: string[];
  /** Why the whole origin is off limits, when its robots.txt could not be read (5xx, unreachable). */
  unavailable?: string;
}

// robots-parser is CommonJS whose typings declare an ES default export; require() gets the function either way.
type ParseRobots = (url: string, text: string) => {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getCrawlDelay(userAgent?: string): number | undefined;
  getSitemaps(): string[];
};
const robotsParser = createRequire(import.meta.url)('robots-parser') as ParseRobots;

const ALLOW_ALL: Robots = { isAllowed: () => true, delayMs: 0, sitemaps: [] };

/** As Google does, only the first 500 KiB of a robots.txt count; the rest is not even downloaded. */
export const MAX_ROBOTS_BYTES = 500 * 1024;
/** A Crawl-delay above this is read as this much: one page a minute is already the politest crawl that ends. */
export const MAX_CRAWL_DELAY_MS = 60_000;

/**
 * Fetches <origin>/robots.txt. As RFC 9309 (2.3.1) says: a 2xx is parsed; a 4xx
 * (no file) allows everything; a 5xx or an unreachable server disallows
 * everything on that origin, since the site's rules are unknown, not absent.
 */
export async function loadRobots(fetcher: PlainFetch, originUrl: string, timeoutMs: number, signal?: AbortSignal): Promise<Robots> {
  const robotsUrl = new URL('/robots.txt', originUrl).href;
  const fetched = await fetchText(fetcher, robotsUrl, { timeoutMs, maxBytes: MAX_ROBOTS_BYTES, signal });
  if (fetched.status >= 400 && fetched.status < 500) return ALLOW_ALL;
  if (fetched.status < 200 || fetched.status >= 300) {
    const why = fetched.status === 0 ? 'could not be fetched' : `answered HTTP ${fetched.status}`;
    return { isAllowed: () => false, delayMs: 0, sitemaps: [], unavailable: `${robotsUrl} ${why}, so nothing on ${new URL(robotsUrl).host} is crawled (RFC 9309)` };
  }
  const parsed = robotsParser(robotsUrl, fetched.text);
  const delaySeconds = Number(parsed.getCrawlDelay(ROBOTS_TOKEN) ?? 0);
  return {
    // undefined only for another origin, which has a Robots of its own.
    isAllowed: (url) => parsed.isAllowed(url, ROBOTS_TOKEN) !== false,
    delayMs: Number.isFinite(delaySeconds) && delaySeconds > 0 ? Math.min(Math.round(delaySeconds * 1000), MAX_CRAWL_DELAY_MS) : 0,
    sitemaps: parsed.getSitemaps(),
  };
}

/** The robots.txt of every origin a crawl meets, each fetched once (concurrent askers share the fetch). */
export class RobotsCache {
  private readonly byOrigin = new Map<string, Promise<Robots>>();

  constructor(
    private readonly fetcher: PlainFetch,
    private readonly timeoutMs: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** The robots.txt that governs `url`. */
  for(url: string): Promise<Robots> {
    const origin = new URL(url).origin;
    let robots = this.byOrigin.get(origin);
    if (!robots) {
      robots = loadRobots(this.fetcher, origin, this.timeoutMs, this.signal);
      this.byOrigin.set(origin, robots);
    }
    return robots;
  }

  async isAllowed(url: string): Promise<boolean> {
    return (await this.for(url)).isAllowed(url);
  }
}
