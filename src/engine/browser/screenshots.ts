/**
 * Screenshots of one browser, one at a time (the screenshot format and the
 * screenshot and pdf actions).
 */
import type { Browser } from 'puppeteer';
import { PageError } from '../../api/errors.js';

const SCREENSHOT_TIMEOUT_MS = 30_000;
/** The last screenshot begun in each browser; it goes when the browser does. */
const screenshotChains = new WeakMap<Browser, Promise<unknown>>();

/**
 * Chromium paints only the tab in front of its window: a screenshot of a tab behind
 * another waits for a frame that never comes. The pool opens each tab as a window of
 * its own (browser.ts); screenshots of one browser are still taken one at a time,
 * each with its tab brought to the front, so that one never depends on that alone.
 */
export function oneAtATime<T>(browser: Browser, take: () => Promise<T>): Promise<T> {
  // Bounded, so that one tab that never paints cannot hold every later screenshot.
  const once = () => bounded(take());
  const taken = (screenshotChains.get(browser) ?? Promise.resolve()).then(once, once);
  screenshotChains.set(browser, taken.catch(() => undefined));
  return taken;
}


function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PageError(`the screenshot took longer than ${SCREENSHOT_TIMEOUT_MS} ms`)), SCREENSHOT_TIMEOUT_MS);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
