/**
 * A tab made ready for scrapes (once per tab, which later scrapes reuse): dialogs
 * answered, the job's user agent, proxy credentials and headers, requests
 * checked by the guard, heavy files blocked unless a screenshot needs them.
 */
import type { BrowserContext, CDPSession, Page } from 'puppeteer';
import { accessHeaders, type SiteAccess } from '../net/access.js';
import type { BrowserSettings } from './browser.js';
import type { RequestGuard } from '../net/ssrf.js';
import { installExtraction } from './pageExtraction.js';
import { installSettleProbe, settleEnabled } from './settle.js';
import { userAgentHeader } from '../userAgent.js';

/** Resource types a scrape never needs; blocking them saves bandwidth and render time. */
const BLOCKED_RESOURCES = new Set(['image', 'media', 'font']);

/** Why the guard refused the main frame's last navigation (or one of its redirects), per tab. */
export const refusals = new WeakMap<Page, string>();

/**
 * Every request of the tab passes here: heavy resources are blocked, with a guard
 * each request (each redirect hop included) is checked before it goes out, and
 * the job's headers are added to the requests that may have them (access.ts).
 */
async function interceptRequests(page: Page, guard?: RequestGuard, access?: SiteAccess): Promise<void> {
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.isInterceptResolutionHandled()) return;
    if (!showsEverything.has(page) && blockedRequest(request.url(), request.resourceType())) {
      void request.abort('blockedbyclient').catch(() => undefined);
      return;
    }
    const go = () => {
      // Cookies the browser sends by itself (from the context's jar); here only the job's own headers.
      const extra = access ? withoutBrowserOwn(accessHeaders(access, request.url())) : {};
      return Object.keys(extra).length > 0 ? request.continue({ headers: { ...request.headers(), ...extra } }) : request.continue();
    };
    if (!guard) {
      void go().catch(() => undefined);
      return;
    }
    void guard(request.url())
      .catch((err: unknown) => `refused: could not check ${request.url()}: ${(err as Error)?.message ?? err}`)
      .then((refusal) => {
        if (refusal === undefined) return go();
        if (request.isNavigationRequest() && request.frame() === page.mainFrame()) refusals.set(page, refusal);
        return request.abort('accessdenied');
      })
      .catch(() => undefined);
  });
}

/** File types a scrape never needs, blocked by URL inside Chromium when no request needs checking. */
const BLOCKED_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'woff', 'woff2', 'ttf', 'otf', 'eot', 'mp4', 'webm', 'mp3', 'ogg', 'wav', 'm4a', 'mov'];
const BLOCKED_URL_PATTERNS = BLOCKED_EXTENSIONS.flatMap((ext) => [`*.${ext}`, `*.${ext}?*`]);
/** The same file types for requests that pass through Node (the favicon has no resource type of its own). */
const BLOCKED_PATH = new RegExp(`\\.(${BLOCKED_EXTENSIONS.join('|')})$`, 'i');

function blockedRequest(url: string, resourceType: string): boolean {
  if (BLOCKED_RESOURCES.has(resourceType)) return true;
  try {
    return BLOCKED_PATH.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

/**
 * Without a guard, no request needs a decision from Node: blocking heavy files by
 * URL inside Chromium spares every request a round trip to this process.
 */
async function blockByUrl(page: Page): Promise<void> {
  const session = await networkSession(page);
  await session.send('Network.setBlockedURLs', { urls: BLOCKED_URL_PATTERNS });
  blockingSessions.set(page, session);
}

/**
 * A protocol session of the tab with the Network domain on, which blocking by URL needs: Puppeteer's own,
 * which has it on already. A second session with the domain on was sent every network event of the tab a
 * second time (about 20 messages a plain page, each encoded in Chromium and parsed in Node). Puppeteer's
 * typings do not name its session; a second one stands in if a version lacks it.
 */
async function networkSession(page: Page): Promise<CDPSession> {
  const own = (page as unknown as { _client?: () => CDPSession })._client;
  if (typeof own === 'function') return own.call(page);
  const session = await page.createCDPSession();
  await session.send('Network.enable');
  return session;
}

/** Tabs whose current scrape takes a screenshot: images, media and fonts load, as a person would see the page. */
const showsEverything = new WeakSet<Page>();
/** The CDP session that blocks heavy files by URL in a tab without request interception. */
const blockingSessions = new WeakMap<Page, CDPSession>();

/** Lets heavy files load in the tab for a screenshot, or blocks them again; tabs are reused by other scrapes. */
export async function showEverything(page: Page, show: boolean): Promise<void> {
  if (showsEverything.has(page) === show) return;
  if (show) showsEverything.add(page);
  else showsEverything.delete(page);
  await blockingSessions.get(page)?.send('Network.setBlockedURLs', { urls: show ? [] : BLOCKED_URL_PATTERNS });
}

/** The job's headers without the cookies, which the browser sends itself from the context's cookie jar. */
function withoutBrowserOwn(headers: Record<string, string>): Record<string, string> {
  const { cookie: _cookie, ...rest } = headers;
  return rest;
}

const prepared = new WeakSet<Page>();
/** Browser contexts that hold their job's cookies already: set once, so that cookies the site sets later stay. */
const cookiesSet = new WeakSet<BrowserContext>();

/**
 * The job's cookies go into its browser context's cookie jar, which sends each
 * only to its own domain, whatever the pages load or redirect to.
 */
export async function setJobCookies(page: Page, access: SiteAccess | undefined): Promise<void> {
  const context = page.browserContext();
  if (!access || access.cookies.length === 0 || cookiesSet.has(context)) return;
  cookiesSet.add(context);
  await page.setCookie(
    ...access.cookies.map((cookie) => {
      const common = {
        name: cookie.name,
        value: cookie.value,
        path: cookie.path ?? '/',
        secure: cookie.secure ?? false,
        httpOnly: cookie.httpOnly ?? false,
        ...(cookie.expires ? { expires: cookie.expires } : {}),
      };
      // A cookie set by URL is host-only; one set with a leading-dot domain also goes to subdomains.
      return cookie.includeSubdomains
        ? { ...common, domain: `.${cookie.domain}` }
        : { ...common, url: `${cookie.secure ? 'https' : 'http'}://${cookie.domain}${cookie.path ?? '/'}` };
    }),
  );
}

/**
 * A dialog left open stops the page (its load event, our evaluations) until the
 * page's timeout. Nobody is there to answer: alert, confirm and prompt are
 * dismissed, and a beforeunload prompt lets the tab leave, so that the next
 * navigation is never held by the page before it.
 */
function answerDialogs(page: Page): void {
  page.on('dialog', (dialog) => {
    void (dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
  });
}

export async function prepare(page: Page, settings: BrowserSettings, access: SiteAccess | undefined): Promise<void> {
  if (prepared.has(page)) return;
  prepared.add(page);
  answerDialogs(page);
  if (access?.userAgent) await page.setUserAgent({ userAgent: userAgentHeader(access.userAgent) });
  // Chromium asks for proxy credentials per tab; answering them here covers every request of the tab.
  if (settings.proxy?.username && !settings.egressGuard) {
    await page.authenticate({ username: settings.proxy.username, password: settings.proxy.password ?? '' });
  }
  const hasHeaders = access !== undefined && Object.keys(access.headers).length > 0;
  if (settings.requestGuard || hasHeaders) await interceptRequests(page, settings.requestGuard, access);
  else await blockByUrl(page);
  if (settleEnabled()) await installSettleProbe(page);
  await installExtraction(page);
}
