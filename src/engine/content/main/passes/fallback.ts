/**
 * Never silently empty: when the selection kept almost nothing of a region that holds much, the
 * plainer region comes back with a warning.
 */
import type { MainContent } from '../result.js';
import { textLength } from '../dom.js';
import { HIDDEN } from '../marks.js';
import { removeBanners } from './furniture.js';
import { removeRepeats } from './repeats.js';
import { removeHidden } from './visibility.js';
import { FURNITURE_TAGS } from '../rules/names.js';
import { SHORT_CONTENT } from '../rules/thresholds.js';

/**
 * The rules above can be wrong about a page: content in blocks named like furniture,
 * or a teaser picked over the post. When the selection is nearly empty while the
 * main region holds several times more, the main region comes back with only what
 * is surely not content removed (hidden elements, navigation, headers, footers),
 * and a warning says so, rather than an empty result that looks like success.
 * `region` makes the main region as it was before the passes, a copy the fallback may change.
 */
export function neverSilentlyEmpty(chosen: Element, region: () => Element): MainContent {
  const kept = textLength(chosen);
  if (kept >= SHORT_CONTENT) return { root: chosen };
  // The region is only made for a selection this short (pipeline.ts: a copy of the page).
  const untouched = region();
  const pageText = textLength(untouched);
  const plain = plainRegion(untouched.cloneNode(true) as Element, true);
  if (textLength(plain) >= 4 * Math.max(kept, 50)) return fallback(kept, plain, 'navigation, headers, footers and banners');
  // Responsive pages can hide every variant of their content at one viewport size.
  const unhidden = plainRegion(untouched, false);
  if (textLength(unhidden) >= 4 * Math.max(kept, 50)) return fallback(kept, unhidden, 'navigation, headers, footers and banners, though hidden blocks kept,');
  if (kept === 0 && pageText > 0) return { root: chosen, warning: NOTHING_BUT_FURNITURE };
  return { root: chosen };
}

/** Said of an empty result from a page that has text: all of it was furniture (a shop whose product only its scripts build). */
export const NOTHING_BUT_FURNITURE =
  "no main content found: the page's text is all navigation, headers, footers and banners (does it build its content with scripts that did not run?)";

/** The main region without what is surely not content: navigation, headers, footers, banners, repeats. */
export function plainRegion(root: Element, withoutHidden: boolean): Element {
  if (withoutHidden) removeHidden(root);
  else for (const el of Array.from(root.querySelectorAll(`[${HIDDEN}]`))) el.removeAttribute(HIDDEN);
  removeBanners(root);
  for (const el of Array.from(root.querySelectorAll(FURNITURE_TAGS))) {
    if (root.contains(el) && el.querySelector('h1') === null) el.remove();
  }
  removeRepeats(root);
  return root;
}

export function fallback(kept: number, root: Element, removed: string): MainContent {
  return {
    root,
    warning: `the main content found was only ${kept} characters of the ${textLength(root)} in the page's main region; this is the main region with only ${removed} removed`,
  };
}
