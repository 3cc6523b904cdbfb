/**
 * Sitemap URLs for a crawl in progress: the sitemaps are read alongside the
 * pages, one chunk ahead of the crawl. After each chunk the reading waits until
 * the crawl has taken it, then asks `enough()` whether to read on; so a crawl
 * of 100 pages stops reading after the first chunks that fill its frontier,
 * instead of fetching every file of a large site first.
 */
export class SitemapFeed {
  private pending: string[] = [];
  private finished = false;
  private stopped = false;
  /** Resolves the promise the crawl waits on: new URLs, or the end. */
  private notify: () => void = () => undefined;
  /** Resolves the reader's wait for the crawl to take the chunk. */
  private taken: () => void = () => undefined;

  constructor(
    source: AsyncGenerator<string[]>,
    private readonly enough: () => boolean,
  ) {
    void this.read(source);
  }

  private async read(source: AsyncGenerator<string[]>): Promise<void> {
    try {
      for await (const chunk of source) {
        if (this.stopped) break;
        this.pending.push(...chunk);
        const wasTaken = new Promise<void>((resolve) => (this.taken = resolve));
        this.notify();
        await wasTaken;
        if (this.stopped || this.enough()) break; // leaving the loop ends the generator: no further fetch
      }
    } catch {
      // a sitemap is a hint: whatever goes wrong with it, the crawl goes on without it
    } finally {
      this.finished = true;
      this.notify();
    }
  }

  /** Whether no more URLs will come. */
  get done(): boolean {
    return this.finished && this.pending.length === 0;
  }

  /** The URLs read since the last call; lets the reading go on. */
  take(): string[] {
    const urls = this.pending;
    this.pending = [];
    if (urls.length > 0 || this.stopped) this.taken();
    return urls;
  }

  /** Resolves when URLs are waiting to be taken, or the reading ended. */
  changed(): Promise<void> {
    if (this.pending.length > 0 || this.finished) return Promise.resolve();
    return new Promise((resolve) => (this.notify = resolve));
  }

  /** Ends the reading at the next chunk (the job's signal ends a fetch in progress). */
  stop(): void {
    this.stopped = true;
    this.taken();
  }
}
