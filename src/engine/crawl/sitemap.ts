/**
 * Sitemaps: the URLs a site lists for crawlers. Reads robots.txt Sitemap: lines
 * and /sitemap.xml, follows sitemap indexes, and un-gzips .gz files. Only <loc>
 * and <lastmod> elements matter, so they are picked out with a small scanner rather than a
 * full XML parser; the scanner looks at each character a bounded number of
 * times, whatever the file holds. An entry that does not decode (a character
 * reference to no character, such as &#99999999999;) is skipped, not the file.
 */
import { setImmediate } from 'node:timers/promises';
import { FETCH_TIMEOUT_MS, fetchText, type PlainFetch } from './fetchText.js';

/** Sitemap files read, and bytes of one file and of its XML after un-gzipping: 50 files of 10 MiB bound the reading (a crawl's, a map's). */
export const MAX_SITEMAP_FILES = 50;
export const MAX_SITEMAP_BYTES = 10 * 1024 * 1024;

/** The bounds a crawl and a map read sitemaps within, up to `maxUrls` page URLs. */
export function sitemapLimits(maxUrls: number): SitemapLimits {
  return { maxUrls, maxFiles: MAX_SITEMAP_FILES, maxBytes: MAX_SITEMAP_BYTES, timeoutMs: FETCH_TIMEOUT_MS };
}

export interface SitemapLimits {
  /** Stop after this many page URLs. */
  maxUrls: number;
  /** Stop after fetching this many sitemap files (an index can list thousands). */
  maxFiles: number;
  /** Bytes read of one sitemap file, and bytes of XML after un-gzipping it; the rest is ignored. */
  maxBytes: number;
  timeoutMs: number;
}

/** A <loc> longer than this is no URL a crawl would visit; it is skipped without decoding. */
const MAX_LOC_LENGTH = 8 * 1024;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** A character reference's character, or null when the number names no Unicode scalar value. */
function fromReference(name: string): string | null {
  const code = name[1]?.toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
  if (!Number.isSafeInteger(code) || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return null;
  return String.fromCodePoint(code);
}

/** The text of a <loc>, or null when it holds a reference to no character. */
function decodeXml(raw: string): string | null {
  const text = raw.trim().replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, '$1');
  let invalid = false;
  const decoded = text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (all, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? all;
    const char = fromReference(name);
    if (char === null) invalid = true;
    return char ?? all;
  });
  return invalid ? null : decoded.trim();
}

/** The root element comes first, after at most a prolog and comments: no need to search 10 MiB for it. */
const ROOT_SEARCH_LENGTH = 64 * 1024;

/** true for a <sitemapindex>: its locs are further sitemaps. */
export function isSitemapIndex(xml: string): boolean {
  return /<(?:[\w-]+:)?sitemapindex[\s>]/i.test(xml.slice(0, ROOT_SEARCH_LENGTH));
}

/**
 * The <loc> texts of a sitemap, one at a time, so a caller can stop (or pause)
 * at any entry; null for an entry that is skipped (too long, or undecodable).
 */
export function* sitemapLocs(xml: string): Generator<string | null> {
  for (const entry of sitemapEntries(xml)) yield entry.loc;
}

export interface SitemapEntry {
  /** The <loc>'s URL; null for an entry that is skipped (too long, or undecodable). */
  loc: string | null;
  /** The text of the entry's <lastmod>, when it has one. */
  lastmod?: string;
}

/**
 * The entries of a sitemap with their <lastmod>: the one inside the same <url> (or
 * <sitemap>) element as the <loc>, before or after it. Each part of the file is
 * searched once: an entry runs from the end of the one before to its closing tag.
 */
