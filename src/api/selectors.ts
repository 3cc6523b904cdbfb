/**
 * CSS selectors the user gives (includeTags, excludeTags), checked before a job
 * starts, so a typo is a usage error (CLI exit 2, serve 400) and not a failed page.
 *
 * The page's own engine stays the judge; this check may only refuse what Chromium
 * refuses. Measured against Chromium on 44 invalid and 58 valid selectors
 * (test/selectors.test.ts): jsdom's querySelectorAll on an empty document refuses
 * 34 of the invalid ones and none of the valid ones. linkedom 0.18.5 and css-what
 * each disagreed with Chromium on 26-29 of them, both ways; css-what with jsdom
 * would refuse `:is()` and `:where()`, which Chromium takes. What jsdom lets through
 * (`a,,b`, `a:not()`, `div > > p`, `a::before::after`, `a[href$=".pdf" s]`, ...) still fails the
 * page, naming the option, as before.
 */
import { createRequire } from 'node:module';

type Jsdom = typeof import('jsdom');

/** The selectors of `selectors` that are not valid CSS, in order. */
export function invalidSelectors(selectors: readonly string[]): string[] {
  if (selectors.length === 0) return [];
  // Loaded only when there is something to check: jsdom takes a while to load.
  const { JSDOM } = createRequire(import.meta.url)('jsdom') as Jsdom;
  const { document } = new JSDOM('').window;
  return selectors.filter((selector) => {
    try {
      document.querySelectorAll(selector);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * A comma-separated list of selectors, split at the commas between selectors
 * only: `:is(h1, h2),nav` is two selectors, not three.
 */
export function splitSelectorList(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\') i++;
    else if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    else if (c === ',' && depth === 0) {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return parts.map((part) => part.trim()).filter(Boolean);
}
