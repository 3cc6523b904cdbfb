/**
 * The extraction in a tab. Its script (content/bundle.ts, ~260 KB) is given to the tab once, to run at the
 * start of every document it loads, rather than sent with every page: sending it cost each page a JSON
 * encoding and a pipe write in Node, and a JSON parse in Chromium. A document that lacks it (one that started
 * before the tab was prepared) gets the whole script, as before.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer';
import { extractionCall, extractionInstaller, extractionScript } from '../content/bundle.js';
import type { InPageOptions, InPageResult } from '../content/inPage.js';

/** The window property the extraction is kept under: a name no page can guess, for this process. */
const KEY = `__webjobs_${randomBytes(8).toString('hex')}`;
const INSTALLER = extractionInstaller(KEY);

/** Every document the tab loads from now on gets the extraction. Once per tab. */
export async function installExtraction(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(INSTALLER);
}

/** The extraction of the tab's document with `options`. */
export async function extractInTab(page: Page, options: InPageOptions): Promise<InPageResult> {
  const found = (await page.evaluate(extractionCall(KEY, options))) as InPageResult | null;
  return found ?? wholeExtraction(page, options);
}

/** An expression, evaluated in a document of the tab, that returns its InPageResult, or null when the document lacks the extraction. */
export function extractionInTab(options: InPageOptions): string {
  return extractionCall(KEY, options);
}

/** The extraction of a document that lacks it (one that started before the tab was given it): the whole script. */
export async function wholeExtraction(page: Page, options: InPageOptions): Promise<InPageResult> {
  return (await page.evaluate(extractionScript(options))) as InPageResult;
}