export function* sitemapEntries(xml: string): Generator<SitemapEntry> {
  const open = /<(?:[\w-]+:)?loc>/gi;
  const close = /<\/(?:[\w-]+:)?loc>/gi;
  const entryClose = /<\/(?:[\w-]+:)?(?:url|sitemap)>/gi;
  let entryStart = 0;
  let entryEnd = -1;
  let lastmod: string | undefined;
  let noMoreEnds = false;
  // Each search starts where the last one ended, so the file is read once.
  for (let opened = open.exec(xml); opened !== null; opened = open.exec(xml)) {
    close.lastIndex = open.lastIndex;
    const closed = close.exec(xml);
    if (closed === null) return; // no closing tag further on: no more complete entries
    const raw = xml.slice(open.lastIndex, closed.index);
    open.lastIndex = close.lastIndex;
    // A <loc> past the entry read last starts the next entry (an image:loc inside one shares its lastmod).
    if (opened.index > entryEnd && !noMoreEnds) {
      entryClose.lastIndex = close.lastIndex;
      const ended = entryClose.exec(xml);
      if (ended === null) noMoreEnds = true;
      else {
        lastmod = LASTMOD.exec(xml.slice(entryStart, ended.index))?.[1]?.trim();
        entryStart = entryEnd = ended.index;
      }
    }
    const loc = raw.length > MAX_LOC_LENGTH ? null : decodeXml(raw) || null;
    yield noMoreEnds || lastmod === undefined ? { loc } : { loc, lastmod };
  }
}

const LASTMOD = /<(?:[\w-]+:)?lastmod>([^<]{1,64})<\/(?:[\w-]+:)?lastmod>/i;

/**
 * A sitemap's <lastmod> (W3C Datetime: a date, or a date and time with a zone) as
 * milliseconds since the epoch; undefined when it is none of those. A date alone is
 * the end of that day (UTC): the page may have changed any time that day. A time
 * without a zone says no exact moment, and is not read.
 */
export function parseLastmod(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const value = text.trim();
  if (/^\d{4}-\d\d-\d\d$/.test(value)) {
    const day = Date.parse(`${value}T00:00:00Z`);
    return Number.isNaN(day) ? undefined : day + 24 * 3600 * 1000 - 1;
  }
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}

/** Entries read between two turns of the event loop: a 10 MiB sitemap must not hold up the server. */
const ENTRIES_PER_TURN = 200;
/** Entries read of one file, skipped ones included: the sitemap protocol allows 50,000. */
const MAX_ENTRIES_PER_FILE = 50_000;

/**
 * Page URLs from the given sitemaps (breadth-first through indexes), within the
 * limits, in chunks of at most ENTRIES_PER_TURN as they are read: a caller that
 * knows enough URLs stops asking, and no further file is fetched. Never throws.
 */
export async function* sitemapUrls(
  fetcher: PlainFetch,
  sitemaps: string[],
  limits: SitemapLimits,
  signal?: AbortSignal,
  /** Told each page URL's <lastmod> (ms since the epoch), when it has one that reads (a crawl's revalidation). */
  onLastmod?: (url: string, lastmod: number) => void,
): AsyncGenerator<string[]> {
  const queue = [...new Set(sitemaps)];
  const seen = new Set(queue);
  let found = 0;
  let fetchedFiles = 0;
  while (queue.length > 0 && found < limits.maxUrls && fetchedFiles < limits.maxFiles && !signal?.aborted) {
    const sitemapUrl = queue.shift()!;
    fetchedFiles++;
    const fetched = await fetchText(fetcher, sitemapUrl, { timeoutMs: limits.timeoutMs, maxBytes: limits.maxBytes, signal });
    if (fetched.status < 200 || fetched.status >= 300) continue;
    const isIndex = isSitemapIndex(fetched.text);
    let chunk: string[] = [];
    let read = 0;
    for (const { loc, lastmod } of sitemapEntries(fetched.text)) {
      if (++read > MAX_ENTRIES_PER_FILE) break;
      if (read % ENTRIES_PER_TURN === 0) {
        if (chunk.length > 0) yield chunk;
        chunk = [];
        await setImmediate();
      }
      if (signal?.aborted || (isIndex ? seen.size >= limits.maxFiles : found >= limits.maxUrls)) break;
      if (loc === null) continue;
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
      } else {
        chunk.push(absolute);
        found++;
        const at = onLastmod ? parseLastmod(lastmod) : undefined;
        if (at !== undefined) onLastmod!(absolute, at);
      }
    }
    if (chunk.length > 0) yield chunk;
  }
}
