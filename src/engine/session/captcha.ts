/**
 * CAPTCHA handling: find a reCAPTCHA v2, hCaptcha or Turnstile widget on a page,
 * have a 2Captcha-compatible service solve it (in.php / res.php), put the token
 * where the widget would and let the page go on.
 *
 *   WEBJOBS_CAPTCHA_URL  the service's base URL, e.g. https://solver.example (in.php and res.php below it)
 *   WEBJOBS_CAPTCHA_KEY  the account key
 */
import type { Page } from 'puppeteer';
import { ConfigError, PageError } from '../../api/errors.js';

export type CaptchaKind = 'recaptcha' | 'hcaptcha' | 'turnstile';

export interface FoundCaptcha {
  kind: CaptchaKind;
  sitekey: string;
  /** Name of the global function the widget calls with the token, when the page set one. */
  callback?: string;
}

const KIND_LABEL: Record<CaptchaKind, string> = {
  recaptcha: 'reCAPTCHA v2',
  hcaptcha: 'hCaptcha',
  turnstile: 'Cloudflare Turnstile',
};

/** The 2Captcha `method` for each widget. */
const SOLVER_METHOD: Record<CaptchaKind, { method: string; keyParam: string }> = {
  recaptcha: { method: 'userrecaptcha', keyParam: 'googlekey' },
  hcaptcha: { method: 'hcaptcha', keyParam: 'sitekey' },
  turnstile: { method: 'turnstile', keyParam: 'sitekey' },
};

export function describeCaptcha(found: FoundCaptcha): string {
  return KIND_LABEL[found.kind];
}

/**
 * Below this much visible text a page with a CAPTCHA widget is a challenge page.
 * Articles often carry a widget in a comment or "email this" form; those pages
 * have far more text, and their content is readable without solving anything.
 */
export const CHALLENGE_MAX_TEXT = 2500;

/**
 * The CAPTCHA that stands between the user and the page's content, if any: the widget shown on a page with at
 * most `maxText` characters of visible text. Runs in the page, as part of the scrape's one look at it
 * (engine/browser/pageLook.ts), so it refers to nothing outside itself but its argument.
 */
export function findCaptcha(maxText: number): FoundCaptcha | undefined {
  if ((document.body?.innerText ?? '').trim().length > maxText) return undefined;
  const shown = (el: Element) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  const widgets: [string, 'recaptcha' | 'hcaptcha' | 'turnstile'][] = [
    ['.g-recaptcha[data-sitekey]', 'recaptcha'],
    ['.h-captcha[data-sitekey]', 'hcaptcha'],
    ['.cf-turnstile[data-sitekey]', 'turnstile'],
  ];
  for (const [selector, kind] of widgets) {
    const el = document.querySelector(selector);
    if (el && shown(el)) {
      return { kind, sitekey: el.getAttribute('data-sitekey')!, callback: el.getAttribute('data-callback') ?? undefined };
    }
  }
  const frames: [RegExp, 'recaptcha' | 'hcaptcha' | 'turnstile'][] = [
    [/google\.com\/recaptcha|recaptcha\.net/, 'recaptcha'],
    [/hcaptcha\.com/, 'hcaptcha'],
    [/challenges\.cloudflare\.com/, 'turnstile'],
  ];
  for (const frame of Array.from(document.querySelectorAll('iframe[src]'))) {
    const src = frame.getAttribute('src')!;
    for (const [pattern, kind] of frames) {
      const key = /[?&](?:k|sitekey)=([\w-]+)/.exec(src)?.[1];
      if (pattern.test(src) && key && shown(frame)) return { kind, sitekey: key };
    }
  }
  return undefined;
}

export interface CaptchaSolverConfig {
  baseUrl: string;
  key: string;
  /** Between polls of res.php; 2Captcha asks for 5 s, tests use less. */
  pollMs: number;
}

