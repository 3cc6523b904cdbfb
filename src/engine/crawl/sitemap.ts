/**
 * Sitemaps: the URLs a site lists for crawlers. Reads robots.txt Sitemap: lines
 * and /sitemap.xml, follows sitemap indexes, and un-gzips .gz files. Only <loc>
 * elements matter, so they are picked out with a small scanner rather than a
 * full XML parser.
 */
import { fetchText, type PlainFetch } from './fetchText.js';

export interface SitemapLimits {
  /** Stop after this many page URLs. */
  maxUrls: number;
  /** Stop after fetching this many sitemap files (an index can list thousands). */
  maxFiles: number;
  timeoutMs: number;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXml(text: string): string {
  return text
    .replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, '$1')
    .replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (all, name: string) => {
      if (name[0] === '#') {
        const code = name[1]?.toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return Number.isFinite(code) ? String.fromCodePoint(code) : all;
      }
      return ENTITIES[name.toLowerCase()] ?? all;
    })
    .trim();
}

export interface ParsedSitemap {
  /** true for a <sitemapindex>: its locs are further sitemaps. */
  isIndex: boolean;
  locs: string[];
}

export function parseSitemap(xml: string): ParsedSitemap {
  const isIndex = /<(?:[\w-]+:)?sitemapindex[\s>]/i.test(xml);
  const locs: string[] = [];
  for (const match of xml.matchAll(/<(?:[\w-]+:)?loc>([\s\S]*?)<\/(?:[\w-]+:)?loc>/gi)) {
    const loc = decodeXml(match[1]!);
    if (loc) locs.push(loc);
  }
  return { isIndex, locs };
}

/** Page URLs from the given sitemaps (breadth-first through indexes), within the limits. */
export async function collectSitemapUrls(
  fetcher: PlainFetch,
  sitemaps: string[],
  limits: SitemapLimits,
  signal?: AbortSignal,
): Promise<string[]> {
  const queue = [...new Set(sitemaps)];
  const seen = new Set(queue);
  const urls: string[] = [];
  let fetchedFiles = 0;
  while (queue.length > 0 && urls.length < limits.maxUrls && fetchedFiles < limits.maxFiles && !signal?.aborted) {
    const sitemapUrl = queue.shift()!;
    fetchedFiles++;
    const fetched = await fetchText(fetcher, sitemapUrl, limits.timeoutMs, signal);
    if (fetched.status < 200 || fetched.status >= 300) continue;
    const { isIndex, locs } = parseSitemap(fetched.text);
    for (const loc of locs) {
      let absolute: string;
      try {
        absolute = new URL(loc, fetched.url).href;
      } catch {
        continue;
      }
      if (isIndex) {
        if (!seen.has(absolute)) {
          seen.add(absolute);
          queue.push(absolute);
        }
      } else if (urls.length < limits.maxUrls) urls.push(absolute);
    }
  }
  return urls;
}
