/**
 * What the HTML as served says about whether it needs a browser, read on the
 * parsed document in the extraction worker; the rules that weigh it are in
 * choice.ts.
 */
import { lengthOutside } from '../content/main/dom.js';
import { CHALLENGE_MAX_TEXT } from '../session/captcha.js';

export interface PageSignals {
  /** Characters of text in the body a reader could be shown (scripts, styles, templates and noscript aside). */
  textLength: number;
  /** Scripts the page would run: external or inline JavaScript (JSON-LD and other data blocks aside). */
  scripts: number;
  /** An application's mount point, or the page's main region, left empty for scripts to fill (`#root`, `#__next`, `main`...), by selector. */
  emptyMount?: string;
  /** A `<noscript>` that asks the reader to turn JavaScript on. */
  asksForJavaScript: boolean;
  /** A bot challenge or CAPTCHA wall, by name. */
  challenge?: string;
  /** With includeTags: whether any of them matched the HTML as served (undefined without includeTags, or for a bad selector). */
  includeTagsMatched?: boolean;
}

const MOUNT_POINTS = ['#root', '#app', '#__next', '#__nuxt', '#___gatsby', '#svelte', 'app-root', '[data-reactroot]', '#main-app', '#application', 'main', '[role="main"]'];

const MOUNT_POINTS_UNION = MOUNT_POINTS.join(', ');

const ASKS_FOR_JS = /(enable|turn on|activate|requires?|need)\s+(your\s+)?javascript|javascript\s+(is\s+)?(disabled|required|needed|must be enabled)/i;

/** Challenge pages by their markers in the HTML: Cloudflare, DataDome, PerimeterX, Imperva/Distil, Akamai, SiteGround. */
const CHALLENGE_MARKERS: Array<[RegExp, string]> = [
  [/\/cdn-cgi\/challenge-platform\/|_cf_chl_opt|cf-browser-verification|<title>\s*Just a moment\.\.\.\s*<\/title>/i, 'a Cloudflare challenge'],
  [/captcha-delivery\.com|geo\.captcha-delivery/i, 'a DataDome challenge'],
  [/px-captcha|_pxCaptcha|perimeterx/i, 'a PerimeterX challenge'],
  [/Pardon Our Interruption|_Incapsula_Resource|incapsula incident/i, 'an Imperva challenge'],
  [/_abck|ak_bmsc.*challenge|akamai-challenge/i, 'an Akamai challenge'],
  [/sgcaptcha|\.well-known\/sgcaptcha/i, 'a SiteGround challenge'],
  [/Checking (if the site connection is secure|your browser before accessing)/i, 'a browser check'],
];

const CAPTCHA_WIDGETS: Array<[string, string]> = [
  ['.g-recaptcha[data-sitekey]', 'reCAPTCHA v2'],
  ['.h-captcha[data-sitekey]', 'hCaptcha'],
  ['.cf-turnstile[data-sitekey]', 'Cloudflare Turnstile'],
];

function isJavaScript(script: Element): boolean {
  const type = (script.getAttribute('type') || '').trim().toLowerCase();
  return type === '' || type === 'module' || /^(text|application)\/(x-)?(java|ecma)script$/.test(type);
}

function readableText(body: Element): number {
  return Math.max(0, lengthOutside(body, 'script, style, template, noscript'));
}

function challengeOf(doc: Document, html: string, textLength: number): string | undefined {
  const head = html.slice(0, 200_000);
  for (const [pattern, name] of CHALLENGE_MARKERS) if (textLength < CHALLENGE_MAX_TEXT && pattern.test(head)) return name;
  if (textLength >= CHALLENGE_MAX_TEXT) return undefined;
  for (const [selector, name] of CAPTCHA_WIDGETS) if (doc.querySelector(selector)) return name;
  return undefined;
}

/** The signals of `doc`, parsed from `html`; `includeTags` as the job gave them. */
export function pageSignals(doc: Document, html: string, includeTags: string[]): PageSignals {
  const body = doc.body ?? doc.documentElement;
  const textLength = readableText(body);
  const scripts = Array.from(doc.querySelectorAll('script')).filter(isJavaScript).length;
  // One walk for every mount point: the first element of their union that a selector matches is its first match.
  const mounts = Array.from(doc.querySelectorAll(MOUNT_POINTS_UNION));
  const emptyMount = MOUNT_POINTS.find((selector) => {
    const el = mounts.find((mount) => mount.matches(selector));
    return el !== undefined && (el.textContent || '').trim().length < 50;
  });
  const asksForJavaScript = Array.from(doc.querySelectorAll('noscript')).some((el) => ASKS_FOR_JS.test(el.textContent || ''));
  let includeTagsMatched: boolean | undefined;
  if (includeTags.length > 0) {
    try {
      includeTagsMatched = includeTags.some((selector) => doc.querySelector(selector) !== null);
    } catch {
      includeTagsMatched = undefined; // the extraction reports the bad selector
    }
  }
  return { textLength, scripts, emptyMount, asksForJavaScript, challenge: challengeOf(doc, html, textLength), includeTagsMatched };
}
