/**
 * Which URLs a crawl may visit: the start URL's host (host name and port; also
 * the host it redirects to), then the includePatterns / excludePatterns path
 * globs (syntax in glob.ts). With includePatterns, a path must match at least
 * one; it must match no excludePattern. The start URL itself is always visited,
 * so that its links can be followed.
 */
import { setImmediate } from 'node:timers/promises';
import { Glob } from './glob.js';

/** Longer paths are never in scope: no real page needs one, and matching cost grows with the length. */
export const MAX_SCOPED_PATH_LENGTH = 2048;

export class CrawlScope {
  private readonly hosts = new Set<string>();
  private readonly include: Glob[];
  private readonly exclude: Glob[];

  constructor(startUrl: string, includePatterns: string[] = [], excludePatterns: string[] = []) {
    this.addHost(startUrl);
    this.include = includePatterns.map((pattern) => new Glob(pattern));
    this.exclude = excludePatterns.map((pattern) => new Glob(pattern));
  }

  /** What matching the patterns has cost so far, in automaton steps (see Glob.cost). */
  get matchingCost(): number {
    return [...this.include, ...this.exclude].reduce((sum, glob) => sum + glob.cost, 0);
  }

  /** Widens the scope to another host: where the start URL redirected (example.com to www.example.com). */
  addHost(url: string): void {
    this.hosts.add(new URL(url).host);
  }

  /** Whether the crawl may visit `href`. Asynchronous: it gives the event loop back between patterns. */
  async allows(href: string): Promise<boolean> {
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return false;
    }
    // http and https of one host are the same site.
    if (!this.hosts.has(url.host) || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false;
    const path = decodePath(url.pathname);
    if (path.length > MAX_SCOPED_PATH_LENGTH) return false;
    if (this.include.length > 0 && !(await anyMatches(this.include, path))) return false;
    return !(await anyMatches(this.exclude, path));
  }
}

/**
 * Whether one of `globs` matches `path`, one glob per turn of the event loop: a
 * glob that meets too many state sets costs up to path length x pattern length,
 * and 40 of them in one turn would hold up the server's other requests.
 */
async function anyMatches(globs: readonly Glob[], path: string): Promise<boolean> {
  for (const glob of globs) {
    if (glob.matches(path)) return true;
    await setImmediate();
  }
  return false;
}

function decodePath(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