export function solverConfig(env: NodeJS.ProcessEnv): CaptchaSolverConfig {
  const baseUrl = env.WEBJOBS_CAPTCHA_URL;
  const key = env.WEBJOBS_CAPTCHA_KEY;
  if (!baseUrl || !key) {
    throw new ConfigError(
      'CAPTCHA solving was asked for (--solve-captchas), but no solver is configured: set WEBJOBS_CAPTCHA_URL ' +
        '(a 2Captcha-compatible service) and WEBJOBS_CAPTCHA_KEY',
    );
  }
  try {
    new URL(baseUrl);
  } catch {
    throw new ConfigError(`WEBJOBS_CAPTCHA_URL is not a URL: ${baseUrl}`);
  }
  const pollMs = Number(env.WEBJOBS_CAPTCHA_POLL_MS ?? 5000);
  return { baseUrl: baseUrl.replace(/\/+$/, ''), key, pollMs: Number.isFinite(pollMs) && pollMs > 0 ? pollMs : 5000 };
}

interface SolverAnswer {
  status: number;
  request: string;
}

async function callSolver(url: string, init: RequestInit, signal: AbortSignal): Promise<SolverAnswer> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal });
  } catch (err) {
    if (signal.aborted) throw new PageError('ran out of time while the CAPTCHA was being solved');
    throw new PageError(`the CAPTCHA solver could not be reached: ${(err as Error).message}`);
  }
  const text = await response.text();
  try {
    return JSON.parse(text) as SolverAnswer;
  } catch {
    throw new PageError(`the CAPTCHA solver answered HTTP ${response.status} with something that is not JSON: ${text.slice(0, 120)}`);
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new PageError('ran out of time while the CAPTCHA was being solved'));
    });
  });

/** Submits the widget to the solver and polls until it has a token, or `signal` aborts. */
export async function solveCaptcha(config: CaptchaSolverConfig, found: FoundCaptcha, pageUrl: string, signal: AbortSignal): Promise<string> {
  const { method, keyParam } = SOLVER_METHOD[found.kind];
  const body = new URLSearchParams({ key: config.key, method, [keyParam]: found.sitekey, pageurl: pageUrl, json: '1' });
  const submitted = await callSolver(`${config.baseUrl}/in.php`, { method: 'POST', body }, signal);
  if (submitted.status !== 1) throw new PageError(`the CAPTCHA solver refused the task: ${submitted.request}`);
  const poll = new URLSearchParams({ key: config.key, action: 'get', id: submitted.request, json: '1' });
  for (;;) {
    await sleep(config.pollMs, signal);
    const answer = await callSolver(`${config.baseUrl}/res.php?${poll}`, {}, signal);
    if (answer.status === 1) return answer.request;
    if (answer.request !== 'CAPCHA_NOT_READY') throw new PageError(`the CAPTCHA solver failed: ${answer.request}`);
  }
}

/** Puts the token where the widget would and calls the page's callback, or submits the widget's form. */
export async function injectToken(page: Page, found: FoundCaptcha, token: string): Promise<void> {
  await page.evaluate(
    (kind, value, callback) => {
      const fieldName = { recaptcha: 'g-recaptcha-response', hcaptcha: 'h-captcha-response', turnstile: 'cf-turnstile-response' }[kind];
      const widget = document.querySelector('[data-sitekey]');
      const form = widget?.closest('form') ?? null;
      let field = document.querySelector(`[name="${fieldName}"]`) as HTMLInputElement | HTMLTextAreaElement | null;
      if (!field) {
        field = document.createElement('textarea');
        field.name = fieldName;
        field.style.display = 'none';
        (form ?? document.body).appendChild(field);
      }
      field.value = value;
      const fn = callback ? (window as unknown as Record<string, unknown>)[callback] : undefined;
      if (typeof fn === 'function') (fn as (token: string) => void)(value);
      else if (form) form.submit();
    },
    found.kind,
    token,
    found.callback ?? null,
  );
}
