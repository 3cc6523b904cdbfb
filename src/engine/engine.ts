/**
 * The engine as the rest of webjobs sees it: scrape a URL, or fetch a plain
 * resource (robots.txt, a sitemap), with scrape and session options. It reads a
 * page over plain HTTP (http/) or renders it in Chromium, as scrapeOptions.engine
 * says (auto: HTTP, and Chromium only when the page needs it, http/choice.ts).
 * It owns the browsers, one per distinct proxy since Chromium takes its proxy at
 * launch, and the worker threads that read pages fetched over HTTP.
 */
import { EnvironmentError, PageError } from '../api/errors.js';
import { LIMITS } from '../api/limits.js';
import type { EngineName, PageData, ScrapeOptions, SessionOptions } from '../api/types.js';
import { accessHeaders, type SiteAccess } from './net/access.js';
import { userAgentHeader } from './userAgent.js';
import { BrowserPool, type BrowserSettings } from './browser/browser.js';
import { findBrowser } from './browser/findBrowser.js';
import { authorizationFor, splitCredentials, type UrlCredentials } from './http/credentials.js';
import { optionsNeedBrowser } from './http/choice.js';
import type { ProfileHandle } from './browser/profileState.js';
import { ExtractPool } from './http/extractPool.js';
import { NAVIGATION_HEADERS } from './http/fetchPage.js';
import { scrapeOverHttp } from './http/httpScrape.js';
import { savedPageFetch } from './http/savedPage.js';
import { withDefaults } from './pageOptions.js';
import type { HtmlReads, SelectedItems } from './structured/readHtml.js';
import type { PlainResponse } from './crawl/fetchText.js';
import type { CssSchema } from '../api/cssSchema.js';
import { solverConfig } from './session/captcha.js';
import { proxiedFetch } from './session/proxiedFetch.js';
import { resolveProxy, type ProxyConfig } from './session/proxy.js';
import { conditionalHeaders, hasValidators, type Revalidation, type RevalidationResult } from './validators.js';

export interface FetchOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  sessionOptions?: SessionOptions;
  headers?: Record<string, string>;
  /** The job's headers, cookies and user-agent: added on each hop to which they may go (access.ts). */
  access?: SiteAccess;
}

const MAX_REDIRECTS = 10;

/** A scrape's options as a job's own code may give them: the API's, and extract --selectors' CSS schema. */
export interface EngineScrapeOptions extends ScrapeOptions {
  /** The items of this schema, read from the page's final HTML, come back as the page's `selected`. */
  selectors?: CssSchema;
  /** The job's cache (validators.ts): report the page's validators, and send a conditional request with the stored ones. */
  revalidate?: Revalidation;
  /**
   * A crawl's word for the page: its sitemap's lastmod (ms since the epoch). Read by the job's cache
   * (jobs/revalidation.ts) to decide whether to revalidate; the engine does not read it.
   */
  sitemapLastmod?: number;
  /**
   * Whose page it is (serve: the job's API key): the extraction workers, shared by every job, take the
   * waiting pages of each key in turn (api/workerPool.ts), so that one key's batch never holds them all.
   */
  turn?: string;
  /** The request's profile where the job keeps it (jobs/profiles.ts): loaded before the page, saved after it. */
  profileHandle?: ProfileHandle;
}

/** A page as the engine returns it: the API's PageData, the items of `selectors` when given, and what `revalidate` asked. */
export type EnginePage = PageData & SelectedItems & RevalidationResult;

