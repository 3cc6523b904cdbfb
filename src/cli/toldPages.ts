/**
 * What the end of a batch or crawl counts of the entries told as the job ran (done,
 * failed, changed, and the notes of PageNotes), kept so that a job whose every entry
 * was told is not read back to count them. A crawl of 100,000 pages must not keep
 * 100,000 entries for that: each costs one byte of flags, and only an entry PageNotes
 * has something to say of (an HTTP error, a warning, a cut, --explain) is kept, as
 * the little of it PageNotes reads.
 */
import { isTruncated, type PageEntry } from '../api/types.js';
import { changedPage } from './options.js';
import { httpErrorStatus } from './pageChecks.js';

const TOLD = 1;
const DONE = 2;
const FAILED = 4;
const CHANGED = 8;

/** The counts of a job's entries, as countEntries (manyPages.ts) makes them. */
export interface EntryCounts {
  done: number;
  failed: number;
  total: number;
  changed: number;
}

/** The part of an entry PageNotes reads, for one it has something to say of; undefined for the others. */
function noted(entry: PageEntry): PageEntry | undefined {
  if (entry.status !== 'completed') return undefined;
  const { metadata } = entry;
  if (httpErrorStatus(entry) === undefined && !isTruncated(entry) && !metadata?.warning && metadata?.explain === undefined) return undefined;
  return { url: entry.url, status: entry.status, error: entry.error, metadata };
}

export class ToldPages {
  /** Flags by entry index; grows by doubling. */
  private flags = new Uint8Array(1024);
  private count = 0;
  private readonly notable = new Map<number, PageEntry>();

  /** Bytes it keeps, but for the notable entries (what a test bounds per page). */
  get bytes(): number {
    return this.flags.byteLength;
  }

  /** Entry `index` as told (a later telling of the same index replaces it). */
  tell(index: number, entry: PageEntry): void {
    if (index >= this.flags.length) {
      let size = this.flags.length;
      while (size <= index) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.flags);
      this.flags = grown;
    }
    if (!(this.flags[index]! & TOLD)) this.count++;
    this.flags[index] = TOLD | (entry.status !== 'pending' ? DONE : 0) | (entry.status === 'failed' ? FAILED : 0) | (changedPage(entry) ? CHANGED : 0);
    const note = noted(entry);
    if (note) this.notable.set(index, note);
    else this.notable.delete(index);
  }

  /**
   * The counts of entries 0 ... `entries` - 1, with each notable one handed to `note` in their order; undefined
   * when some were not told (an earlier run's): then they are read back.
   */
  counts(entries: number, note: (entry: PageEntry) => void): EntryCounts | undefined {
    if (this.count !== entries) return undefined;
    for (let i = 0; i < entries; i++) if (!(this.flags[i]! & TOLD)) return undefined;
    const counts: EntryCounts = { done: 0, failed: 0, total: entries, changed: 0 };
    for (let i = 0; i < entries; i++) {
      const flags = this.flags[i]!;
      if (flags & DONE) counts.done++;
      if (flags & FAILED) counts.failed++;
      if (flags & CHANGED) counts.changed++;
      const entry = this.notable.get(i);
      if (entry) note(entry);
    }
    return counts;
  }
}
