/** Flags shared by the job commands, and how they become the spec's request objects. */
import { invalidSelectors, splitSelectorList } from '../api/selectors.js';
import { Command, InvalidArgumentError, Option } from 'commander';
import { LIMITS } from '../api/limits.js';
import { ExitCode, UsageError } from '../api/errors.js';
import { parseCookie, parseHeader, readCookiesFile } from './access.js';
import { addJsonOptions, jsonOptionsFrom, type JsonFlags } from './jsonFlags.js';
import type { ProgressFlags } from './terminal.js';
import { ENGINES, FORMATS, SCREENSHOT_FORMATS, VIEWPORT_SIZE, WAIT_UNTIL, type Cookie, type EngineName, type ScreenshotFormat, type Format, type ScrapeOptions, type SessionOptions, type WaitUntil } from '../api/types.js';
import { thousands } from '../api/thousands.js';
import { addActionOptions, applyActionFlags, waitForHint, type ActionFlags } from './actionFlags.js';
import { quoted } from '../api/quote.js';

/** A whole number flag within [min, max]; out of range is a usage error named by the flag, before anything starts. */
export function parseInteger(name: string, min = 0, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be a whole number, got ${quoted(value)}.`);
    const n = Number(value);
    if (n < min) throw new InvalidArgumentError(`${name} must be at least ${min}.`);
    if (n > max) throw new InvalidArgumentError(`${name} must be at most ${thousands(max)}, got ${value.trim()}.`);
    return n;
  };
}

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
type DurationUnit = keyof typeof DURATION_UNITS_MS;

/** "1500 ms", "90 s", "2h": a duration as the user may have written it, in the flag's unit. */
function showDuration(ms: number, unit: DurationUnit): string {
  const n = ms / DURATION_UNITS_MS[unit];
  return `${Number.isInteger(n) ? n : n.toFixed(3).replace(/0+$/, '')}${unit}`;
}

/**
 * The one parser of every duration flag: a number with a unit (500ms, 20s, 2m,
 * 2h, 7d, 2w; decimals such as 1.5s too), or a bare number in the flag's own
 * unit (`bare`: ms for --timeout, s for --max-age), as before units were taken;
 * without `bare` a unit is required. Returns the value in the flag's own unit
 * (`unit`), within [min, max] of that unit; anything else is a usage error (exit 2)
 * naming the flag.
 */
export function parseDuration(name: string, options: { unit: 'ms' | 's'; bare?: 'ms' | 's'; min?: number; max?: number }) {
  const { unit, bare, min = 0, max = Number.MAX_SAFE_INTEGER } = options;
  return (value: string): number => {
    const match = /^(\d{1,12}(?:\.\d{1,6})?)\s*(ms|s|m|h|d|w)?$/i.exec(value.trim());
    const unitWritten = match?.[2]?.toLowerCase() as DurationUnit | undefined;
    if (!match || (!unitWritten && !bare)) {
      const example = bare ? `; a bare number is ${bare === 'ms' ? 'milliseconds' : 'seconds'}` : '';
      throw new InvalidArgumentError(`${name} takes a duration such as 500ms, 20s, 2m, 2h or 7d${example}.`);
    }
    const ms = Number(match[1]) * DURATION_UNITS_MS[unitWritten ?? bare!];
    const n = ms / DURATION_UNITS_MS[unit];
    if (n < min) throw new InvalidArgumentError(`${name} must be at least ${showDuration(min * DURATION_UNITS_MS[unit], unit)}.`);
    if (n > max) {
      const maxMs = max * DURATION_UNITS_MS[unit];
      const inBare = bare ? `${thousands(maxMs / DURATION_UNITS_MS[bare])} ${bare} (${showDuration(maxMs, maxUnit(maxMs))})` : showDuration(maxMs, maxUnit(maxMs));
      throw new InvalidArgumentError(`${name} must be at most ${inBare}, got ${value.trim()}.`);
    }
    return unit === 'ms' ? Math.round(n) : n;
  };
}

/** A list of delays such as 1m,5m,15m (webhook retries: serve's --webhook-retry-delays, WEBJOBS_WEBHOOK_RETRY_DELAYS): at most 10, each up to a day. */
export function parseDelayList(name: string) {
  const each = parseDuration(name, { unit: 'ms', max: 86_400_000 });
  return (value: string): number[] => {
    const delays = value.split(',').map((v) => v.trim()).filter(Boolean).map(each);
    if (delays.length > 10) throw new InvalidArgumentError(`${name} takes at most 10 delays.`);
    return delays;
  };
}

/** The largest unit a limit is a whole number of: 300000 ms reads 5m, 60000 ms 1m. */
function maxUnit(ms: number): DurationUnit {
  const units = Object.keys(DURATION_UNITS_MS).reverse() as DurationUnit[];
  return units.find((u) => ms % DURATION_UNITS_MS[u] === 0) ?? 'ms';
}

export function parseList(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];
}

/** CSS selectors, comma-separated (commas inside :is(...) or quotes stay), each checked before the job (selectors.ts). */
function parseSelectors(flag: string): (value: string, previous?: string[]) => string[] {
  return (value, previous = []) => {
    const selectors = splitSelectorList(value);
    const [invalid] = invalidSelectors(selectors);
    if (invalid !== undefined) throw new InvalidArgumentError(`${quoted(invalid)} is not a valid CSS selector.`);
    return [...previous, ...selectors];
  };
}

export function parseFormats(value: string, previous: string[] = []): Format[] {
  const formats = parseList(value, previous);
  if (formats.length === 0) throw new InvalidArgumentError(`give at least one format: ${FORMATS.join(', ')}.`);
  for (const format of formats) {
    if (!FORMATS.includes(format as Format)) {
      throw new InvalidArgumentError(`unknown format ${quoted(format)} (choose from ${FORMATS.join(', ')}).`);
    }
  }
  return formats as Format[];
}

const waitForDuration = parseDuration('--wait-for', { unit: 'ms', bare: 'ms', max: LIMITS.maxWaitForMs });

/** --wait-for: a duration; a CSS selector is refused with a hint naming --wait-for-selector. */
function parseWaitFor(value: string): number {
  const hint = waitForHint(value);
  if (hint) throw new InvalidArgumentError(hint);
  return waitForDuration(value);
}

export interface ScrapeFlags extends JsonFlags, ActionFlags {
  formats?: Format[];
  onlyMainContent: boolean;
  timeout?: number;
  waitFor?: number;
  waitUntil?: WaitUntil;
  includeTags?: string[];
  excludeTags?: string[];
  header?: Record<string, string>;
  cookie?: Cookie[];
  cookies?: Cookie[];
  userAgent?: string;
  engine?: EngineName;
  maxAge?: number;
  explain?: boolean;
  fullPage?: boolean;
  screenshotFormat?: ScreenshotFormat;
  changeTag?: string;
  exitCode?: boolean;
  chunkTokens?: number;
  maxTokens?: number;
}

/** --chunk-tokens, --max-tokens: a whole number of tokens, at least LIMITS.minTokens. */
function parseTokens(flag: string): (value: string) => number {
  return (value) => {
    const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < LIMITS.minTokens || n > LIMITS.maxTokens) {
      throw new InvalidArgumentError(`${flag} takes a whole number of tokens from ${LIMITS.minTokens} to ${LIMITS.maxTokens}, not "${value}".`);
    }
    return n;
  };
}

export function addScrapeOptions(cmd: Command): Command {
  return addActionOptions(addJsonOptions(cmd
    .option('-f, --formats <list>', `formats to return, comma-separated: ${FORMATS.join(', ')} (default: markdown)`, parseFormats)
    .option('--no-only-main-content', 'keep the whole page, not only its main content')
    .option('--timeout <duration>', 'time allowed to load each page: 500ms, 20s, 2m; a bare number is ms (default: 30s)', parseDuration('--timeout', { unit: 'ms', bare: 'ms', min: 1, max: LIMITS.maxTimeoutMs }))
    .option('--wait-for <duration>', 'extra wait after the page loaded: 500ms, 2s; a bare number is ms (for an element: --wait-for-selector)', parseWaitFor)
    .addOption(new Option('--wait-until <event>', 'when a page counts as loaded').choices([...WAIT_UNTIL]))
    .option('--include-tags <selectors>', 'keep only elements matching these CSS selectors (comma-separated)', parseSelectors('--include-tags'))
    .option('--exclude-tags <selectors>', 'remove elements matching these CSS selectors (comma-separated)', parseSelectors('--exclude-tags'))
    .option('-H, --header <header>', "extra request header 'Name: value', sent only to the site(s) of the URLs given (repeatable)", parseHeader)
    .option('--cookie <name=value>', 'a cookie for the host(s) of the URLs given (repeatable)', parseCookie)
    .option('--cookies <file>', 'cookies from a cookies.txt file (Netscape format, as curl -c and browsers export); each goes to its own domain', readCookiesFile)
    .option('-A, --user-agent <string>', 'the User-Agent of every request: pages, robots.txt, sitemaps')
    .addOption(
      new Option('--engine <engine>', 'how pages are read: http (the HTML as served), browser (rendered in Chromium), auto (http, Chromium only when a page needs it)')
        .choices([...ENGINES])
        .default(undefined, 'auto')
    )
    .option('--explain', "say on stderr which main-content pass removed which block of each page, and why (with --json, also in metadata.explain)")
    .option('--full-page', `with --formats screenshot: the whole page, not only its first ${VIEWPORT_SIZE} pixels`)
    .addOption(new Option('--screenshot-format <type>', 'with --formats screenshot: the image type (default: png)').choices([...SCREENSHOT_FORMATS]))
    .option('--chunk-tokens <n>', 'with --formats chunks: the most tokens (o200k_base) of one chunk (default: 512)', parseTokens('--chunk-tokens'))
    .option('--max-tokens <n>', "cut each page's Markdown after the last whole block that fits in n tokens (metadata.truncated: true)", parseTokens('--max-tokens'))
    .option('--change-tag <tag>', 'with --formats markdown,changeTracking: compare with the last run of the same tag (a separate history)')
    .option('--exit-code', `with --formats markdown,changeTracking: exit ${ExitCode.changed} when a page is new, changed or removed, 0 when none is (as git diff --exit-code)`)
    .option(
      '--max-age <duration>',
      'reuse a stored result of the same URL and options up to this old instead of scraping again: 30m, 12h, 7d; a bare number is seconds (metadata.cacheState: hit or miss)',
      parseDuration('--max-age', { unit: 's', bare: 's', min: 1, max: LIMITS.maxMaxAgeMs / 1000 }),
    )));
}

export function scrapeOptionsFrom(flags: ScrapeFlags): ScrapeOptions {
  const options: ScrapeOptions = applyActionFlags(flags, { onlyMainContent: flags.onlyMainContent });
  if (flags.formats) options.formats = flags.formats;
  if (flags.timeout !== undefined) options.timeout = flags.timeout;
  if (flags.waitFor !== undefined) options.waitFor = flags.waitFor;
  if (flags.waitUntil) options.waitUntil = flags.waitUntil;
  if (flags.includeTags) options.includeTags = flags.includeTags;
  if (flags.excludeTags) options.excludeTags = flags.excludeTags;
  if (flags.header) options.headers = flags.header;
  const cookies = [...(flags.cookie ?? []), ...(flags.cookies ?? [])];
  if (cookies.length > 0) options.cookies = cookies;
  if (flags.userAgent !== undefined) options.userAgent = flags.userAgent;
  if (flags.engine) options.engine = flags.engine;
  if (flags.maxAge !== undefined) options.maxAge = Math.round(flags.maxAge * 1000);
  if (flags.explain) options.explain = true;
  if (flags.chunkTokens !== undefined) {
    if (!flags.formats?.includes('chunks')) throw new UsageError('--chunk-tokens goes with the chunks format: add --formats chunks');
    options.chunkTokens = flags.chunkTokens;
  }
  if (flags.maxTokens !== undefined) options.maxTokens = flags.maxTokens;
  if (flags.changeTag !== undefined) options.changeTrackingOptions = { tag: flags.changeTag };
  const jsonOptions = jsonOptionsFrom(flags, flags.formats);
  if (jsonOptions) options.jsonOptions = jsonOptions;
  if ((flags.changeTag !== undefined || flags.exitCode) && !flags.formats?.includes('changeTracking')) {
    throw new UsageError(`${flags.exitCode ? '--exit-code' : '--change-tag'} goes with change tracking: add --formats markdown,changeTracking`);
  }
  if (flags.fullPage || flags.screenshotFormat) {
    options.screenshotOptions = { ...(flags.fullPage ? { fullPage: true } : {}), ...(flags.screenshotFormat ? { format: flags.screenshotFormat } : {}) };
  }
  return options;
}

/** With --exit-code: is this page one that changed since the last run (new counts: it was not there; removed: it is gone)? */
export { changedPage } from '../api/pageCounts.js';

export interface SessionFlags {
  useProxy?: boolean;
  proxyCountry?: string;
  solveCaptchas?: boolean;
}

function parseCountry(value: string): string {
  if (!/^[A-Z]{2}$/.test(value)) throw new InvalidArgumentError(`${quoted(value)} is not a two-letter uppercase country code such as US or DE.`);
  return value;
}

export function addSessionOptions(cmd: Command): Command {
  return cmd
    .option('--use-proxy', 'route the browser session through the configured proxy (WEBJOBS_PROXY_URL)')
    .option('--proxy-country <CC>', 'proxy country, two uppercase letters; implies --use-proxy', parseCountry)
    .option('--solve-captchas', 'solve CAPTCHAs with the configured solver (WEBJOBS_CAPTCHA_URL, WEBJOBS_CAPTCHA_KEY)');
}

/** --proxy-country implies --use-proxy: asking for a country only makes sense through a proxy. */
export function sessionOptionsFrom(flags: SessionFlags): SessionOptions {
  const options: SessionOptions = {};
  if (flags.useProxy || flags.proxyCountry) options.useProxy = true;
  if (flags.proxyCountry) options.proxyCountry = flags.proxyCountry;
  if (flags.solveCaptchas) options.solveCaptchas = true;
  return options;
}

export interface RunFlags extends ProgressFlags {
  json?: boolean;
  output?: string;
  wait: boolean;
  waitTimeout?: number;
  remote?: string;
  apiKey?: string;
}

/** Where the job runs and how the CLI waits for it; on every job command. */
export function addRunOptions(cmd: Command): Command {
  return cmd
    .option('--json', 'print the job record as JSON, as the service returns it')
    .option('-o, --output <file>', 'write the result to a file instead of stdout')
    .option('--no-wait', 'print the job id and return at once; the job goes on in the background')
    .option('--wait-timeout <duration>', 'stop waiting after this long (the job goes on), exit code 5: 90s, 10m, 2h; a bare number is seconds', parseDuration('--wait-timeout', { unit: 's', bare: 's', min: 0.001 }))
    .option('--remote <url>', 'run on a webjobs service at this URL instead of locally (env: WEBJOBS_REMOTE)')
    .option('--api-key <key>', 'API key for --remote (env: WEBJOBS_API_KEY)')
    .option('--progress', 'no effect, kept for old scripts: progress shows on stderr whenever stderr is a terminal')
    .option('-q, --quiet', 'nothing on stderr but errors: no progress, no summary');
}
