/**
 * What happens to a tab's main frame across navigations, including those the page
 * starts by itself after load (a meta refresh, `location.href = …` in a load
 * handler). page.goto only knows about the navigation it started; reading a page
 * that has since moved on fails with "Execution context was destroyed". The scrape
 * follows such redirects, bounded, and reads the page they land on.
 */
import type { CDPSession, Frame, HTTPRequest, HTTPResponse, Page } from 'puppeteer';
import { PageError } from '../../api/errors.js';

export type LoadedEvent = 'load' | 'domcontentloaded';

/** A navigation of the main frame that did not reach a document. */
export interface FailedNavigation {
  url: string;
  /** Chromium's net error, e.g. net::ERR_ACCESS_DENIED. */
  errorText: string;
}

/**
 * Orders to stop a tab: one caught between two documents is refused by Chromium
 * ("Not attached to an active page") or left unanswered, about half of those sent
 * into a chain of 0-second refreshes (measured in Chromium 156). Once the next
 * document is in, an order is taken.
 */
const STOP_ATTEMPTS = 10;
const STOP_ATTEMPT_MS = 1_000;
/** How long a held page's document may take to finish loading before it is stopped where it stands. */
const HOLD_LOAD_MS = 10_000;
/** The isolated world the hold runs in: the page's own scripts neither see it nor undo it. */
const HOLD_WORLD = 'webjobs-hold';
/** Cancels the navigations a document starts itself (the Navigation API's navigate event; Chromium 102 and later). */
const CANCEL_NAVIGATIONS = `globalThis.navigation?.addEventListener('navigate', (event) => { if (event.cancelable) event.preventDefault(); })`;

export class MainFrameWatch {
  /** Navigation requests of the main frame so far (each redirect hop counts). */
  navigations = 0;
  /**
   * Navigations the main frame has committed so far: each new document, and also each
   * same-document one (pushState, a fragment), which Puppeteer reports alike. Its uses
   * tolerate those: at worst one more stop order or one more read.
   */
  commits = 0;
  /** The last main-frame document response. */
  response: HTTPResponse | null = null;
  /** Set when the last navigation failed; cleared by the next one. */
  failure: FailedNavigation | undefined;
  private loadedSinceNavigation = false;
  private readonly waiters = new Set<() => void>();
  private readonly isMain: (request: HTTPRequest) => boolean;

  constructor(
    private readonly page: Page,
    private readonly loadedEvent: LoadedEvent,
  ) {
    this.isMain = (request) => request.isNavigationRequest() && request.frame() === page.mainFrame();
    page.on('request', this.onRequest);
    page.on('response', this.onResponse);
    page.on('requestfailed', this.onRequestFailed);
    page.on('framenavigated', this.onFrameNavigated);
    page.on(loadedEvent, this.onLoaded);
  }

  private readonly onRequest = (request: HTTPRequest): void => {
    if (!this.isMain(request)) return;
    this.navigations++;
    this.failure = undefined;
    this.loadedSinceNavigation = false;
    this.notify();
  };

  private readonly onResponse = (response: HTTPResponse): void => {
    if (this.isMain(response.request())) this.response = response;
  };

  private readonly onRequestFailed = (request: HTTPRequest): void => {
    if (!this.isMain(request)) return;
    this.failure = { url: request.url(), errorText: request.failure()?.errorText ?? 'net::ERR_FAILED' };
    this.notify();
  };

  private readonly onFrameNavigated = (frame: Frame): void => {
    if (frame !== this.page.mainFrame()) return;
    this.commits++;
    this.notify();
  };

  private readonly onLoaded = (): void => {
    this.loadedSinceNavigation = true;
    this.notify();
  };

  /** The last navigation has ended: its document loaded, or it failed. */
  get settled(): boolean {
    return this.loadedSinceNavigation || this.failure !== undefined;
  }

