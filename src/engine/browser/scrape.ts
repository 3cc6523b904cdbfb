/**
 * Scraping one URL in a tab: navigate, wait as asked, extract in the page.
 * Every failure becomes a PageError whose message says what happened to the page.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { HTTPResponse, Page, PuppeteerLifeCycleEvent } from 'puppeteer';
import { PageError } from '../../api/errors.js';
import type { PageData, ScrapeOptions, WaitUntil } from '../../api/types.js';
import type { SiteAccess } from '../net/access.js';
import type { BrowserPool, BrowserSettings } from './browser.js';
import { EGRESS_ERROR_HEADER } from '../net/egress.js';
import type { CaptchaSolverConfig } from '../session/captcha.js';
import type { InPageOptions, InPageResult } from '../content/inPage.js';
import { isContextGone, MainFrameWatch } from './mainFrame.js';
import { passCaptcha, readAt, readTab, waitAt, type LookWaits } from './pageLook.js';
import { settleEnabled, settleParams } from './settle.js';
import { prepare, refusals, setJobCookies, showEverything } from './tabSetup.js';
import { addStructuredData } from '../structured/index.js';
import type { HtmlReadResult, HtmlReads, SelectedItems } from '../structured/readHtml.js';
import type { CssSchema } from '../../api/cssSchema.js';
import { emptyPage, RENDERABLE, withDefaults, type PageOptions } from '../pageOptions.js';
import { validatorsOf, type RevalidationResult } from '../validators.js';
import { isPdf, MAX_PDF_BYTES, PDF, pdfPageData } from '../pdfPage.js';
import { oneAtATime } from './screenshots.js';
import { actionsBudgetMs, runActions } from './actions.js';
import { loadProfile, saveProfile, type ProfileHandle } from './profileState.js';
import type { ActionsResult } from '../../api/actions.js';

const WAIT_UNTIL: Record<WaitUntil, PuppeteerLifeCycleEvent> = {
  load: 'load',
  domcontentloaded: 'domcontentloaded',
  networkidle: 'networkidle0',
};

const NET_ERRORS: Record<string, string> = {
  ERR_NAME_NOT_RESOLVED: 'DNS lookup failed: the host name could not be resolved',
  ERR_NAME_RESOLUTION_FAILED: 'DNS lookup failed: the host name could not be resolved',
  ERR_CONNECTION_REFUSED: 'connection refused: nothing is listening at that address',
  ERR_CONNECTION_RESET: 'the connection was reset by the server',
  ERR_CONNECTION_CLOSED: 'the server closed the connection without answering',
  ERR_EMPTY_RESPONSE: 'the server closed the connection without answering',
  ERR_ADDRESS_UNREACHABLE: 'the address is unreachable',
  ERR_CONNECTION_TIMED_OUT: 'the connection timed out',
  ERR_TOO_MANY_REDIRECTS: 'too many redirects',
  ERR_CERT_AUTHORITY_INVALID: 'the TLS certificate is not trusted',
  ERR_CERT_COMMON_NAME_INVALID: 'the TLS certificate does not match the host',
  ERR_SSL_PROTOCOL_ERROR: 'TLS handshake failed',
  ERR_ABORTED: 'the browser did not render the response (a download or an unsupported content type)',
  ERR_PROXY_CONNECTION_FAILED: 'could not connect to the proxy',
  ERR_TUNNEL_CONNECTION_FAILED: 'the proxy refused to open a tunnel to the site',
  ERR_PROXY_AUTH_UNSUPPORTED: 'the proxy asked for an authentication scheme Chromium does not support',
  ERR_INVALID_AUTH_CREDENTIALS: 'the proxy refused the credentials',
};

export function describeNavigationError(err: unknown, url: string, timeoutMs: number, proxyLabel?: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (isTimeout(err)) {
    return `timed out after ${timeoutMs} ms waiting for ${url} to load`;
  }
  const code = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  if (code) {
    // Through a proxy, Chromium's connection is to the proxy: a connection that ends empty is the proxy's.
    const via = proxyLabel && /PROXY|TUNNEL|AUTH|EMPTY_RESPONSE|CONNECTION_(CLOSED|RESET)/.test(code) ? ` through the proxy ${proxyLabel}` : '';
    return `${NET_ERRORS[code] ?? code} (${code}) for ${url}${via}`;
  }
  if (/Target closed|Session closed|crashed|detached/i.test(message)) return `the browser tab crashed while loading ${url}`;
  return `could not load ${url}: ${message.split('\n')[0]}`;
}


function withDeadline<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PageError(what())), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function isTimeout(err: unknown): boolean {
  return (err as Error)?.name === 'TimeoutError' || /timeout .*exceeded/i.test((err as Error)?.message ?? '');
}

/** Whether the tab's document has been parsed, asked with a short deadline in case the renderer hangs. */
async function documentParsed(page: Page): Promise<boolean> {
  const state = await withDeadline(page.evaluate(() => document.readyState), 2_000, () => 'no answer').catch(() => 'loading');
  return state === 'interactive' || state === 'complete';
}

