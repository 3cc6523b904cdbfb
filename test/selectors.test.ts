/**
 * --include-tags / --exclude-tags selectors are checked before the job
 * (src/api/selectors.ts), against what Chromium itself accepts: the check may
 * refuse only what Chromium refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'puppeteer';
import { invalidSelectors, splitSelectorList } from '../src/api/selectors.js';
import { validateRequest } from '../src/api/validate.js';
import { launchBrowser } from '../src/engine/browser/browser.js';
import { runCli, tempHome } from './helpers/cli.js';

/** Refused by Chromium, and by the check before the job. */
const REFUSED = [
  'div[', 'div >', '>div', '..a', '#', '.', 'a,', ':nope', '::nope', ':not(', 'a[href=]', 'a[="x"]',
  '[x=y z]', '#1a', '.1a', 'a b >', '*|', 'ns|a', 'a:nth-child(x)', ':nth-child(2n+)', 'div)', 'a{}', 'a;b', '<p>', ':has()',
  'main >>> p', '/deep/', ':matches(a)', 'a!b', '@media', 'svg|rect', '!!nope',
];
/** Refused by Chromium, let through by the check: the page refuses them later, naming the option. */
const LET_THROUGH = [',a', 'a,,b', 'div:hover(', 'a:not()', 'div > > p', 'p ~ ~ a', 'div::after span', 'p:contains(x)', 'a::before::after', 'a[href$=".pdf" s]'];
/** Valid in Chromium: never refused. */
const VALID = [
  'div', 'main > article', '#id', '.a.b', 'a[href^="https"]', 'a[data-x="1" i]', ':not(.ad)', ':is(h1, h2)', ':where(nav)', ':is()', ':where()',
  'li:nth-child(2n+1)', 'p:first-of-type', 'article :has(> img)', 'div *', '*', 'a:link', 'input:checked', 'p::first-line', 'h1 + p', 'h1 ~ p',
  'p:lang(en)', '[lang|=en]', ':root', 'a:any-link', 'p:nth-last-of-type(odd)', 'div:empty', '#\\31 a', '.\\31 a', 'a:focus-visible',
  ':scope > p', 'p:dir(ltr)', 'td:nth-child(2 of .x)', ':nth-child(-n+3)', 'a:not(:hover, .x)', 'x-custom-el', 'DIV.Foo', ':host',
  '::slotted(p)', ':popover-open', ':modal', '::part(x)', 'li::marker', 'input::placeholder', '::selection', ':placeholder-shown',
  ':read-only', ':defined', 'input:-webkit-autofill', 'details[open] > summary', '#a\\:b', 'div:not(:has(p))', 'body > *:not(script)',
  ':is(', '[data-x="1"', 'a\\',
];

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

async function chromiumRefuses(selectors: string[]): Promise<string[]> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(
      (list) =>
        list.filter((s) => {
          try {
            document.createDocumentFragment().querySelectorAll(s);
            return false;
          } catch {
            return true;
          }
        }),
      selectors,
    );
  } finally {
    await page.close();
  }
}

describe('the selector check before a job', () => {
  it('refuses only what Chromium refuses, and most of it', async () => {
    const all = [...REFUSED, ...LET_THROUGH, ...VALID];
    expect(await chromiumRefuses(all)).toEqual([...REFUSED, ...LET_THROUGH]);
    expect(invalidSelectors(all)).toEqual(REFUSED);
  });

  it('splits a list at the commas between selectors only', () => {
    expect(splitSelectorList(':is(h1, h2), nav,a[title="x,y"] ,\\,b')).toEqual([':is(h1, h2)', 'nav', 'a[title="x,y"]', '\\,b']);
  });

  it('is a usage error of the request (serve answers 400 with it)', () => {
    expect(() => validateRequest('scrape', { url: 'https://example.com/', scrapeOptions: { excludeTags: ['nav', 'div >'] } })).toThrow(
      'scrapeOptions.excludeTags: "div >" is not a valid CSS selector',
    );
  });

  it('is refused by the CLI with exit code 2 before any page loads', async () => {
    const env = { WEBJOBS_HOME: tempHome(), WEBJOBS_CHROME: '/nonexistent/chrome' };
    const result = await runCli(['scrape', 'http://127.0.0.1:9/', '--include-tags', 'article,:is(h1, h2),!!nope'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"!!nope" is not a valid CSS selector');
    const batch = await runCli(['batch', 'http://127.0.0.1:9/', '--exclude-tags', 'a;b'], { env });
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain('--exclude-tags');
  });
});
