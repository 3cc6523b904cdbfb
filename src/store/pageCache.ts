/**
 * The page cache of `maxAge` (--max-age): one file per URL and output-shaping
 * options under `<home>/cache/`, named by a SHA-256 of both, so that a result is
 * only ever reused for a request that would have produced the same one. Headers,
 * cookies, the user-agent and the URL's user name and password (sent as Basic
 * authentication) are part of the key: a page read behind a login is never
 * handed to a request without that login. The key is a digest: no credential is
 * stored in clear. Under `serve` each API key has its own entries (`tenant`)
 * unless the operator shares the cache. Written atomically; a damaged or
 * unreadable entry is a miss.
 *
 * An entry's file begins with its storedAt, 13 digits (until the year 2286):
 * renewing an entry read from such a file (a 304, a page the same as its
 * history's) writes the new digits in place, where rewriting the file and
 * renaming it over the old one made ext4 flush the file's data on each rename
 * (a re-crawl renews two entries a page). A number of 13 digits is read whole or
 * not at all by whoever reads meanwhile, and whatever a crash leaves of it is a
 * number too. An entry written otherwise (an older webjobs indented it) is
 * rewritten, compact, on its first renewal. An entry read with `hold` (a page being
 * revalidated, a history being compared) keeps its file open, to write, until it
 * is renewed or released: a renewal in place is a write and a close, where it
 * opened the file again.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { PageData } from '../api/types.js';
import { cacheKey } from '../jobs/cacheKey.js';
import type { CacheEntry, CachedScrape, PageCache } from '../jobs/contracts.js';
import { readAll, writeError, writeStoreFile } from './atomicFile.js';

type Validators = NonNullable<CacheEntry['validators']>;

/** An entry is read by webjobs alone: JSON without indentation, a third less to write; storedAt first (restamp). */
const write = (file: string, { storedAt, ...rest }: CacheEntry): Promise<void> => writeStoreFile(file, JSON.stringify({ storedAt, ...rest }));

/** What every entry's file begins with (write: storedAt is the entry's first key), its digits following. */
const STORED_AT = '{"storedAt":';
const STORED_AT_DIGITS = 13;
const STAMPED = /^\{"storedAt":\d{13},/;

/** Entries `last` read, and their files: renew finds its file without its key again (a SHA-256 of the options). */
const files = new WeakMap<CacheEntry, string>();
/** Entries `last` read from a file whose storedAt can be written in place. */
const stamped = new WeakSet<CacheEntry>();

/** Writes `storedAt` over the digits at the start of the file of `handle` (opened to write), in place, and closes it. */
async function restamp(handle: fs.FileHandle, storedAt: number): Promise<void> {
  try {
    await handle.write(String(storedAt), STORED_AT.length, 'utf8');
  } finally {
    // Written once write answers: the file is closed after, not waited for.
    handle.close().catch(() => undefined);
  }
}

/** The text of `file`; with `keep`, the file too, opened to write (undefined when it may not be written: read all the same). */
async function readEntryFile(file: string, keep: boolean): Promise<{ text: string; handle?: fs.FileHandle }> {
  const writable = keep ? await fs.open(file, 'r+').catch(() => undefined) : undefined;
  const handle = writable ?? (await fs.open(file, 'r'));
  let text: string;
  try {
    text = await readAll(handle);
  } catch (err) {
    handle.close().catch(() => undefined);
    throw err;
  }
  if (writable) return { text, handle: writable };
  handle.close().catch(() => undefined);
  return { text };
}

export class FilePageCache implements PageCache {
  private readonly dir: string;
  /** Files of entries `hold` read, open to write, until renewed or released. */
  private readonly held = new Map<CacheEntry, fs.FileHandle>();

  constructor(home: string) {
    this.dir = path.join(home, 'cache');
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  last(scrape: CachedScrape): Promise<CacheEntry | undefined> {
    return this.read(scrape, false);
  }

  hold(scrape: CachedScrape): Promise<CacheEntry | undefined> {
    return this.read(scrape, true);
  }

  release(entry: CacheEntry): void {
    const handle = this.held.get(entry);
    this.held.delete(entry);
    handle?.close().catch(() => undefined);
  }

  /** The entry under the key; `hold`: its file kept open for a renewal of it in place (hold, release). */
  private async read(scrape: CachedScrape, hold: boolean): Promise<CacheEntry | undefined> {
    const file = this.file(cacheKey(scrape));
    const read = await readEntryFile(file, hold).catch(() => undefined);
    if (!read) return undefined;
    const { text, handle } = read;
    let entry: CacheEntry | undefined;
    try {
      entry = JSON.parse(text) as CacheEntry;
    } catch {
      entry = undefined;
    }
    if (!entry || typeof entry.storedAt !== 'number' || typeof entry.data?.metadata !== 'object') {
      handle?.close().catch(() => undefined);
      return undefined;
    }
    files.set(entry, file);
    if (STAMPED.test(text.slice(0, STORED_AT.length + STORED_AT_DIGITS + 1))) {
      stamped.add(entry);
      // Renewed in place through it.
      if (handle) this.held.set(entry, handle);
    } else {
      // Renewed by writing it whole.
      handle?.close().catch(() => undefined);
    }
    return entry;
  }

  async get(scrape: CachedScrape, maxAgeMs: number): Promise<PageData | undefined> {
    const entry = await this.last(scrape);
    if (!entry) return undefined;
    const age = Date.now() - entry.storedAt;
    return age >= 0 && age <= maxAgeMs ? entry.data : undefined;
  }

  async put(scrape: CachedScrape, data: PageData, validators?: Validators): Promise<void> {
    const file = this.file(cacheKey(scrape));
    await fs.mkdir(path.dirname(file), { recursive: true });
    await write(file, { storedAt: Date.now(), data, ...(validators ? { validators } : {}) });
  }

  async renew(scrape: CachedScrape, entry: CacheEntry): Promise<void> {
    const file = files.get(entry) ?? this.file(cacheKey(scrape));
    const storedAt = Date.now();
    const held = this.held.get(entry);
    this.held.delete(entry);
    if (stamped.has(entry) && String(storedAt).length === STORED_AT_DIGITS) {
      try {
        await restamp(held ?? (await fs.open(file, 'r+')), storedAt);
      } catch (err) {
        // Gone since it was read (pruned): nothing to renew.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw writeError(err, file);
      }
      return;
    }
    held?.close().catch(() => undefined);
    await write(file, { ...entry, storedAt });
  }
}
