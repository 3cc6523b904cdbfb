/**
 * The scroll action in the page: one scroll (Firecrawl's: a viewport up or down),
 * or `repeat` scrolls, each waiting for new content (a DOM mutation, or the page
 * growing) within a bounded time and stopping early when none comes; with
 * `collect`, the rows a virtualized list removes while it scrolls are kept and put
 * back, in order and once each, so that the page read afterwards holds them all.
 */
import type { Page } from 'puppeteer';

/** How long one scroll of a repeat waits for new content before it counts as the end of the list. */
export const SCROLL_CONTENT_WAIT_MS = 2_000;

export interface ScrollStep {
  direction: 'up' | 'down';
  selector?: string;
  /** Jump to the end (an endless list loads at its end), or move one viewport (a virtualized list must not skip rows). */
  toEnd: boolean;
  waitMs: number;
}

/**
 * One scroll in the page. Resolves whether something new came: the scrolled box moved,
 * and the DOM changed or grew, within `waitMs`. Runs in the page: no outside names.
 */
function scrollOnce(step: ScrollStep): Promise<{ moved: boolean; changed: boolean; found: boolean }> {
  const box = step.selector ? document.querySelector(step.selector) : document.scrollingElement ?? document.documentElement;
  if (!box) return Promise.resolve({ moved: false, changed: false, found: false });
  const before = box.scrollTop;
  const height = box.scrollHeight;
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (changed: boolean) => {
      observer.disconnect();
      if (timer !== undefined) clearTimeout(timer);
      resolve({ moved: box.scrollTop !== before, changed: changed || box.scrollHeight !== height, found: true });
    };
    const observer = new MutationObserver(() => done(true));
    observer.observe(document.documentElement, { childList: true, subtree: true, characterData: true });
    const view = step.selector ? box.clientHeight : window.innerHeight;
    const by = Math.max(1, Math.round(view * 0.8));
    const target = step.direction === 'down' ? (step.toEnd ? box.scrollHeight : before + by) : step.toEnd ? 0 : before - by;
    if (step.selector) box.scrollTop = target;
    else window.scrollTo(0, target);
    timer = setTimeout(() => done(false), step.waitMs);
  });
}

/**
 * Starts keeping the rows removed from the page: each removed element's HTML, by the
 * parent it left, in the order they go. Runs in the page.
 */
function startCollecting(): void {
  type Kept = { parent: Element; order: string[]; html: Map<string, string> };
  const kept: Kept[] = [];
  const keyOf = (el: Element) => (el.textContent ?? '').replace(/\s+/g, ' ').trim();
  const observer = new MutationObserver((mutations) => {
    for (const mutation of mutations) {
      if (!(mutation.target instanceof Element)) continue;
      for (const node of Array.from(mutation.removedNodes)) {
        if (!(node instanceof Element)) continue;
        const key = keyOf(node);
        if (key === '') continue;
        let entry = kept.find((k) => k.parent === mutation.target);
        if (!entry) kept.push((entry = { parent: mutation.target, order: [], html: new Map() }));
        if (!entry.html.has(key)) {
          entry.order.push(key);
          entry.html.set(key, node.outerHTML);
        }
      }
    }
  });
  observer.observe(document.documentElement, { childList: true, subtree: true });
  (globalThis as unknown as { __webjobsCollect?: { observer: MutationObserver; kept: Kept[] } }).__webjobsCollect = { observer, kept };
}

/**
 * Puts the kept rows back into the list that removed them: its rows become the kept
 * ones followed by those still there that were not kept, each once, laid out in
 * the flow (a virtualized list places its rows absolutely). Returns the rows put back.
 */
function finishCollecting(): number {
  type Kept = { parent: Element; order: string[]; html: Map<string, string> };
  const state = (globalThis as unknown as { __webjobsCollect?: { observer: MutationObserver; kept: Kept[] } }).__webjobsCollect;
  if (!state) return 0;
  state.observer.takeRecords();
  state.observer.disconnect();
  delete (globalThis as unknown as { __webjobsCollect?: unknown }).__webjobsCollect;
  const keyOf = (el: Element) => (el.textContent ?? '').replace(/\s+/g, ' ').trim();
  let restored = 0;
  for (const entry of state.kept) {
    if (!entry.parent.isConnected || entry.order.length === 0) continue;
    const present = Array.from(entry.parent.children);
    const html = entry.order.map((key) => entry.html.get(key)!);
    const seen = new Set(entry.order);
    for (const child of present) {
      const key = keyOf(child);
      if (key !== '' && !seen.has(key)) {
        seen.add(key);
        html.push(child.outerHTML);
      }
    }
    entry.parent.innerHTML = html.join('');
    for (const child of Array.from(entry.parent.children)) {
      if (child instanceof HTMLElement) {
        child.style.position = 'static';
        child.style.transform = 'none';
      }
    }
    if (entry.parent instanceof HTMLElement) {
      entry.parent.style.height = 'auto';
      entry.parent.style.position = 'static';
    }
    restored += entry.order.length;
  }
  return restored;
}

export interface ScrollOptions {
  direction: 'up' | 'down';
  selector?: string;
  repeat?: number;
  collect?: boolean;
}

/** What a scroll action did: scrolls made, and rows put back by collect. */
export interface ScrollReport {
  scrolls: number;
  restored: number;
  found: boolean;
}

/** Runs one scroll action; `signal` ends it between two scrolls, and each wait is bounded. */
export async function runScroll(page: Page, options: ScrollOptions, signal?: AbortSignal): Promise<ScrollReport> {
  const repeated = options.repeat !== undefined || options.collect === true;
  const times = options.repeat ?? 1;
  if (options.collect) await page.evaluate(startCollecting);
  let scrolls = 0;
  let found = true;
  let restored = 0;
  try {
    for (let i = 0; i < times; i++) {
      signal?.throwIfAborted();
      const step: ScrollStep = {
        direction: options.direction,
        ...(options.selector ? { selector: options.selector } : {}),
        toEnd: repeated && !options.collect,
        waitMs: repeated ? SCROLL_CONTENT_WAIT_MS : 0,
      };
      const result = await page.evaluate(scrollOnce, step);
      if (!result.found) {
        found = false;
        break;
      }
      scrolls++;
      // The end of the list: the box did not move and nothing new came.
      if (repeated && !result.moved && !result.changed) break;
    }
  } finally {
    // A page that navigated away has no collect state left: nothing to put back.
    restored = options.collect ? await page.evaluate(finishCollecting).catch(() => 0) : 0;
  }
  return { scrolls, restored, found };
}
