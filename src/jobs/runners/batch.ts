/**
 * Batch scrape: every submitted URL becomes the entry at its own index (so the
 * result keeps the submitted order, duplicates included), scraped by a fixed
 * number of workers sharing one browser. A page's failure ends in its entry;
 * only a job that cannot run at all (no browser) fails.
 */
import { LIMITS, batchPerHostLimit } from '../../api/limits.js';
import type { BatchScrapeRequest, PageEntry } from '../../api/types.js';
import { defaultConcurrency } from '../../engine/browser/browser.js';
import { HostGate, type PoliteGate } from '../../engine/crawl/hostGate.js';
import { scrapePreflight } from '../jobEngine.js';
import type { JobContext, JobRunner } from '../jobRunner.js';
import { abortPromise, decidedEntry, pageEntry, throttled } from './pageEntry.js';

/** The indexes of the entries an earlier run of a resumed batch stored: they are kept, never scraped again. */
async function storedIndexes(ctx: JobContext<'batch'>): Promise<Set<number>> {
  const done = new Set<number>();
  const total = ctx.request.urls.length;
  for (let start = 0; ctx.resumed && start < total; start += 100) {
    const entries = await ctx.resumed.readPages(start, Math.min(100, total - start));
    entries.forEach((entry, i) => entry && done.add(start + i));
  }
  return done;
}

export function batchConcurrency(request: BatchScrapeRequest): number {
  return Math.min(request.concurrency ?? defaultConcurrency(), request.urls.length);
}

/** Scrapes entry `index` and stores it, unless the job was stopped first: a page aborted in flight is not stored. */
async function scrapeOne(ctx: JobContext<'batch'>, gate: PoliteGate, index: number, store: (index: number, entry: PageEntry) => Promise<void>): Promise<void> {
  const { urls, scrapeOptions, sessionOptions, delay = 0 } = ctx.request;
  const url = urls[index]!;
  const entry = await pageEntry(url, scrapeOptions?.formats, () =>
    gate.run(url, delay, () => ctx.pageEngine(index).scrape(url, scrapeOptions, sessionOptions, ctx.signal, ctx.access)),
  );
  if (!ctx.signal.aborted) await store(index, decidedEntry(entry, ctx.request));
}

export const batchRunner: JobRunner<'batch'> = {
  preflight: (request, env) => scrapePreflight(request.scrapeOptions, env),
  initialRecord: (request) => ({
    jobId: '',
    status: 'pending',
    totalScrapedPages: 0,
    totalPageBatches: Math.max(1, Math.ceil(request.urls.length / LIMITS.defaultResultBatchSize)),
    currentPageBatch: 1,
    batchSize: LIMITS.defaultResultBatchSize,
  }),

  expectedPages: (request) => request.urls.length,

  async run(ctx) {
    let next = 0;
    const done = await storedIndexes(ctx);
    /** Entries stored, as the entries read back (and PostgreSQL's count) say: what totalScrapedPages holds. */
    let stored = done.size;
    const counter = throttled(() =>
      ctx.update((record) => {
        (record as unknown as { totalScrapedPages: number }).totalScrapedPages = stored;
      }),
    );
    // Entries being written when the job is stopped: the last count waits for them.
    const storing = new Set<Promise<void>>();
    const store = async (index: number, entry: PageEntry) => {
      const put = ctx.putPage(index, entry).then(() => {
        stored++;
        counter.poke();
      });
      storing.add(put);
      try {
        await put;
      } finally {
        storing.delete(put);
      }
    };
    // Each worker takes the next index until none is left: a slow page holds one tab, not the batch.
    let fatal = false;
    const gate = new HostGate(batchPerHostLimit(ctx.request), ctx.signal);
    const worker = async () => {
      while (!ctx.signal.aborted && !fatal && next < ctx.request.urls.length) {
        const index = next++;
        if (done.has(index)) continue;
        try {
          await scrapeOne(ctx, gate, index, store);
        } catch (err) {
          fatal = true; // the other workers stop taking pages; the job fails with this error
          throw err;
        }
      }
    };
    if (done.size > 0) counter.poke();
    const workers = Array.from({ length: batchConcurrency(ctx.request) }, worker);
    try {
      await Promise.race([Promise.all(workers), abortPromise(ctx.signal)]);
    } finally {
      await Promise.allSettled(storing);
      await counter.flush();
    }
  },
};
