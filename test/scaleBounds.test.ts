/**
 * What grows with a crawl of 100,000 pages stays within a stated number of bytes a
 * page (issue 59): the frontier's seen set and queue, the memo of spellings, the
 * pages crawled, pages.idx as a reader keeps it, what the CLI keeps of each
 * page told as the job runs, and what a request's timeout leaves on the job's signal. Each test fills a structure as a 100,000-page crawl
 * would and measures the bytes it holds (its typed arrays and chunks), not time.
 */
import { describe, expect, it } from 'vitest';
import { FingerprintCache, FingerprintSet, MAX_BYTES_PER_FINGERPRINT } from '../src/engine/crawl/fingerprints.js';
import { Frontier } from '../src/engine/crawl/frontier.js';
import { UrlQueue } from '../src/engine/crawl/urlQueue.js';
import { maxQueuedFor } from '../src/jobs/runners/crawl.js';
import { SPAN_BYTES, SpanTable } from '../src/store/pageLog.js';
import { ToldPages } from '../src/cli/toldPages.js';
import { OutputDir, WRITES_QUEUED } from '../src/cli/outputDir.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PageEntry } from '../src/api/types.js';
import { raceAbort } from '../src/jobs/runners/pageEntry.js';
import { getEventListeners } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { timeoutSignal } from '../src/engine/timeoutSignal.js';
import { runInNewContext } from 'node:vm';

const PAGES = 100_000;
/** Heap bytes a request's timeout signal may leave behind once its time is over (none is kept: the bound allows for the heap's noise). */
const KEPT_PER_REQUEST = 64;
const url = (n: number) => `https://www.example.com/docs/section-${n % 97}/page-${n}?lang=en`;

