/**
 * Compact sets of strings for what a crawl remembers of every URL it met (the
 * frontier's seen set, the pages crawled): a 64-bit fingerprint of each string in
 * an open-addressed table of 32-bit words, not the string itself. A 100,000-page
 * crawl that meets a million URLs keeps 16-32 MB of them as strings in a Set; here
 * each costs 8 bytes a slot, at most 32 bytes an entry (the table doubles when half
 * full), whatever the URL's length.
 *
 * Two strings with the same fingerprint count as one: with 64 bits, a collision
 * among a million URLs has a chance of about 3 in 100 million (the cost is one
 * page not crawled), as Scrapy's request fingerprints accept it.
 */

/** Bytes a FingerprintSet takes per entry at most: 8 a slot, and the table at least half empty after it grows. */
export const MAX_BYTES_PER_FINGERPRINT = 32;

/** Slots of a new table (a power of two): 32 KB. */
const INITIAL_SLOTS = 1 << 12;

/**
 * The 64-bit fingerprint of `text` as two 32-bit words (each never both 0: that is an empty slot). Two lanes of
 * multiply-xor over its UTF-16 units with different multipliers, each mixed with the other at the end (cyrb53's
 * scheme, both lanes kept whole).
 */
export function fingerprint(text: string): [number, number] {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  h1 >>>= 0;
  h2 >>>= 0;
  return h1 === 0 && h2 === 0 ? [0, 1] : [h1, h2];
}

export class FingerprintSet {
  /** Slot i is words 2i and 2i+1; 0,0 is empty. */
  private table = new Uint32Array(INITIAL_SLOTS * 2);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Bytes the set takes (its table). */
  get bytes(): number {
    return this.table.byteLength;
  }

  has(text: string): boolean {
    const [h1, h2] = fingerprint(text);
    return this.find(this.table, h1, h2) < 0;
  }

  /** Adds `text`; true when it was not there. */
  add(text: string): boolean {
    const [h1, h2] = fingerprint(text);
    const slot = this.find(this.table, h1, h2);
    if (slot < 0) return false;
    this.table[slot * 2] = h1;
    this.table[slot * 2 + 1] = h2;
    if (++this.count * 2 > this.table.length / 2) this.grow();
    return true;
  }

  /** The empty slot where h1,h2 goes; -1 when it is there already. Linear probing from h2's low bits. */
  private find(table: Uint32Array, h1: number, h2: number): number {
    const mask = table.length / 2 - 1;
    for (let slot = h2 & mask; ; slot = (slot + 1) & mask) {
      const a = table[slot * 2]!;
      const b = table[slot * 2 + 1]!;
      if (a === 0 && b === 0) return slot;
      if (a === h1 && b === h2) return -1;
    }
  }

  private grow(): void {
    const old = this.table;
    const table = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) {
      const h1 = old[i]!;
      const h2 = old[i + 1]!;
      if (h1 === 0 && h2 === 0) continue;
      const slot = this.find(table, h1, h2);
      table[slot * 2] = h1;
      table[slot * 2 + 1] = h2;
    }
    this.table = table;
  }
}

/**
 * A fixed table of fingerprints where each new one replaces whatever was in its slot: what was met lately,
 * in constant memory (`slots` x 8 bytes), for a memo (a link a site's navigation puts on every page).
 */
export class FingerprintCache {
  private readonly table: Uint32Array;

  constructor(slots = 1 << 16) {
    this.table = new Uint32Array(slots * 2);
  }

  get bytes(): number {
    return this.table.byteLength;
  }

  has(text: string): boolean {
    const [h1, h2] = fingerprint(text);
    const slot = (h2 & (this.table.length / 2 - 1)) * 2;
    return this.table[slot] === h1 && this.table[slot + 1] === h2;
  }

  add(text: string): void {
    const [h1, h2] = fingerprint(text);
    const slot = (h2 & (this.table.length / 2 - 1)) * 2;
    this.table[slot] = h1;
    this.table[slot + 1] = h2;
  }
}
