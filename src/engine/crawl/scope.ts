/**
 * Which URLs a crawl may visit: the start URL's host (host name and port; also
 * the host it redirects to), then
 * the includePatterns / excludePatterns path globs.
 *
 * Glob syntax, matched against the whole URL path (not the query):
 *   *   any characters within one path segment (no "/")
 *   **  any characters, across segments
 *   ?   one character other than "/"
 * A pattern that does not start with "/" may match at any depth ("*.html" is "**\/*.html").
 * With includePatterns, a path must match at least one; it must match no excludePattern.
 * The start URL itself is always visited, so that its links can be followed.
 */

export function globToRegExp(glob: string): RegExp {
  const anchored = glob.startsWith('/') ? glob : `/**/${glob}`;
  const source = anchored
    .split(/(\/\*\*\/|\/\*\*$|\*\*|\*|\?)/)
    .map((part) => {
      if (part === '/**/') return '/(?:.*/)?'; // zero or more whole segments: /a/**/z matches /a/z
      if (part === '/**') return '(?:/.*)?'; // /blog/** matches /blog itself too
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}

export class CrawlScope {
  private readonly hosts = new Set<string>();
  private readonly include: RegExp[];
  private readonly exclude: RegExp[];

  constructor(startUrl: string, includePatterns: string[] = [], excludePatterns: string[] = []) {
    this.addHost(startUrl);
    this.include = includePatterns.map(globToRegExp);
    this.exclude = excludePatterns.map(globToRegExp);
  }

  /** Widens the scope to another host: where the start URL redirected (example.com to www.example.com). */
  addHost(url: string): void {
    this.hosts.add(new URL(url).host);
  }

  allows(href: string): boolean {
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return false;
    }
    // http and https of one host are the same site.
    if (!this.hosts.has(url.host) || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false;
    const path = decodePath(url.pathname);
    if (this.include.length > 0 && !this.include.some((re) => re.test(path))) return false;
    return !this.exclude.some((re) => re.test(path));
  }
}

function decodePath(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
