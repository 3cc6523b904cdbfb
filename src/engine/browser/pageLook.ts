/**
 * One look at the tab's document a page, in one evaluation: a meta refresh due soon (which the scrape
 * follows), the settle wait (settle.ts), a CAPTCHA widget (session/captcha.ts), then the extraction
 * (pageExtraction.ts). Each was an evaluation of its own before, a round trip to Chromium each, where bare
 * Puppeteer's goto + content() makes one. The look stops at the first of them that says the page is not to
 * be read yet, and says which.
 */
import type { Page } from 'puppeteer';
import { timeoutSignal } from '../timeoutSignal.js';
import { PageError } from '../../api/errors.js';
import type { InPageOptions, InPageResult } from '../content/inPage.js';
import { BAD_USER_SELECTOR } from '../content/inPage/cleanup.js';
import { CHALLENGE_MAX_TEXT, describeCaptcha, findCaptcha, injectToken, solveCaptcha, type CaptchaSolverConfig, type FoundCaptcha } from '../session/captcha.js';
import { dueRefreshMs, REFRESH_ELSEWHERE } from './mainFrame.js';
import { extractInTab, extractionInTab, wholeExtraction } from './pageExtraction.js';
import { PROBE_KEY, waitInPage, type SettleParams } from './settle.js';

export interface LookWaits {
  /** A meta refresh pointing elsewhere, due within this many ms, ends the look; none: not looked for. */
  refreshWithinMs?: number;
  /** The settle wait, when the page gets one. */
  settle?: SettleParams;
}

export type Refresh = { kind: 'refresh'; delayMs: number };

/** What a look that reads the page found: a refresh due, a CAPTCHA in the way, or the content. */
export type Read = Refresh | { kind: 'captcha'; found: FoundCaptcha } | { kind: 'read'; result: InPageResult };

// The parts run in the page, each self-contained (serialized from its source).
const REFRESH = `(${dueRefreshMs.toString()})(${JSON.stringify(REFRESH_ELSEWHERE.source)}, want.refreshWithinMs)`;
const SETTLE = `(${waitInPage.toString()})(${JSON.stringify(PROBE_KEY)}, want.settle)`;
const CAPTCHA = `(${findCaptcha.toString()})(${CHALLENGE_MAX_TEXT})`;

/** `then`: statements run after the wait, returning the look's answer. */
function lookExpression(want: LookWaits, then: string): string {
  return `(async () => {
    const want = ${JSON.stringify({ refreshWithinMs: want.refreshWithinMs, settle: want.settle })};
    if (want.refreshWithinMs !== undefined) {
      const delayMs = ${REFRESH};
      if (delayMs !== null) return { kind: 'refresh', delayMs };
    }
    if (want.settle) {
      try {
        await ${SETTLE};
      } catch {
        /* the wait never fails the page */
      }
    }
    ${then}
  })()`;
}

/**
 * A refresh due soon, else the settle wait; for a page that has more to wait for before it is read (waitFor,
 * actions). Never fails the page: if it navigates or its context goes, the read that follows says so.
 */
export async function waitAt(page: Page, want: LookWaits): Promise<Refresh | { kind: 'settled' }> {
  const look = (await page.evaluate(lookExpression(want, `return { kind: 'settled' };`)).catch(() => undefined)) as Refresh | { kind: 'settled' } | undefined;
  return look ?? { kind: 'settled' };
}

/** A refresh due soon, else the settle wait, then a CAPTCHA widget in the way, else the content (see the module comment). */
export async function readAt(page: Page, want: LookWaits, options: InPageOptions): Promise<Read> {
  const then = `const found = ${CAPTCHA};
    if (found) return { kind: 'captcha', found };
    return { kind: 'read', result: ${extractionInTab(options)} };`;
  const look = (await page.evaluate(lookExpression(want, then)).catch(mapSelectorError)) as Read | { kind: 'read'; result: null };
  if (look.kind !== 'read' || look.result !== null) return look as Read;
  // A document that started before the tab was given the extraction.
  return { kind: 'read', result: await wholeExtraction(page, options).catch(mapSelectorError) };
}

/** The extraction alone, not looking for a CAPTCHA (one was solved). */
export function readTab(page: Page, options: InPageOptions): Promise<InPageResult> {
  return extractInTab(page, options).catch(mapSelectorError);
}

/** The user's includeTags/excludeTags are only parsed by the page's CSS engine. */
function mapSelectorError(err: unknown): never {
  const badSelector = BAD_USER_SELECTOR.exec((err as Error)?.message ?? '');
  if (badSelector) throw new PageError(badSelector[0]);
  throw err;
}

/**
 * A CAPTCHA widget on the page is either solved (with a solver) or the page fails saying so: the challenge
 * page is never returned as if it were the content. Solving counts against the page's timeout. Returns the
 * metadata entry to add.
 */
export async function passCaptcha(
  page: Page,
  found: FoundCaptcha,
  url: string,
  solver: CaptchaSolverConfig | undefined,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<string> {
  const label = describeCaptcha(found);
  if (!solver) throw new PageError(`blocked by a CAPTCHA (${label}) at ${url}; run with --solve-captchas and a solver configured`);
  const timeout = timeoutSignal(Math.max(1, deadline - Date.now()));
  const token = await solveCaptcha(solver, found, page.url(), signal ? AbortSignal.any([timeout, signal]) : timeout);
  const remaining = Math.max(1, deadline - Date.now());
  const navigated = page.waitForNavigation({ waitUntil: 'load', timeout: remaining }).catch(() => null);
  await injectToken(page, found, token);
  await Promise.race([navigated, page.waitForNetworkIdle({ idleTime: 300, timeout: remaining }).catch(() => undefined)]);
  return `${label} solved`;
}
