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
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { PageData } from '../api/types.js';
import { cacheKey } from '../jobs/cacheKey.js';
import type { CacheEntry, CachedScrape, PageCache } from '../jobs/contracts.js';
import { writeError, writeStoreFile } from './atomicFile.js';

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

/*
 * An entry's file is opened, read, renewed and closed with synchronous calls. The file is a few kB, read
 * into memory whole and parsed at once, itself a synchronous step longer than the read. Each asynchronous
 * call is a round trip to libuv's threads. That trip cost the thread more than the call itself: a re-crawl
 * makes eight calls a page, and took about 0.05 s less CPU a 1,000 pages without the trips.
 */
const closeFd = (fd: number): void => {
  try {
    fs.closeSync(fd);
  } catch {
    // Nothing was written through it that a failed close could lose.
  }
};

/** Bytes asked for at a time: an entry is mostly a few kB, read at one go. */
const READ_CHUNK = 32 * 1024;

/** The text (UTF-8) of the file open as `fd`, from its start. */
function readWhole(fd: number): string {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(READ_CHUNK);
    const read = fs.readSync(fd, buffer, 0, READ_CHUNK, total);
    chunks.push(buffer.subarray(0, read));
    total += read;
    // A regular file reads short only at its end.
    if (read < READ_CHUNK) break;
  }
  return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, total).toString('utf8');
}

/** Writes `storedAt` over the digits at the start of the file open (to write) as `fd`, in place, and closes it. */
function restamp(fd: number, storedAt: number): void {
  try {
    fs.writeSync(fd, String(storedAt), STORED_AT.length, 'utf8');
  } finally {
    closeFd(fd);
  }
}

/** The file open as `flags`; undefined when it may not be (`missing`: it does not exist). */
function openEntry(file: string, flags: 'r' | 'r+'): { fd?: number; missing?: boolean } {
  try {
    return { fd: fs.openSync(file, flags) };
  } catch (err) {
    return { missing: (err as NodeJS.ErrnoException).code === 'ENOENT' };
  }
}

/** The text of `file`, undefined when it cannot be read; with `keep`, the file too, open to write (undefined when it may not be written: read all the same). */
function readEntryFile(file: string, keep: boolean): { text: string; fd?: number } | undefined {
  const writable = keep ? openEntry(file, 'r+') : {};
  if (writable.missing) return undefined;
  const fd = writable.fd ?? openEntry(file, 'r').fd;
  if (fd === undefined) return undefined;
  let text: string;
  try {
    text = readWhole(fd);
  } catch {
    closeFd(fd);
    return undefined;
  }
  if (writable.fd !== undefined) return { text, fd };
  closeFd(fd);
  return { text };
}

export class FilePageCache implements PageCache {
  private readonly dir: string;
  /** Files of entries `hold` read, open to write, until renewed or released. */
  private readonly held = new Map<CacheEntry, number>();

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
    const fd = this.held.get(entry);
    this.held.delete(entry);
    if (fd !== undefined) closeFd(fd);
  }

  /** The entry under the key; `hold`: its file kept open for a renewal of it in place (hold, release). */
  private async read(scrape: CachedScrape, hold: boolean): Promise<CacheEntry | undefined> {
    const file = this.file(cacheKey(scrape));
    const read = readEntryFile(file, hold);
    if (!read) return undefined;
    const { text, fd } = read;
    let entry: CacheEntry | undefined;
    try {
      entry = JSON.parse(text) as CacheEntry;
    } catch {
      entry = undefined;
    }
    if (!entry || typeof entry.storedAt !== 'number' || typeof entry.data?.metadata !== 'object') {
      if (fd !== undefined) closeFd(fd);
      return undefined;
    }
    files.set(entry, file);
    if (STAMPED.test(text.slice(0, STORED_AT.length + STORED_AT_DIGITS + 1))) {
      stamped.add(entry);
      // Renewed in place through it.
      if (fd !== undefined) this.held.set(entry, fd);
    } else {
      // Renewed by writing it whole.
      if (fd !== undefined) closeFd(fd);
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
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await write(file, { storedAt: Date.now(), data, ...(validators ? { validators } : {}) });
  }

  async renew(scrape: CachedScrape, entry: CacheEntry): Promise<void> {
    const file = files.get(entry) ?? this.file(cacheKey(scrape));
    const storedAt = Date.now();
    const held = this.held.get(entry);
    this.held.delete(entry);
    if (stamped.has(entry) && String(storedAt).length === STORED_AT_DIGITS) {
      try {
        restamp(held ?? fs.openSync(file, 'r+'), storedAt);
      } catch (err) {
        // Gone since it was read (pruned): nothing to renew.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw writeError(err, file);
      }
      return;
    }
    if (held !== undefined) closeFd(held);
    await write(file, { ...entry, storedAt });
  }
}
