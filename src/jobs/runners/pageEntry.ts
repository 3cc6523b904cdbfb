/** How one scraped (or failed) page becomes a batch/crawl page entry. Shared by the batch and crawl runners. */
import { EnvironmentError, errorMessage } from '../../api/errors.js';
import type { Format, PageData, PageEntry } from '../../api/types.js';

export function completedEntry(url: string, data: PageData): PageEntry {
  return { url, status: 'completed', error: null, ...data };
}

/** A failed page keeps the fields a client reads on every entry, empty, so it needs no special case. */
export function failedEntry(url: string, err: unknown, formats: Format[] = ['markdown']): PageEntry {
  const entry: PageEntry = {
    url,
    status: 'failed',
    error: errorMessage(err),
    metadata: { title: '', description: '', url, sourceURL: url },
  };
  if (formats.includes('markdown')) entry.markdown = '';
  return entry;
}

// Not an ES import of node:http: that loads undici, ~15 ms of every CLI run's start (session/directFetch.ts).
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/**
 * The entry as the job decided it: with the request's failOnHttpError (the CLI's --fail), a page the server
 * answered with 4xx or 5xx is a failed entry, its metadata kept, so that result, retry, jobs and status agree
 * with what the command said (issue 56).
 */
export function decidedEntry(entry: PageEntry, request: { failOnHttpError?: boolean }): PageEntry {
  const status = Number(entry.metadata?.statusCode);
  if (!request.failOnHttpError || entry.status !== 'completed' || !Number.isInteger(status) || status < 400) return entry;
  const reason = STATUS_CODES[status];
  const error = `HTTP ${status}${reason ? ` ${reason}` : ''} (--fail)`;
  return { url: entry.url, status: 'failed', error, metadata: entry.metadata, ...('markdown' in entry ? { markdown: '' } : {}) };
}

/** The entry of one page: completed with what `load` returns, or failed saying why; a job-fatal error is thrown on. */
export async function pageEntry(url: string, formats: Format[] | undefined, load: () => Promise<PageData>): Promise<PageEntry> {
  try {
    return completedEntry(url, await load());
  } catch (err) {
    if (isJobFatal(err)) throw err;
    return failedEntry(url, err, formats);
  }
}

/**
 * A page's own failure (bad URL, timeout, crash) ends in its entry; a missing
 * browser cannot be the page's fault and fails the whole job instead.
 */
export function isJobFatal(err: unknown): boolean {
  return err instanceof EnvironmentError || (err as Error)?.name === 'EnvironmentError';
}

/**
 * Writes a counter to the record header at most every `intervalMs`: a locked
 * read-modify-write of job.json per page would cost more than the page at high rates.
 */
export function throttled(write: () => Promise<void>, intervalMs = 250): { poke(): void; flush(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let pending: Promise<void> = Promise.resolve();
  const run = () => {
    timer = undefined;
    pending = pending.then(write, write);
  };
  return {
    poke() {
      timer ??= setTimeout(run, intervalMs);
    },
    async flush() {
      if (timer) clearTimeout(timer);
      run();
      await pending;
    },
  };
}

const abortError = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error('the job was aborted'));

/** Rejects with the signal's reason once it aborts; used to stop waiting on pages that are still loading. Made once a job: never raced again and again (raceAbort). */
export function abortPromise(signal: AbortSignal): Promise<never> {
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(abortError(signal));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  // Marked handled: a job that finishes and is aborted later must not crash the process.
  aborted.catch(() => undefined);
  return aborted;
}

/**
 * The first of `promises` to settle, or the signal's reason once it aborts, for a wait made again and again on
 * one signal (a crawl's loop waits so once a page). It listens to the signal only while it waits, and what the
 * promises still pending keep of it is a few bytes, not its answer: racing one promise that never settles (an
 * abortPromise made once) kept every race's answer, a page's entry and links each, until the job ended (a
 * crawl's main thread held 9,000 pages' entries at 9,000 pages, issue 59).
 */
export function raceAbort<T>(promises: Iterable<Promise<T>>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  let race!: Race<T>;
  const promise = new Promise<T>((resolve, reject) => (race = new Race(resolve, reject, signal)));
  for (const racer of promises) racer.then(race.won, race.failed);
  return promise;
}

/** One wait of raceAbort: what the promises still pending keep once it is settled is this object, emptied. */
class Race<T> {
  private settle: { resolve: (value: T) => void; reject: (err: unknown) => void } | undefined;

  constructor(
    resolve: (value: T) => void,
    reject: (err: unknown) => void,
    private signal: AbortSignal | undefined,
  ) {
    this.settle = { resolve, reject };
    signal?.addEventListener('abort', this.aborted, { once: true });
  }

  readonly won = (value: T): void => this.end()?.resolve(value);
  readonly failed = (err: unknown): void => this.end()?.reject(err);
  private readonly aborted = (): void => {
    const signal = this.signal;
    if (signal) this.end()?.reject(abortError(signal));
  };

  /** The settling functions, once: the first caller gets them, and they and the signal are let go. */
  private end(): { resolve: (value: T) => void; reject: (err: unknown) => void } | undefined {
    const settle = this.settle;
    this.settle = undefined;
    this.signal?.removeEventListener('abort', this.aborted);
    this.signal = undefined;
    return settle;
  }
}
