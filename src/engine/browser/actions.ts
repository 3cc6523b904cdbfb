/**
 * Runs a page's actions (api/actionTypes.ts) in order in its tab, after it loaded
 * and before it is read. Each wait is bounded and ends with the job's signal. A
 * navigation an action starts (a click on a link, a form sent with Enter, a script
 * setting `location`) is waited for, through the same request guard as every other request
 * of the tab. A failure names the action and its place in the list.
 */
import type { Page } from 'puppeteer';
import { PageError } from '../../api/errors.js';
import { ACTION_LIMITS, type Action, type ActionsResult } from '../../api/actions.js';
import { isContextGone, type MainFrameWatch } from './mainFrame.js';
import { oneAtATime } from './screenshots.js';
import { runScroll } from './scrollActions.js';

/** After a click or a key, how long the page has to start a navigation or change, before the next action goes on. */
const AFTER_INPUT_MS = 1_000;
/** A navigation an action started may take this long to load, within the page's deadline. */
const NAVIGATION_MS = 15_000;

export interface ActionRun {
  watch: MainFrameWatch;
  /** The page's deadline (ms since the epoch): no wait goes past it. */
  deadline: number;
  signal?: AbortSignal;
}

/** The time each action may take at most besides its own waits: what the page's deadline grows by. */
export function actionsBudgetMs(actions: readonly Action[]): number {
  return actions.reduce((sum, action) => {
    switch (action.type) {
      case 'wait':
        return sum + (action.milliseconds ?? ACTION_LIMITS.selectorWaitMs);
      case 'click':
      case 'press':
        return sum + ACTION_LIMITS.selectorWaitMs + NAVIGATION_MS;
      case 'scroll':
        return sum + 3_000 * (action.repeat ?? 1) + 5_000;
      default:
        return sum + 30_000;
    }
  }, 0);
}

function describe(action: Action, index: number): string {
  const detail = 'selector' in action && action.selector ? ` "${action.selector}"` : action.type === 'press' ? ` ${action.key}` : '';
  return `action ${index + 1} (${action.type}${detail})`;
}

/** `ms`, bounded by the deadline. */
function within(run: ActionRun, ms: number): number {
  return Math.max(1, Math.min(ms, run.deadline - Date.now()));
}

async function waitForSelector(page: Page, selector: string, run: ActionRun, label: string): Promise<void> {
  const timeout = within(run, ACTION_LIMITS.selectorWaitMs);
  try {
    await page.waitForSelector(selector, { timeout, ...(run.signal ? { signal: run.signal } : {}) });
  } catch (err) {
    if (run.signal?.aborted) throw err;
    if ((err as Error).name === 'TimeoutError') throw new PageError(`${label}: no element matches "${selector}" after ${timeout} ms`);
    throw err;
  }
}

/**
 * After input (a click, a key): a navigation it started is followed until its
 * document loaded; else the page is given a moment to answer (its first DOM change).
 */
async function afterInput(page: Page, before: number, run: ActionRun, label: string): Promise<void> {
  const { watch, signal } = run;
  const changed = page
    .evaluate(
      (ms: number) =>
        new Promise<boolean>((resolve) => {
          const observer = new MutationObserver(() => {
            observer.disconnect();
            resolve(true);
          });
          observer.observe(document.documentElement, { childList: true, subtree: true, characterData: true, attributes: true });
          setTimeout(() => {
            observer.disconnect();
            resolve(false);
          }, ms);
        }),
      within(run, AFTER_INPUT_MS),
    )
    .catch(() => true);
  await Promise.race([changed, watch.until(() => watch.navigations > before, within(run, AFTER_INPUT_MS), signal)]);
  if (watch.navigations === before) return;
  await watch.until(() => watch.settled, within(run, NAVIGATION_MS), signal);
  const failure = watch.failure;
  if (failure) throw new PageError(`${label}: the navigation to ${failure.url} failed (${failure.errorText})`);
}

/** A script's value as Firecrawl gives it: its type (null and arrays named as such) and its value (undefined: null in JSON). */
async function evaluateScript(page: Page, script: string): Promise<{ type: string; value: unknown }> {
  const value: unknown = await page.evaluate(script);
  return { type: value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value, value: value === undefined ? null : value };
}

async function runOne(page: Page, action: Action, index: number, run: ActionRun, out: ActionsResult): Promise<void> {
  const label = describe(action, index);
  switch (action.type) {
    case 'wait':
      if (action.selector !== undefined) await waitForSelector(page, action.selector, run, label);
      else await run.watch.until(() => false, within(run, action.milliseconds), run.signal);
      return;
    case 'click': {
      await waitForSelector(page, action.selector, run, label);
      const before = run.watch.navigations;
      if (action.all) {
        const count = await page.$$eval(action.selector, (els) => els.length);
        for (let i = 0; i < count && run.watch.navigations === before; i++) {
          await page.$$eval(action.selector, (els, at: number) => (els[at] as HTMLElement | undefined)?.click(), i);
        }
      } else {
        await page.click(action.selector);
      }
      await afterInput(page, before, run, label);
      return;
    }
    case 'write':
      await page.keyboard.type(action.text);
      return;
    case 'press': {
      const before = run.watch.navigations;
      await page.keyboard.press(action.key as Parameters<Page['keyboard']['press']>[0]);
      await afterInput(page, before, run, label);
      return;
    }
    case 'scroll': {
      if (action.selector !== undefined) await waitForSelector(page, action.selector, run, label);
      const report = await runScroll(page, { direction: action.direction ?? 'down', ...action }, run.signal);
      if (!report.found) throw new PageError(`${label}: no element matches "${action.selector}"`);
      return;
    }
    case 'screenshot': {
      const fullPage = action.fullPage ?? false;
      const image = await oneAtATime(page.browser(), async () => {
        await page.bringToFront();
        return page.screenshot({ type: 'png', fullPage, encoding: 'base64', captureBeyondViewport: fullPage });
      });
      out.screenshots.push(`data:image/png;base64,${image}`);
      return;
    }
    case 'scrape':
      out.scrapes.push({ url: page.url(), html: await page.content() });
      return;
    case 'executeJavascript': {
      const before = run.watch.navigations;
      try {
        out.javascriptReturns.push(await evaluateScript(page, action.script));
      } catch (err) {
        // The script navigated the page (location = ...): its document went with the value.
        if (!isContextGone(err)) throw new PageError(`${label}: the script failed: ${(err as Error).message.split('\n')[0]}`);
        out.javascriptReturns.push({ type: 'null', value: null });
      }
      await afterInput(page, before, run, label);
      return;
    }
    case 'pdf': {
      const bytes = await oneAtATime(page.browser(), () =>
        page.pdf({ format: action.format ?? 'Letter', landscape: action.landscape ?? false, scale: action.scale ?? 1, printBackground: true, timeout: within(run, 30_000) }),
      );
      out.pdfs.push(`data:application/pdf;base64,${Buffer.from(bytes).toString('base64')}`);
      return;
    }
  }
}

/** Runs `actions` in order; what they gave, files as data: URLs (the job keeps them as files). */
export async function runActions(page: Page, actions: readonly Action[], run: ActionRun): Promise<ActionsResult> {
  const out: ActionsResult = { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
  for (const [index, action] of actions.entries()) {
    run.signal?.throwIfAborted();
    try {
      await runOne(page, action, index, run, out);
    } catch (err) {
      if (run.signal?.aborted) throw err;
      if (err instanceof PageError) throw err;
      throw new PageError(`${describe(action, index)} failed: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  return out;
}