/**
 * Why a navigation of the tab failed: the guard's refusal, else the egress proxy's
 * reason for a tunnel it did not open (Chromium only says the tunnel failed),
 * else Chromium's error in words.
 */
function navigationFailure(page: Page, run: TabRun, err: unknown, url: string, timeoutMs: number): string {
  const refused = refusals.get(page);
  if (refused) return refused;
  const tunnel = /net::ERR_TUNNEL_CONNECTION_FAILED/.test((err as Error)?.message ?? '');
  return (tunnel ? run.egressFailure(url) : undefined) ?? describeNavigationError(err, url, timeoutMs, run.settings.proxy?.label);
}

interface Navigation {
  /** False when the load event (or network idle) never came, but the document had arrived and was parsed. */
  complete: boolean;
}

/**
 * Navigates to `url`. A page whose document arrived and was parsed, but whose load
 * event never comes (a hanging iframe or subresource, a long poll under
 * networkidle), is read as it stands rather than failed: its text is there.
 */
async function navigate(page: Page, watch: MainFrameWatch, url: string, options: PageOptions, run: TabRun): Promise<Navigation> {
  refusals.delete(page);
  try {
    const response = await page.goto(url, { waitUntil: WAIT_UNTIL[options.waitUntil], timeout: options.timeout });
    if (response) watch.response = response;
    return { complete: true };
  } catch (err) {
    if (isTimeout(err) && watch.response && (await documentParsed(page))) return { complete: false };
    throw new PageError(navigationFailure(page, run, err, url, options.timeout));
  }
}

/** Redirects a page makes by itself after load (meta refresh, script) that a scrape follows. */
const MAX_REDIRECTS_AFTER_LOAD = 5;
/** Times a page that moved on while held (a navigation already committing), or was held empty, is held again. */
const HOLD_ROUNDS = 2;
/** A meta refresh due within this long is a redirect, not a page that reloads itself now and then. */
const REFRESH_FOLLOW_MS = 3_000;

/**
 * Follows the navigations the page starts by itself after `seen` main-frame
 * requests (a meta refresh due in `refreshMs`, as the last look found, or a
 * script's), until it rests on a document. A navigation refused by the guard, or
 * one that fails, fails the page (Chromium's error page is never the content).
 * Returns the navigation count it rested at: `seen` when nothing came.
 */
async function followRedirectsAfterLoad(page: Page, watch: MainFrameWatch, seen: number, refreshMs: number | undefined, deadline: number, run: TabRun): Promise<number> {
  const { signal } = run;
  if (refreshMs !== undefined && !(await watch.until(() => watch.navigations > seen, Math.min(refreshMs + 1_000, deadline - Date.now()), signal))) return seen;
  let rested = seen;
  for (let hop = 0; hop < MAX_REDIRECTS_AFTER_LOAD && watch.navigations !== rested; hop++) {
    await watch.until(() => watch.settled, deadline - Date.now(), signal);
    rested = watch.navigations;
    const failure = watch.failure;
    // ERR_ABORTED: a download or an empty answer (the page stays), or a newer navigation took over.
    if (failure && !failure.errorText.includes('ERR_ABORTED')) {
      throw new PageError(navigationFailure(page, run, new Error(failure.errorText), failure.url, 0));
    }
    if (!watch.settled) return rested;
  }
  return rested;
}

