/**
 * Waiting for pages rendered by script. `load` says the document and its
 * subresources arrived, not that the page's scripts have finished drawing it: an
 * application shell fills its `<div id="root">` after a timer or a fetch. So after
 * navigation we wait until the DOM has settled, i.e. no DOM mutation and no
 * fetch/XHR in flight for a quiet period, capped well inside the page's timeout.
 *
 * A probe installed before the page's own scripts run (evaluateOnNewDocument)
 * records the time of the last DOM mutation and counts the fetch/XHR requests in
 * flight. The wait itself runs in the page, so polling costs no round trips to Node.
 *
 * Costs and how they are kept small on static pages:
 * - a page without scripts that run (JSON-LD does not) cannot change by itself: no wait at all;
 * - the quiet period counts from the last mutation, not from `load`: a static page
 *   whose parser finished long enough before `load` does not wait either;
 * - a page with content, no fetch/XHR in flight and no short setTimeout pending has
 *   nothing left that could change it: no wait either;
 * - otherwise a page with content waits at most QUIET_MS after its last mutation;
 * - only an empty application shell (little visible text and an empty mount point
 *   such as #root, a noscript asking for JavaScript, or no text at all) waits longer.
 */
import type { Page } from 'puppeteer';

/** What the in-page wait is told; every duration is in milliseconds. */
export interface SettleParams {
  /** Quiet period for a page that already shows content. */
  quietMs: number;
  /** Quiet period before giving up on a page that still looks like an empty shell. */
  shellQuietMs: number;
  /** Longest wait for a page with content. */
  capMs: number;
  /** Longest wait for an empty shell. */
  shellCapMs: number;
  /** How often the page is looked at while it is a shell or a request is in flight. */
  pollMs: number;
}

export type SettleOutcome = 'no-scripts' | 'idle' | 'settled' | 'shell-gave-up' | 'cap' | 'no-probe';

export interface SettleReport {
  outcome: SettleOutcome;
  waitedMs: number;
}

/** Short enough to cost little on a page with content, long enough to see a re-render after load. */
const QUIET_MS = 100;
/** A shell gets more time: its data may come from a slow API. */
const SHELL_QUIET_MS = 1_000;
const CAP_MS = 1_500;
const SHELL_CAP_MS = 5_000;
const POLL_MS = 50;
/** The wait never takes more than this share of the time left before the page's deadline. */
const SHARE_OF_REMAINING = 0.5;

/**
 * The settle parameters for a page with `remainingMs` left before its deadline.
 * Undefined when there is too little time left to wait usefully (a page whose
 * load event never came has used its time already).
 */
export function settleParams(remainingMs: number): SettleParams | undefined {
  const budget = Math.floor(remainingMs * SHARE_OF_REMAINING);
  if (budget < QUIET_MS) return undefined;
  return {
    quietMs: QUIET_MS,
    shellQuietMs: Math.min(SHELL_QUIET_MS, budget),
    capMs: Math.min(CAP_MS, budget),
    shellCapMs: Math.min(SHELL_CAP_MS, budget),
    pollMs: POLL_MS,
  };
}

/** The probe's state, kept on the page's window under a non-enumerable key. */
interface Probe {
  /** performance.now() of the last DOM mutation or finished fetch/XHR. */
  lastChange: number;
  /** fetch/XHR requests in flight. */
  pending: number;
  /** Ids of setTimeout timers due within TIMER_HORIZON_MS that have not fired yet. */
  timers: Set<number>;
  /** The page's setTimeout before the probe wrapped it, for the wait's own timers. */
  setTimeout: typeof setTimeout;
}

export const PROBE_KEY = '__webjobsSettleProbe';
/** A timer due later than this is a refresh or a reminder, not the page drawing itself. */
const TIMER_HORIZON_MS = 1_000;

/**
 * Runs in the page before any of its scripts (serialized by Puppeteer, so it
 * must not refer to anything outside itself but its argument).
 */
