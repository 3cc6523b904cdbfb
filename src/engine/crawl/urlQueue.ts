/**
 * A first-in first-out queue of URLs, each with a number (a crawl's depth), kept as
 * UTF-8 in chunks of bytes rather than as strings: a URL costs its length plus 6
 * bytes, and the chunks read are let go. A crawl of 100,000 pages may hold as many
 * URLs queued; as strings in an array each would cost about twice its length more.
 */

/** Bytes of a chunk; a URL longer than that gets a chunk of its own. */
const CHUNK = 64 * 1024;
/** Bytes before each URL: its length (uint16; a page URL is refused past 65,535 bytes upstream) and its number (uint32). */
const HEAD = 6;

export class UrlQueue {
  private readonly chunks: Buffer[] = [];
  /** Where the next URL is read in chunks[0], and where the next is written in the last chunk. */
  private readAt = 0;
  private writeAt = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Bytes the queue's chunks take. */
  get bytes(): number {
    return this.chunks.reduce((total, chunk) => total + chunk.length, 0);
  }

  push(url: string, n = 0): void {
    const length = Buffer.byteLength(url);
    if (length > 0xffff) throw new RangeError(`a URL of ${length} bytes is longer than the queue keeps`);
    let last = this.chunks.at(-1);
    if (!last || this.writeAt + HEAD + length > last.length) {
      // The rest of the chunk stays unused: a length of 0 there says "go on in the next chunk".
      if (last && this.writeAt + 2 <= last.length) last.writeUInt16LE(0, this.writeAt);
      last = Buffer.allocUnsafe(Math.max(CHUNK, HEAD + length));
      this.chunks.push(last);
      this.writeAt = 0;
    }
    last.writeUInt16LE(length, this.writeAt);
    last.writeUInt32LE(n, this.writeAt + 2);
    last.write(url, this.writeAt + HEAD, 'utf8');
    this.writeAt += HEAD + length;
    this.count++;
  }

  /** The oldest URL and its number, taken off the queue; undefined when it is empty. */
  shift(): { url: string; n: number } | undefined {
    if (this.count === 0) return undefined;
    let first = this.chunks[0]!;
    // A chunk ends where it has no room for a head, at a length of 0, or at the write position of the last chunk.
    if (this.readAt + HEAD > first.length || first.readUInt16LE(this.readAt) === 0) {
      this.chunks.shift();
      first = this.chunks[0]!;
      this.readAt = 0;
    }
    const length = first.readUInt16LE(this.readAt);
    const n = first.readUInt32LE(this.readAt + 2);
    const url = first.toString('utf8', this.readAt + HEAD, this.readAt + HEAD + length);
    this.readAt += HEAD + length;
    this.count--;
    if (this.count === 0) {
      // Empty: keep one chunk, written from its start again.
      this.chunks.splice(1);
      this.readAt = 0;
      this.writeAt = 0;
    }
    return { url, n };
  }
}