/**
 * The page's document was stopped before it was parsed: it has no element at all (stopped before the first came),
 * or the hold waited for a load (`loaded`) and yet this document's DOMContentLoaded never came. That load was the
 * document before's, told after the next one was asked for (events from the page and from the network reach us in
 * either order on a loaded machine), and the stop then cut the next one short, its head in and its body not.
 */
function cutShort(page: Page, loaded: boolean): Promise<boolean> {
  return page
    .evaluate((loaded) => {
      const entry = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      return document.documentElement === null || (loaded && entry?.domContentLoadedEventEnd === 0);
    }, loaded)
    .catch(() => false);
}

/**
 * A PDF the tab landed on, as a page: its text as Markdown (and HTML, links). The
 * bytes are the tab's response body; Chromium hands some PDFs to its viewer
 * without keeping the body, and then the document is fetched once more outside
 * the browser, through the engine's guarded fetch.
 */
async function pdfPage(page: Page, url: string, response: HTTPResponse, options: PageOptions, run: TabRun, deadline: number): Promise<PageData> {
  const landed = response.url();
  const held = await response.buffer().catch(() => undefined);
  const bytes = held && isPdf(held) ? held : await run.fetchBytes?.(landed, MAX_PDF_BYTES + 1);
  if (!bytes) throw new PageError(`could not read the PDF document at ${landed}`);
  return pdfPageData(bytes, { sourceURL: url, url: page.url() || landed, status: response.status() }, options, { deadline, signal: run.signal });
}

/**
 * rawHtml: the body of the response the tab rests on, as the server sent it.
 * screenshot: the tab as it stands, as a data: URL (the job keeps it as a file).
 */
async function asServedAndSeen(page: Page, response: HTTPResponse, options: PageOptions): Promise<Pick<PageData, 'rawHtml' | 'screenshot'>> {
  const out: Pick<PageData, 'rawHtml' | 'screenshot'> = {};
  if (options.formats.includes('rawHtml')) {
    // Chromium may no longer hold the body (evicted from its buffer); the document's source is then the nearest.
    out.rawHtml = await response.text().catch(() => page.content());
  }
  if (options.formats.includes('screenshot')) {
    const { fullPage, format } = options.screenshotOptions;
    const image = await oneAtATime(page.browser(), async () => {
      await page.bringToFront();
      return page.screenshot({ type: format, fullPage, encoding: 'base64', captureBeyondViewport: fullPage });
    });
    out.screenshot = `data:image/${format};base64,${image}`;
  }
  return out;
}

/**
 * What a look waits for after waitUntil: a meta refresh due soon (unless `refresh` is false), and
 * script-rendered content (see settle.ts) within half the time left before the page's deadline.
 */
function lookWaits(deadline: number, refresh: boolean): LookWaits {
  const left = deadline - Date.now();
  const settle = settleEnabled() ? settleParams(left) : undefined;
  return { ...(refresh && left > 1 ? { refreshWithinMs: Math.min(REFRESH_FOLLOW_MS, left - 1) } : {}), ...(settle ? { settle } : {}) };
}

/**
 * An HTTP error whose body is empty makes Chromium show its own error page
 * ("This page isn't working", at chrome-error://chromewebdata/) instead of a document.
 */
function showsBrowserErrorPage(page: Page, response: HTTPResponse): boolean {
  return response.status() >= 400 && page.url().startsWith('chrome-error://');
}

/** The page as the server sent it: its status code and nothing to read. */
function emptyErrorPage(url: string, response: HTTPResponse, formats: PageOptions['formats']): PageData {
  return emptyPage(url, response.url(), response.status(), formats);
}