  /** Resolves once `condition` holds, or after `ms`; says whether it held. */
  until(condition: () => boolean, ms: number, signal?: AbortSignal): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal?.removeEventListener('abort', done);
        resolve(condition());
      };
      const check = () => {
        if (condition()) done();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.waiters.add(check);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Holds the page on the document it is on. First the documents the page loads
   * from now on, and the one it is on, cancel every navigation they start by
   * themselves (a refresh, a script setting `location`), in a world of our own the
   * page's scripts cannot see: a navigation already under way lands, loads in full
   * and stays. Then the page stops loading: what is left (a document that has not
   * loaded within `ms`, or a refresh a browser without the Navigation API schedules)
   * is dropped. The protocol's Page.stopLoading does cancel a pending refresh; the
   * page's own window.stop() did not (measured in Chromium 156). An order Chromium
   * refuses is sent again once the next document is in.
   *
   * Resolves true when the stop came after the load the watch waited for (the
   * document's, or, told late, the one before's: hence cutShort), false when it
   * cut a document that had not loaded within the time.
   */
  async holdStill(ms: number, signal?: AbortSignal): Promise<boolean> {
    const session = await this.page.createCDPSession();
    try {
      await cancelNavigationsByPage(session);
      const loaded = await this.until(() => this.settled, Math.min(ms, HOLD_LOAD_MS), signal);
      for (let attempt = 1; attempt <= STOP_ATTEMPTS && !signal?.aborted; attempt++) {
        const commits = this.commits;
        if (await orderStop(session)) return loaded;
        await this.until(() => this.commits > commits, STOP_ATTEMPT_MS, signal);
      }
      throw new PageError(`${this.page.url()} kept navigating by itself and could not be held still to be read`);
    } finally {
      // Documents loaded later (the next scrape in this tab) no longer cancel anything; the one held keeps
      // cancelling what it starts itself, which does not stop a navigation the next scrape orders.
      void session.detach().catch(() => undefined);
    }
  }

  private notify(): void {
    for (const check of [...this.waiters]) check();
  }

  dispose(): void {
    this.page.off('request', this.onRequest);
    this.page.off('response', this.onResponse);
    this.page.off('requestfailed', this.onRequestFailed);
    this.page.off('framenavigated', this.onFrameNavigated);
    this.page.off(this.loadedEvent, this.onLoaded);
    for (const check of this.waiters) this.waiters.delete(check);
  }
}

/**
 * The documents the page loads from now on (for as long as `session` is attached),
 * and the one it is on, cancel the navigations they start themselves. Registered for
 * new documents first: a document that comes in while the current one is being told
 * has been told already.
 */
async function cancelNavigationsByPage(session: CDPSession): Promise<void> {
  await session.send('Page.addScriptToEvaluateOnNewDocument', { source: CANCEL_NAVIGATIONS, worldName: HOLD_WORLD });
  try {
    const { frameTree } = await session.send('Page.getFrameTree');
    const { executionContextId } = await session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: HOLD_WORLD });
    await session.send('Runtime.evaluate', { expression: CANCEL_NAVIGATIONS, contextId: executionContextId });
  } catch {
    // The document went while being told: the one that replaced it was told on arrival.
  }
}

/** One order to stop loading; false when Chromium refuses it or leaves it unanswered. */
function orderStop(session: CDPSession): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const unanswered = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), STOP_ATTEMPT_MS);
  });
  const answered = session.send('Page.stopLoading').then(
    () => true,
    () => false,
  );
  return Promise.race([answered, unanswered]).finally(() => clearTimeout(timer));
}

/** A meta refresh's content that points elsewhere: its delay in seconds, then an address. */
export const REFRESH_ELSEWHERE = /^\s*(\d+(?:\.\d+)?)\s*(?:[;,]\s*(?:url\s*=\s*)?\S)/i;

/**
 * Runs in the page (serialized, so self-contained; `pattern` is REFRESH_ELSEWHERE's source): the delay in ms
 * of the document's meta refresh that points elsewhere, when it is due within `withinMs`; Chromium will
 * navigate then. Null when there is none, or it is due later (a page that reloads itself now and then).
 */
export function dueRefreshMs(pattern: string, withinMs: number): number | null {
  const content = document.querySelector('meta[http-equiv="refresh" i]')?.getAttribute('content');
  const match = content ? new RegExp(pattern, 'i').exec(content) : null;
  if (!match) return null;
  const ms = Math.round(Number(match[1]) * 1000);
  return ms <= withinMs ? ms : null;
}

/** The page's document went away under an evaluation: it navigated. */
export function isContextGone(err: unknown): boolean {
  return /Execution context was destroyed|Cannot find context with specified id|Inspected target navigated or closed/i.test(
    (err as Error)?.message ?? '',
  );
}