export interface Engine {
  /**
   * Throws or rejects (EnvironmentError, ConfigError) when a job with these options
   * could not run here: with engine `browser`, a machine without Chromium (finding it
   * loads Puppeteer, hence async).
   */
  preflight(sessionOptions?: SessionOptions, engine?: EngineName): Promise<void> | void;
  /**
   * Scrapes one page. `signal` is the job's: every scrape given the same signal
   * shares one browser context (cookies, storage, cache, tabs) that no other job
   * sees, closed when the signal aborts, and a scrape in progress ends at once then.
   * Whoever runs the job aborts its signal when the job is cancelled or ends.
   * `access`: the job's headers, cookies and user-agent (see access.ts).
   */
  scrape(url: string, scrapeOptions?: EngineScrapeOptions, sessionOptions?: SessionOptions, signal?: AbortSignal, access?: SiteAccess): Promise<EnginePage>;
  /** A plain HTTP GET outside the browser, through the session's proxy when it has one. */
  fetch(url: string, options: FetchOptions): Promise<PlainResponse>;
  /** Why the address guard (serve, mcp) refuses `url`, by what its host resolves to; undefined when it may be fetched. */
  addressRefusal?(url: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/** The body of `response`, stopping after `maxBytes`. */
async function readAtMost(response: PlainResponse, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    chunks.push(chunk);
    total += chunk.length;
    if (total >= maxBytes) break; // leaving the loop cancels the body
  }
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

export class BrowserEngine implements Engine {
  private readonly pools = new Map<string, BrowserPool>();
  private extractPool: ExtractPool | undefined;

  constructor(private readonly settings: BrowserSettings = {}) {}

  private get env(): NodeJS.ProcessEnv {
    return this.settings.env ?? process.env;
  }

  private pool(proxy: ProxyConfig | undefined): BrowserPool {
    const key = proxy?.url ?? 'direct';
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new BrowserPool({ ...this.settings, proxy });
      this.pools.set(key, pool);
    }
    return pool;
  }

  async preflight(sessionOptions?: SessionOptions, engine: EngineName = 'auto'): Promise<void> {
    if (engine === 'browser') await this.browserPath();
    resolveProxy(sessionOptions, this.env);
    if (sessionOptions?.solveCaptchas) solverConfig(this.env);
  }

  private async browserPath(): Promise<string> {
    // Loaded only when a browser may be needed: pages read over HTTP never load Puppeteer.
    const { default: puppeteer } = await import('puppeteer');
    return findBrowser(this.env, () => puppeteer.executablePath());
  }

  async scrape(url: string, scrapeOptions?: EngineScrapeOptions, sessionOptions?: SessionOptions, signal?: AbortSignal, access?: SiteAccess): Promise<EnginePage> {
    const options = withDefaults(scrapeOptions);
    const selectors = scrapeOptions?.selectors;
    if (url.startsWith('file:')) return this.readSaved(url, options, signal, selectors);
    if (options.engine === 'browser') return this.render(url, scrapeOptions, sessionOptions, signal, access);
    const before = options.engine === 'auto' ? optionsNeedBrowser({ ...options, profile: scrapeOptions?.profile }) : undefined;
    if (before) return this.renderBecause(before, url, scrapeOptions, sessionOptions, signal, access);
    if (options.engine === 'http' && options.formats.includes('screenshot')) {
      throw new PageError('the screenshot format is taken in a browser: use --engine auto or browser');
    }
    this.extractPool ??= new ExtractPool();
    const fetcher = (target: string, init: { timeoutMs: number; signal?: AbortSignal; headers: Record<string, string> }) =>
      this.fetch(target, { ...init, sessionOptions, access });
    const revalidate = scrapeOptions?.revalidate;
    const read = await scrapeOverHttp(fetcher, this.extractPool, url, options, { signal, access, selectors, revalidate, turn: scrapeOptions?.turn });
    if (!read.needsBrowser) return read.data;
    if (options.engine === 'http') {
      const note = `this page may need a browser (${read.needsBrowser}); --engine auto or browser renders it`;
      read.data.metadata.warning = [read.data.metadata.warning, note].filter(Boolean).join('; ');
      return read.data;
    }
    // The conditional request was this one: rendering does not ask again.
    const rendered = revalidate ? { ...scrapeOptions, revalidate: {} } : scrapeOptions;
    return this.renderBecause(read.needsBrowser, url, rendered, sessionOptions, signal, access);
  }

  /**
   * A saved page: read in Node by the HTTP engine's extraction, never rendered,
   * so that nothing it names is loaded and no network is used. What only a
   * browser does (--engine browser, screenshots, waits for scripts) fails the page
   * saying so; a page that seems to need scripts is read as saved, with a warning.
   */
  private async readSaved(url: string, options: ReturnType<typeof withDefaults>, signal?: AbortSignal, selectors?: CssSchema): Promise<EnginePage> {
    if (!this.settings.savedPages) throw new PageError(`${url}: saved pages (file://) are read only by the command line, on their own machine`);
    const browserOnly = options.engine === 'browser' ? '--engine browser renders pages in Chromium' : optionsNeedBrowser({ ...options, profile: undefined });
    if (browserOnly) throw new PageError(`${url} is a saved page, read without a browser or a network, but ${browserOnly}`);
    this.extractPool ??= new ExtractPool();
    const read = await scrapeOverHttp(savedPageFetch(url), this.extractPool, url, options, { signal, selectors });
    if (read.needsBrowser) {
      const note = `this saved page may need a browser (${read.needsBrowser}); it was read as saved, without running its scripts`;
      read.data.metadata.warning = [read.data.metadata.warning, note].filter(Boolean).join('; ');
    }
    return read.data;
  }

  /** The page rendered in Chromium, its metadata saying so. */
  private async render(url: string, scrapeOptions?: EngineScrapeOptions, sessionOptions?: SessionOptions, signal?: AbortSignal, access?: SiteAccess): Promise<EnginePage> {
    const validators = scrapeOptions?.revalidate?.validators;
    if (hasValidators(validators) && (await this.notModified(url, validators, scrapeOptions, sessionOptions, signal, access))) {
      return { metadata: { url, sourceURL: url, statusCode: '304', engine: 'browser' }, notModified: true };
    }
    if (scrapeOptions?.profile && !scrapeOptions.profileHandle) throw new PageError('profiles are kept by the job store of webjobs on this machine or of webjobs serve; this one keeps none');
    const proxy = resolveProxy(sessionOptions, this.env);
    const solver = sessionOptions?.solveCaptchas ? solverConfig(this.env) : undefined;
    const fetchBytes = (target: string, maxBytes: number) =>
      this.fetch(target, { timeoutMs: scrapeOptions?.timeout ?? LIMITS.defaultTimeoutMs, signal, sessionOptions, access }).then(
        (response) => (response.ok ? readAtMost(response, maxBytes) : response.body?.cancel().then(() => undefined)),
        () => undefined,
      );
    const readHtml = (html: string, at: string, reads: HtmlReads, limits: { timeoutMs: number; signal?: AbortSignal }) =>
      (this.extractPool ??= new ExtractPool()).read(html, at, reads, { ...limits, key: scrapeOptions?.turn });
    // Loaded by the first page rendered: a page read over HTTP never loads the browser's scrape (its actions, settle
    // wait, screenshots, structured data in the page: 25 modules, ~40 ms of CPU at each start of webjobs).
    const { scrapeUrl } = await import('./browser/scrape.js');
    const data = await scrapeUrl(this.pool(proxy), url, scrapeOptions, {
      solver,
      signal,
      access,
      fetchBytes,
      readHtml,
      selectors: scrapeOptions?.selectors,
      reportValidators: scrapeOptions?.revalidate !== undefined,
      turn: scrapeOptions?.turn,
      ...(scrapeOptions?.profileHandle ? { profile: scrapeOptions.profileHandle } : {}),
    });
    data.metadata.engine = 'browser';
    return data;
  }

  /**
   * Before rendering a stored page again: a conditional GET of its document, through
   * Engine.fetch (the request guard on every hop, the egress and the session's proxy,
   * the job's headers and cookies where they may go), as Crawl4AI revalidates with a
   * HEAD. A GET, not a HEAD: servers answer a conditional GET with 304 far more
   * reliably than a HEAD, and a 200's body is cancelled at once, unread. Any other
   * answer, or no answer, renders the page as ever (which reports its own failure).
   */
  private async notModified(
    url: string,
    validators: Revalidation['validators'],
    scrapeOptions: EngineScrapeOptions | undefined,
    sessionOptions: SessionOptions | undefined,
    signal: AbortSignal | undefined,
    access: SiteAccess | undefined,
  ): Promise<boolean> {
    const headers = { accept: NAVIGATION_HEADERS.accept, ...conditionalHeaders(validators) };
    const response = await this.fetch(url, { timeoutMs: scrapeOptions?.timeout ?? LIMITS.defaultTimeoutMs, signal, sessionOptions, access, headers }).catch(() => undefined);
    await response?.body?.cancel().catch(() => undefined);
    return response?.status === 304;
  }

  /**
   * auto's way to the browser, for `reason`: on a machine without one, the page
   * fails (not the job) with what it needed and how to get a browser.
   */
  private async renderBecause(
    reason: string,
    url: string,
    scrapeOptions?: EngineScrapeOptions,
    sessionOptions?: SessionOptions,
    signal?: AbortSignal,
    access?: SiteAccess,
  ): Promise<EnginePage> {
    try {
      await this.browserPath();
      const data = await this.render(url, scrapeOptions, sessionOptions, signal, access);
      data.metadata.engineReason = reason;
      return data;
    } catch (err) {
      if (!(err instanceof EnvironmentError)) throw err;
      throw new PageError(`${url} needs a browser (${reason}), and none could be started: ${err.message}`);
    }

  }

  async addressRefusal(url: string): Promise<string | undefined> {
    return this.settings.requestGuard?.(url);
  }

  /**
   * Follows redirects itself, so that the request guard (against SSRF, in `serve`)
   * sees every hop, as it does for the browser's requests.
   */
  async fetch(url: string, options: FetchOptions): Promise<PlainResponse> {
    const proxy = resolveProxy(options.sessionOptions, this.env);
    const guard = this.settings.requestGuard;
    let current = url;
    let credentials: UrlCredentials | undefined;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      // A redirect (or meta refresh) to data:, file: or any scheme but http(s) is refused, as Chromium refuses it (ERR_UNSAFE_REDIRECT).
      const scheme = new URL(current).protocol;
      if (scheme !== 'http:' && scheme !== 'https:') throw new PageError(`the page redirects to a ${scheme} URL; only http and https redirects are followed`);
      const refusal = guard ? await guard(current) : undefined;
      if (refusal) throw new PageError(refusal);
      const split = splitCredentials(current);
      current = split.url;
      credentials = split.credentials ?? credentials;
      // Decided per hop: a redirect to another site gets none of the job's headers, credentials or another site's cookies.
      const headers = {
        ...options.headers,
        ...authorizationFor(credentials, current),
        ...accessHeaders(options.access, current),
        'user-agent': userAgentHeader(options.access?.userAgent),
      };
      const response = await proxiedFetch(current, await this.egressOr(proxy), { ...options, headers }).catch((err: unknown) => {
        // A tunnel the egress proxy did not open fails as the proxy's; its own reason says what happened.
        const why = this.pool(proxy).egressFailure(current);
        throw why ? new PageError(why) : err;
      });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || !location) return response;
      await response.body?.cancel();
      current = new URL(location, current).href;
    }
    throw new PageError(`too many redirects fetching ${url}`);
  }

  /**
   * With a guard, Node's own requests take the browser's way out too: the egress
   * proxy, which dials only addresses it checked (and chains to `proxy`).
   */
  private async egressOr(proxy: ProxyConfig | undefined): Promise<ProxyConfig | undefined> {
    const egress = this.pool(proxy).egressProxy();
    if (!egress) return proxy;
    const { url } = await egress;
    // Named by the user's proxy alone: the egress proxy's own port is nobody's business.
    return { server: url, url, label: proxy?.label ?? '' };
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    const extractPool = this.extractPool;
    this.extractPool = undefined;
    await Promise.all([...pools.map((pool) => pool.close()), extractPool?.close()]);
  }
}