function installProbe(key: string, timerHorizonMs: number): void {
  if (Object.prototype.hasOwnProperty.call(window, key)) return;
  const probe: Probe = { lastChange: performance.now(), pending: 0, timers: new Set(), setTimeout: window.setTimeout.bind(window) };
  Object.defineProperty(window, key, { value: probe, enumerable: false });
  const changed = () => {
    probe.lastChange = performance.now();
  };
  // Observing the document node sees the parser's insertions and everything scripts do after.
  // Attribute changes are left out: a spinner's class toggling is not content.
  new MutationObserver(changed).observe(document, { childList: true, subtree: true, characterData: true });

  const started = () => {
    probe.pending++;
  };
  const finished = () => {
    probe.pending = Math.max(0, probe.pending - 1);
    changed();
  };
  const fetch = window.fetch;
  if (typeof fetch === 'function') {
    window.fetch = function (this: unknown, ...args: Parameters<typeof fetch>) {
      started();
      const result = fetch.apply(this, args);
      result.then(finished, finished);
      return result;
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, ...args: Parameters<typeof send>) {
    started();
    this.addEventListener('loadend', finished, { once: true });
    try {
      return send.apply(this, args);
    } catch (err) {
      // No loadend follows a send that threw.
      this.removeEventListener('loadend', finished);
      finished();
      throw err;
    }
  };

  // Short timers a script has set are how a page says "I will change soon": a page with
  // content, no request in flight and no such timer pending is done drawing itself.
  // Intervals (clocks, pollers) are left out: they never end.
  const setTimer = window.setTimeout;
  const clearTimer = window.clearTimeout;
  window.setTimeout = function (handler: TimerHandler, delay?: number, ...args: unknown[]): number {
    if (typeof handler !== 'function' || (Number(delay) || 0) > timerHorizonMs) return setTimer(handler, delay, ...args);
    const id: number = setTimer(
      (...callArgs: unknown[]) => {
        probe.timers.delete(id);
        handler.apply(window, callArgs);
      },
      delay,
      ...args,
    );
    probe.timers.add(id);
    return id;
  } as typeof setTimeout;
  window.clearTimeout = function (id?: number): void {
    if (id !== undefined) probe.timers.delete(id);
    clearTimer(id);
  } as typeof clearTimeout;
}

/**
 * Runs in the page after navigation: resolves when the page has settled or the cap
 * is reached. Serialized, so self-contained: part of the scrape's one look at a page (pageLook.ts).
 */
export function waitInPage(key: string, params: SettleParams): Promise<SettleReport> {
  const start = performance.now();
  const probe = (window as unknown as Record<string, Probe | undefined>)[key];
  if (!probe) return Promise.resolve({ outcome: 'no-probe', waitedMs: 0 });
  // Nothing on the page can change it: the common static page pays nothing. Data blocks
  // (JSON-LD, templates) are scripts to the DOM but never run.
  const runs = (script: HTMLScriptElement) => !script.type || /^(module|(text|application)\/(x-)?(java|ecma)script)$/i.test(script.type.trim());
  if (!Array.from(document.scripts).some(runs) && probe.pending === 0) return Promise.resolve({ outcome: 'no-scripts', waitedMs: 0 });

  /** Little visible text, and a sign that a script is meant to draw the page. */
  const looksLikeShell = (): boolean => {
    const body = document.body;
    if (!body) return true;
    const text = body.innerText.trim();
    if (text.length >= 200) return false;
    if (text.length < 20) return true;
    if (document.querySelector('#root, #app, #__next, #__nuxt, #svelte, [data-reactroot], [ng-version], app-root')) return true;
    return Array.from(document.querySelectorAll('noscript')).some((n) => /javascript/i.test(n.textContent ?? ''));
  };

  return new Promise((resolve) => {
    const check = () => {
      const now = performance.now();
      const waitedMs = Math.round(now - start);
      const shell = looksLikeShell();
      const cap = shell ? params.shellCapMs : params.capMs;
      if (now - start >= cap) return resolve({ outcome: 'cap', waitedMs });
      const quiet = shell ? params.shellQuietMs : params.quietMs;
      const quietFor = now - probe.lastChange;
      // Nothing scheduled and nothing in flight: a page with content cannot change any more.
      if (!shell && probe.pending === 0 && probe.timers.size === 0) return resolve({ outcome: 'idle', waitedMs });
      if (probe.pending === 0 && quietFor >= quiet) return resolve({ outcome: shell ? 'shell-gave-up' : 'settled', waitedMs });
      // A shell or a request in flight is looked at often, so content that arrives is seen at once;
      // otherwise sleep until the quiet period would be over.
      const next = shell || probe.pending > 0 ? params.pollMs : quiet - quietFor;
      probe.setTimeout(check, Math.max(1, Math.min(next, cap - (now - start))));
    };
    check();
  });
}

/** Installs the probe in every document the tab loads from now on. Once per tab. */
export async function installSettleProbe(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(installProbe, PROBE_KEY, TIMER_HORIZON_MS);
}

/**
 * The bench measures throughput with and without the wait in the same run;
 * WEBJOBS_SETTLE=0 turns it off (probe and wait). Not meant for users.
 */
export function settleEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.WEBJOBS_SETTLE !== '0';
}