describe('state that grows with a crawl', () => {
  it(`the seen set keeps at most ${MAX_BYTES_PER_FINGERPRINT} bytes a URL, with no URL lost or added`, () => {
    const set = new FingerprintSet();
    // A crawl of 100,000 pages whose pages each link to three new URLs meets 300,000 of them.
    let added = 0;
    for (let n = 0; n < 3 * PAGES; n++) if (set.add(url(n))) added++;
    expect(added).toBe(3 * PAGES);
    expect(set.size).toBe(3 * PAGES);
    expect(set.bytes / set.size).toBeLessThanOrEqual(MAX_BYTES_PER_FINGERPRINT);
    let found = 0;
    for (let n = 0; n < 3 * PAGES; n++) if (set.has(url(n)) && !set.add(url(n))) found++;
    expect(found).toBe(3 * PAGES);
    let unknownFound = 0;
    for (let n = 3 * PAGES; n < 4 * PAGES; n++) if (set.has(url(n))) unknownFound++;
    expect(unknownFound).toBe(0);
    expect(set.size).toBe(3 * PAGES);
  });

  it('the memo of spellings stays the same size however many it has met, and is never wrong', () => {
    const memo = new FingerprintCache();
    const bytes = memo.bytes;
    for (let n = 0; n < PAGES; n++) memo.add(url(n));
    expect(memo.bytes).toBe(bytes);
    expect(bytes).toBeLessThanOrEqual(512 * 1024);
    // The last spellings met are there; spellings never added are not.
    expect(memo.has(url(PAGES - 1))).toBe(true);
    let wrong = 0;
    for (let n = PAGES; n < 2 * PAGES; n++) if (memo.has(url(n))) wrong++;
    expect(wrong).toBe(0);
  });

  it("the queue keeps each URL in its UTF-8 length and 6 bytes, lets go of what was read, and keeps the order", () => {
    const queue = new UrlQueue();
    let textBytes = 0;
    const u = (n: number) => (n % 1000 === 0 ? `${url(n)}&q=${'é'.repeat(n % 50)}` : url(n));
    for (let n = 0; n < PAGES; n++) {
      textBytes += Buffer.byteLength(u(n)) + 6;
      queue.push(u(n), n % 7);
    }
    expect(queue.size).toBe(PAGES);
    // A chunk (64 KB) at most is left unused at each chunk's end by a URL that did not fit.
    expect(queue.bytes).toBeLessThanOrEqual(textBytes * 1.01 + 64 * 1024);
    let inOrder = 0;
    for (let n = 0; n < PAGES / 2; n++) {
      const next = queue.shift()!;
      if (next.url === u(n) && next.n === n % 7) inOrder++;
    }
    expect(inOrder).toBe(PAGES / 2);
    expect(queue.bytes).toBeLessThanOrEqual(textBytes / 2 + 128 * 1024);
    for (let n = PAGES / 2; n < PAGES; n++) if (queue.shift()!.url === u(n)) inOrder++;
    expect(inOrder).toBe(PAGES);
    expect(queue.shift()).toBeUndefined();
    expect(queue.bytes).toBeLessThanOrEqual(64 * 1024);
    queue.push('https://a.example/', 3);
    expect(queue.shift()).toEqual({ url: 'https://a.example/', n: 3 });
  });

  it('a URL longer than a chunk is queued whole', () => {
    const queue = new UrlQueue();
    const long = `https://a.example/${'x'.repeat(70_000)}`.slice(0, 65_000);
    queue.push('https://a.example/1');
    queue.push(long, 1);
    queue.push('https://a.example/2');
    expect([queue.shift()!.url, queue.shift()!.url, queue.shift()!.url]).toEqual(['https://a.example/1', long, 'https://a.example/2']);
  });

  it("the frontier of a crawl: 32 bytes a URL seen, the queue's URLs as text, the memo's 512 KB", () => {
    // 30,000 pages (each URL normalised costs microseconds): the bound is per URL, the same at any size.
    const PAGES = 30_000;
    const frontier = new Frontier(maxQueuedFor(PAGES));
    let queuedBytes: number;
    // Breadth-first over a site whose page n links to 3n+1 ... 3n+3, and to the ten pages of its navigation.
    frontier.add(url(0));
    let inOrder = 0;
    for (let page = 0; page < PAGES; page++) {
      if (frontier.next() === url(page)) inOrder++;
      for (let k = 0; k < 10; k++) if (!frontier.has(url(k))) frontier.add(url(k));
      for (let k = 3 * page + 1; k <= 3 * page + 3; k++) if (!frontier.has(url(k))) frontier.add(url(k));
    }
    expect(inOrder).toBe(PAGES);
    // Never past twice maxPages: a crawler trap fills it and stops there.
    expect(frontier.size).toBeLessThanOrEqual(maxQueuedFor(PAGES));
    queuedBytes = frontier.size * (Buffer.byteLength(url(3 * PAGES)) + 6);
    const bound = MAX_BYTES_PER_FINGERPRINT * frontier.seenCount + queuedBytes * 1.01 + 64 * 1024 + 512 * 1024;
    expect(frontier.bytes).toBeLessThanOrEqual(bound);
    // As strings in a Set and an array, the same state took about 3 times as much: 100 bytes a URL and more.
    expect(frontier.bytes / frontier.seenCount).toBeLessThan(100);
  });

  it(`pages.idx as a reader keeps it: ${SPAN_BYTES} bytes an entry (twice that at most while its arrays have room)`, () => {
    const table = new SpanTable();
    for (let i = 0; i < PAGES; i++) table.set(i, { offset: i * 3000 + 5_000_000_000, length: 2999, marks: i % 2 === 0 ? 3 : 5 });
    expect(table.bytes / PAGES).toBeLessThanOrEqual(2 * SPAN_BYTES);
    expect(table.get(PAGES - 1)).toEqual({ offset: (PAGES - 1) * 3000 + 5_000_000_000, length: 2999, marks: 5 });
    // Its marks count the entries, none read: completed (3) and failed (5) in turn.
    expect(table.counts(PAGES)).toEqual({ completed: PAGES / 2, failed: PAGES / 2, changed: 0 });
    expect(table.get(PAGES)).toBeUndefined();
    // A damaged index line far away is kept aside, not by growing the arrays to it.
    table.set(2_000_000_000, { offset: 1, length: 2 });
    expect(table.get(2_000_000_000)).toEqual({ offset: 1, length: 2 });
    expect(table.bytes / PAGES).toBeLessThanOrEqual(2 * SPAN_BYTES);
  });

  it("what the CLI keeps of each entry told: a byte of flags (two while it has room), an entry only when a note names it", () => {
    const told = new ToldPages();
    const entry = (n: number): PageEntry => ({
      url: url(n),
      status: n % 100 === 0 ? 'failed' : 'completed',
      error: n % 100 === 0 ? 'timed out' : null,
      metadata: { title: `Page ${n}`, description: 'x'.repeat(200), url: url(n), sourceURL: url(n), statusCode: n === 7 ? 404 : 200 },
      markdown: 'text '.repeat(400),
    });
    for (let n = PAGES - 1; n >= 0; n--) told.tell(n, entry(n));
    expect(told.bytes / PAGES).toBeLessThanOrEqual(2);
    const noted: string[] = [];
    expect(told.counts(PAGES, (e) => noted.push(e.url))).toEqual({ done: PAGES, failed: PAGES / 100, total: PAGES, changed: 0 });
    expect(noted).toEqual([url(7)]);
    expect(told.counts(PAGES + 1, () => undefined)).toBeUndefined();
  });

  it("the crawl's wait for its next page, made once a page on one signal, keeps none of the pages it waited for", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const job = new AbortController();
    // A page that loads the whole time (a slow one): each wait races it too.
    const loading = new Promise<never>(() => undefined);
    const waitedFor: WeakRef<object>[] = [];
    let wrong = 0;
    for (let n = 0; n < 10_000; n++) {
      const visit = { entry: { url: url(n), markdown: 'x'.repeat(2_000) }, links: Array.from({ length: 20 }, (_, k) => url(n * 20 + k)) };
      if (n % 100 === 0) waitedFor.push(new WeakRef(visit));
      if ((await raceAbort([loading, Promise.resolve(visit)], job.signal)) !== visit) wrong++;
    }
    expect(wrong).toBe(0);
    await nextTurn();
    gc();
    // Racing one promise made once for the signal (as the crawl did) kept all 100 here: 10,000 pages' entries and links.
    expect(waitedFor.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    expect(getEventListeners(job.signal, 'abort')).toHaveLength(0);
    // The signal still ends a wait.
    const waiting = raceAbort([loading], job.signal);
    job.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
  });

  it(`a request's timeout tied to the job's signal keeps at most ${KEPT_PER_REQUEST} bytes once its time is over, and the job's stop still reaches it`, async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const job = new AbortController();
    const heapAfterGc = async () => {
      await nextTurn();
      gc();
      await nextTurn();
      gc();
      return getHeapStatistics().used_heap_size;
    };
    /** Makes `requests` signals on the job's and waits until their time is over (the last one's, set last, ends last). */
    const requestsOver = async (requests: number) => {
      let last: AbortSignal | undefined;
      for (let n = 0; n < requests; n++) last = timeoutSignal(1, job.signal);
      await new Promise((resolve) => last!.addEventListener('abort', resolve, { once: true }));
    };
    // The first ones warm up what is made once (code, the timers' lists).
    await requestsOver(50_000);
    const before = await heapAfterGc();
    const requests = 200_000;
    for (let part = 0; part < 4; part++) await requestsOver(requests / 4);
    // AbortSignal.any([timeout, job]) kept a registration on the job's signal per request (180-340 bytes) until the job ended:
    // 36-68 MB here. The heap after a GC varies by a few MB from run to run (5.3 MB once on CI's Node 24), hence 64 bytes.
    expect((await heapAfterGc()) - before).toBeLessThanOrEqual(KEPT_PER_REQUEST * requests);
    expect(getEventListeners(job.signal, 'abort').length).toBeLessThanOrEqual(1);
    // A request under way ends with the job's reason; one whose time is over, with a TimeoutError.
    const live = timeoutSignal(60_000, job.signal);
    job.abort(new Error('stopped'));
    expect(live.reason).toEqual(new Error('stopped'));
    expect(timeoutSignal(60_000, job.signal).reason).toEqual(new Error('stopped'));
    const timedOut = timeoutSignal(1);
    await new Promise((resolve) => timedOut.addEventListener('abort', resolve, { once: true }));
    expect((timedOut.reason as DOMException).name).toBe('TimeoutError');
  });

  it(`--output-dir reads a job's entries ahead of its file writes by ${WRITES_QUEUED} files at most, and writes them all`, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-scale-outdir-'));
    try {
      const out = new OutputDir(dir, ['markdown', 'links']);
      let mostQueued = 0;
      const pages = 3_000;
      async function* entries(): AsyncGenerator<PageEntry> {
        for (let n = 0; n < pages; n++) {
          mostQueued = Math.max(mostQueued, out.queuedWrites);
          yield { url: url(n), status: 'completed', markdown: `# Page ${n}\n\n${'word '.repeat(200)}`, links: [url(n + 1)], metadata: { url: url(n), statusCode: 200 } } as PageEntry;
        }
      }
      await out.finish('job', entries());
      // Reading all 3,000 before a file was written (as it did) queued 6,000 files' contents.
      expect(mostQueued).toBeGreaterThan(0);
      expect(mostQueued).toBeLessThanOrEqual(WRITES_QUEUED + 2);
      expect(readdirSync(dir)).toHaveLength(2 * pages + 1);
      const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as { pages: { url: string; file: string }[] };
      expect(index.pages.map((page) => page.url)).toEqual(Array.from({ length: pages }, (_, n) => url(n)));
      expect(readFileSync(path.join(dir, index.pages[pages - 1]!.file), 'utf8')).toContain(`# Page ${pages - 1}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
