/**
 * robots.txt: which paths the crawler may fetch, and the sitemaps it announces.
 * Parsing and the Allow/Disallow precedence (longest match, * and $ wildcards,
 * our group "webjobs" before "*") are robots-parser's.
 */
import { createRequire } from 'node:module';
import { CRAWLER_USER_AGENT, fetchText, type PlainFetch } from './fetchText.js';

export interface Robots {
  isAllowed(url: string): boolean;
  sitemaps: string[];
}

// robots-parser is CommonJS whose typings declare an ES default export; require() gets the function either way.
type ParseRobots = (url: string, text: string) => {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getSitemaps(): string[];
};
const robotsParser = createRequire(import.meta.url)('robots-parser') as ParseRobots;

const ALLOW_ALL: Robots = { isAllowed: () => true, sitemaps: [] };

/** As Google does, only the first 500 KiB of a robots.txt count; the rest is not even downloaded. */
export const MAX_ROBOTS_BYTES = 500 * 1024;

/**
 * Fetches <origin>/robots.txt. A missing file (4xx) or an unreachable one allows
 * everything, as most crawlers do; a 5xx allows everything too, since a crawl is a
 * one-off run a user asked for, not a recurring bot.
 */
export async function loadRobots(fetcher: PlainFetch, startUrl: string, timeoutMs: number, signal?: AbortSignal): Promise<Robots> {
  const robotsUrl = new URL('/robots.txt', startUrl).href;
  const fetched = await fetchText(fetcher, robotsUrl, { timeoutMs, maxBytes: MAX_ROBOTS_BYTES, signal });
  if (fetched.status < 200 || fetched.status >= 300) return ALLOW_ALL;
  const parsed = robotsParser(robotsUrl, fetched.text);
  return {
    // undefined means "another host": scope already keeps those out.
    isAllowed: (url) => parsed.isAllowed(url, CRAWLER_USER_AGENT) !== false,
    sitemaps: parsed.getSitemaps(),
  };
}