/** The page as it stands, after a navigation: checked for what Chromium shows instead of a document. */
function checkLanded(page: Page, url: string, response: HTTPResponse | null, settings: BrowserSettings): HTTPResponse {
  if (response?.status() === 407) throw new PageError(`the proxy ${settings.proxy?.label ?? ''} refused the credentials (HTTP 407) for ${url}`);
  if (!response) throw new PageError(`no response for ${url}`);
  const egressError = response.headers()[EGRESS_ERROR_HEADER];
  if (egressError) throw new PageError(egressError);
  if (page.url().startsWith('chrome-error://') && response.status() < 400) {
    throw new PageError(refusals.get(page) ?? `could not load ${response.url()}: the browser showed its error page`);
  }
  return response;
}

/** What a scrape in a tab works with besides the page and its options. */
interface TabRun extends ScrapeContext {
  settings: BrowserSettings;
  /** Why the egress proxy did not connect to the host of a URL, if it did not. */
  egressFailure(url: string): string | undefined;
}

async function scrapeInTab(page: Page, url: string, options: PageOptions, run: TabRun): Promise<PageData & SelectedItems & RevalidationResult> {
  const { settings, signal } = run;
  let deadline = Date.now() + options.timeout;
  await prepare(page, settings, run.access);
  const pictures = options.actions.some((action) => action.type === 'screenshot' || action.type === 'pdf');
  await showEverything(page, options.formats.includes('screenshot') || pictures);
  await setJobCookies(page, run.access);
  const unloadProfile = run.profile ? await loadProfile(page, run.profile) : undefined;
  const watch = new MainFrameWatch(page, options.waitUntil === 'domcontentloaded' ? 'domcontentloaded' : 'load');
  let acted: ActionsResult | undefined;
  try {
    const { complete } = await navigate(page, watch, url, options, run);
    let rested = watch.navigations;
    let waited = false;
    let captcha: string | undefined;
    /** A meta refresh the last look found, due in this many ms. */
    let refreshMs: number | undefined;
    for (let round = 0; ; round++) {
      const before = rested;
      rested = await followRedirectsAfterLoad(page, watch, rested, refreshMs, deadline, run);
      // A refresh that did not come when due is not waited for again: the page is read as it stands.
      const refreshIgnored = refreshMs !== undefined && rested === before;
      refreshMs = undefined;
      const response = checkLanded(page, url, watch.response, settings);
      // Chromium shows its own error page for an HTTP error without a body; that page is not the site's content.
      if (showsBrowserErrorPage(page, response)) return emptyErrorPage(url, response, options.formats);
      const contentType = response.headers()['content-type'] ?? 'text/html';
      if (PDF.test(contentType)) {
        if (options.actions.length > 0 && !acted) throw new PageError(`${url} is a PDF document: page actions run on web pages only`);
        return await pdfPage(page, url, response, options, run, deadline);
      }
      if (!RENDERABLE.test(contentType)) {
        throw new PageError(`${url} is not a web page (content type ${contentType.split(';')[0]}); it cannot be rendered as a page`);
      }
      // Past the bound, a page that moved on all the same (a navigation already committing when it was held) is held again.
      const mayMove = round < MAX_REDIRECTS_AFTER_LOAD + HOLD_ROUNDS;
      // Past the bound and still going (an endless chain of refreshes): the page is held where it is, and read there.
      if (round >= MAX_REDIRECTS_AFTER_LOAD) {
        const loaded = await watch.holdStill(deadline - Date.now(), signal);
        // Stopped after a new document came in but before it was parsed: nothing (or only its head) to read, and
        // nothing more will come. It is loaded again and held anew.
        if (mayMove && (await cutShort(page, loaded))) {
          await page.reload({ waitUntil: WAIT_UNTIL[options.waitUntil], timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
          continue;
        }
        rested = watch.navigations;
      }
      // Waits asked for between the settle wait and the read (the first round only) split the look in two.
      const holding = round >= MAX_REDIRECTS_AFTER_LOAD;
      let wait = lookWaits(deadline, !holding && !refreshIgnored);
      if (!waited && (options.waitFor > 0 || (!acted && options.actions.length > 0))) {
        const look = await waitAt(page, wait);
        if (look.kind === 'refresh') {
          refreshMs = look.delayMs;
          continue;
        }
        if (options.waitFor > 0) await delay(options.waitFor, undefined, { signal });
        if (!acted && options.actions.length > 0) {
          acted = await runActions(page, options.actions, { watch, deadline: Date.now() + actionsBudgetMs(options.actions), signal });
          // Where the actions went (a link clicked, a form sent) is loaded and read within a time of its own.
          deadline = Math.max(deadline, Date.now() + Math.min(options.timeout, 15_000));
        }
        wait = {};
      }
      waited = true;
      if (mayMove && watch.navigations !== rested) continue;
      const commits = watch.commits;
      let result: InPageResult;
      let rendered: string | undefined;
      try {
        const look = await readAt(page, wait, inPageOptions(options));
        // The page moved on while it was looked at: read where it went.
        if (mayMove && watch.navigations !== rested) continue;
        if (look.kind === 'refresh') {
          refreshMs = look.delayMs;
          continue;
        }
        if (look.kind === 'captcha') {
          captcha = await passCaptcha(page, look.found, url, run.solver, deadline, signal);
          result = await readTab(page, inPageOptions(options));
        } else {
          result = look.result;
        }
        // The document as rendered, for what is read in Node (structured/readHtml.ts).
        if (options.formats.includes('structuredData') || run.selectors) rendered = await page.content();
      } catch (err) {
        // The page navigated while it was being read (its document went, or a new one came in under the
        // read and failed it): read the page it went to.
        if (mayMove && (isContextGone(err) || watch.commits !== commits)) continue;
        throw err;
      }
      const data: PageData & SelectedItems & RevalidationResult = { ...pageData(page, url, response, result, options, { captcha, complete }), ...(await asServedAndSeen(page, response, options)) };
      if (acted) data.actions = acted;
      if (run.profile) await saveProfile(page, run.profile);
      const validators = run.reportValidators ? validatorsOf(response.headers(), response.status()) : undefined;
      if (validators) data.validators = validators;
      if (rendered === undefined) return data;
      const structuredData = options.formats.includes('structuredData');
      const read = await readRendered(run, rendered, data.metadata.url!, { structuredData, ...(run.selectors ? { selectors: run.selectors } : {}) }, deadline);
      if (structuredData) addStructuredData(data, read.structuredData);
      if (run.selectors) data.selected = read.items ?? [];
      return data;
    }
  } finally {
    watch.dispose();
    await unloadProfile?.();
  }
}

/** Time reading the rendered HTML gets at least, when the page's timeout is (nearly) spent. */
const MIN_READ_MS = 5_000;

function readRendered(run: TabRun, html: string, url: string, reads: HtmlReads, deadline: number): Promise<HtmlReadResult> {
  if (!run.readHtml) throw new PageError('structuredData is read by the engine (BrowserEngine), not by scrapeUrl alone');
  return run.readHtml(html, url, reads, { timeoutMs: Math.max(MIN_READ_MS, deadline - Date.now()), signal: run.signal });
}

function inPageOptions(options: PageOptions): InPageOptions {
  const formats = options.formats;
  return {
    onlyMainContent: options.onlyMainContent,
    includeTags: options.includeTags,
    excludeTags: options.excludeTags,
    wantHtml: formats.includes('html'),
    wantMarkdown: formats.includes('markdown'),
    wantLinks: formats.includes('links'),
    explain: options.explain,
  };
}

function pageData(
  page: Page,
  url: string,
  response: HTTPResponse,
  result: InPageResult,
  options: PageOptions,
  notes: { captcha?: string; complete: boolean },
): PageData {
  const formats = options.formats;
  const data: PageData = {
    metadata: { ...result.metadata, url: page.url(), sourceURL: url, statusCode: String(response.status()), scrapedAt: new Date().toISOString() },
  };
  if (notes.captcha) data.metadata.captcha = notes.captcha;
  const warnings = [
    notes.complete ? '' : `the page did not finish loading within ${options.timeout} ms; this is what had loaded by then`,
    result.warning ?? '',
  ].filter(Boolean);
  if (warnings.length > 0) data.metadata.warning = warnings.join('; ');
  if (result.explain !== undefined) data.metadata.explain = result.explain;
  if (formats.includes('markdown')) data.markdown = result.markdown;
  if (formats.includes('html')) data.html = result.html;
  if (formats.includes('links')) data.links = result.links;
  return data;
}

export interface ScrapeContext {
  /** Solves CAPTCHAs the page shows; without it such a page fails. */
  solver?: CaptchaSolverConfig;
  /**
   * The job's signal: the scrape gets a tab of the job's own browser context, and
   * ends at once (navigation and every wait) when the signal aborts.
   */
  signal?: AbortSignal;
  /** The job's headers, cookies and user-agent, and where they may go. */
  access?: SiteAccess;
  /** A plain GET of a document the tab could not hand over (a PDF), at most `maxBytes`; undefined when it failed. */
  fetchBytes?: (url: string, maxBytes: number) => Promise<Uint8Array | undefined>;
  /** Reads the rendered HTML in Node, off this thread (the engine's worker threads): for the structuredData format. */
  readHtml?: (html: string, url: string, reads: HtmlReads, limits: { timeoutMs: number; signal?: AbortSignal }) => Promise<HtmlReadResult>;
  /** extract --selectors: the items of this CSS schema, read from the rendered HTML, come back as `selected`. */
  selectors?: CssSchema;
  /** The page's validators (the document's ETag, Last-Modified) come back as `validators`, for the job's cache. */
  reportValidators?: boolean;
  /** The request's profile: loaded before the page, saved after it (profileState.ts). */
  profile?: ProfileHandle;
  /** Whose page it is (serve: the job's API key), for its turn at a tab (tabTurns.ts). */
  turn?: string;
}

/**
 * Scrapes `url` in a tab from `pool`. The whole page (navigation, waitFor and
 * extraction) must finish within timeout + waitFor plus a grace period, so that a
 * page that hangs after load cannot hold a tab forever.
 */
export async function scrapeUrl(pool: BrowserPool, url: string, scrapeOptions?: ScrapeOptions, context: ScrapeContext = {}): Promise<PageData & SelectedItems & RevalidationResult> {
  const options = withDefaults(scrapeOptions);
  const { signal } = context;
  const page = await pool.acquire(signal, context.turn).catch((err: Error) => {
    if (signal?.aborted) throw abortError(signal);
    throw err.name === 'EnvironmentError' ? err : new PageError(`could not open a browser tab: ${err.message}`);
  });
  let healthy = true;
  const crash = crashOf(page, url);
  const aborted = whenAborted(signal);
  try {
    return await withDeadline(
      Promise.race([
        scrapeInTab(page, url, options, { ...context, settings: pool.settings, egressFailure: (failed) => pool.egressFailure(failed) }),
        crash.promise,
        aborted.promise,
      ]),
      options.timeout + options.waitFor + actionsBudgetMs(options.actions) + 10_000,
      () => `timed out after ${options.timeout} ms waiting for ${url} to load`,
    );
  } catch (err) {
    healthy = false;
    if (signal?.aborted) throw abortError(signal);
    if (err instanceof PageError || (err as Error).name === 'EnvironmentError') throw err;
    throw new PageError(describeNavigationError(err, url, options.timeout));
  } finally {
    crash.dispose();
    aborted.dispose();
    await pool.release(page, healthy);
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new PageError('the job was stopped');
}

/** Rejects once `signal` aborts, so that no step of the scrape outlives its job. */
function whenAborted(signal: AbortSignal | undefined): { promise: Promise<never>; dispose(): void } {
  let onAbort: (() => void) | undefined;
  const promise = new Promise<never>((_, reject) => {
    if (!signal) return;
    onAbort = () => reject(abortError(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => undefined);
  return { promise, dispose: () => onAbort && signal?.removeEventListener('abort', onAbort) };
}

/** Rejects as soon as the tab's renderer crashes: Puppeteer's navigation would only notice at its timeout. */
function crashOf(page: Page, url: string): { promise: Promise<never>; dispose(): void } {
  let onError: (() => void) | undefined;
  const promise = new Promise<never>((_, reject) => {
    onError = () => reject(new PageError(`the browser tab crashed while loading ${url}`));
    page.once('error', onError);
  });
  promise.catch(() => undefined);
  return { promise, dispose: () => page.off('error', onError!) };
}
