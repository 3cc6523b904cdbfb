/**
 * Firecrawl request bodies (v1 and v2) turned into webjobs requests of the same
 * meaning, before the one validation of record (validateRequest) sees them.
 * Every Firecrawl field is either mapped to ours, accepted because its value
 * asks for what webjobs does anyway (mobile: false, maxAge: 0...), accepted as
 * a label that changes nothing (origin, integration), or refused with a 400
 * naming it: never silently dropped. docs/firecrawl.md has the table.
 */
import { UsageError } from '../../api/errors.js';
import { FORMATS, VIEWPORT_SIZE, type Format, type JobKind, type ScreenshotOptions } from '../../api/types.js';
import { validateUrl } from '../../api/validate.js';
import { isObject, refuse, unmapped, type Obj, type Unmapped } from './fields.js';
import { jsonFormatOf, mapJsonOptions, requireJsonOptions } from './jsonFormat.js';
import { quoted } from '../../api/quote.js';

export type FirecrawlVersion = 'v1' | 'v2';

/** A webjobs request body (not yet validated) and what the client should hear about it. */
export interface MappedRequest {
  kind: JobKind;
  body: Obj;
  /** URLs left out under ignoreInvalidURLs, each with why. */
  invalidURLs: string[];
  /** Firecrawl names of fields that webjobs calls otherwise, for error messages: [theirs, ours]. */
  renamed: [string, string][];
}

/** Labels Firecrawl's clients attach to every request (SDK name and version, integration); they change nothing. */
export const LABELS = ['origin', 'integration'];

/** Fields that mean nothing else here when they hold the value webjobs' behaviour already has. */
const NEUTRAL_SCRAPE: Unmapped['neutral'] = {
  mobile: [false, 'pages are rendered in a desktop viewport'],
  skipTlsVerification: [false, 'TLS certificates are always verified'],
  blockAds: [false, 'ads are not blocked'],
  fastMode: [false, 'each page is read over HTTP when that is enough and rendered in a browser when it needs one; /api chooses with scrapeOptions.engine'],
  zeroDataRetention: [false, 'jobs are kept in the job store until pruned'],
  parsePDF: [true, 'a PDF is always read into Markdown; the file itself is not returned'],
};

/** Scrape option fields that keep their name and meaning. */
const SAME_SCRAPE = ['headers', 'includeTags', 'excludeTags', 'onlyMainContent', 'timeout', 'waitFor', 'maxAge', 'changeTrackingOptions', 'actions'];

const WHY_NOT: Record<string, string> = {
  location: 'there is no per-request location or language; use sessionOptions.proxyCountry on /api',
  proxy: "Firecrawl's proxy pools do not exist here; use sessionOptions.useProxy on /api",
  removeBase64Images: 'images are left as the page has them',
  extract: 'v1\'s old name of the json format: use formats ["json"] with jsonOptions',
  webhook: 'a scrape answers when done; webhooks are sent for crawl, batch scrape and extract',
  storeInCache: 'a fresh page is always stored in the page cache',
};

/** Why the options of Firecrawl's {type: "screenshot"} format other than fullPage are refused. */
const SCREENSHOT_WHY_NOT: Record<string, string> = {
  quality: 'screenshots are PNG here (lossless): there is no quality to set',
  viewport: `the viewport is fixed (${VIEWPORT_SIZE}; fullPage: true takes the whole page)`,
};

/**
 * Firecrawl's screenshot formats as webjobs' screenshotOptions: "screenshot",
 * v1's "screenshot@fullPage" and v2's {type: "screenshot", fullPage}; undefined
 * for any other format.
 */
function screenshotOf(format: unknown, where: string): ScreenshotOptions | undefined {
  if (format === 'screenshot') return {};
  if (format === 'screenshot@fullPage') return { fullPage: true };
  if (!isObject(format) || format.type !== 'screenshot') return undefined;
  const field = `${where}formats[{type: "screenshot"}].`;
  for (const key of Object.keys(format)) {
    if (key === 'type' || key === 'fullPage' || format[key] === undefined) continue;
    refuse(field, key, Object.hasOwn(SCREENSHOT_WHY_NOT, key) ? SCREENSHOT_WHY_NOT[key]! : 'webjobs has no such option');
  }
  if (format.fullPage === undefined) return {};
  if (typeof format.fullPage !== 'boolean') throw new UsageError(`${field}fullPage must be true or false`);
  return { fullPage: format.fullPage };
}

/** The PDF parser's modes that ask for what webjobs does: it reads the text a PDF embeds (auto adds OCR only where there is none). */
const PDF_MODES: unknown[] = ['auto', 'fast'];

function parserName(parser: unknown, where: string): string {
  if (typeof parser === 'string') return parser;
  if (isObject(parser) && typeof parser.type === 'string') {
    for (const [key, value] of Object.entries(parser)) {
      if (key === 'type' || (parser.type === 'pdf' && key === 'mode' && PDF_MODES.includes(value))) continue;
      const field = `parsers[{type: "${parser.type}"}].${key}`;
      if (parser.type !== 'pdf') refuse(where, field, 'parsers take no options');
      if (key === 'mode') refuse(where, field, 'only "auto" or "fast" (a PDF is read from the text it embeds; there is no OCR)');
      refuse(where, field, 'every page of a PDF is read into one Markdown document');
    }
    return parser.type;
  }
  throw new UsageError(`${where}parsers must be an array of parser names or {type} objects`);
}

/**
 * Firecrawl's parsers: "pdf" asks for what webjobs does with every PDF (its text
 * as Markdown), so it is accepted; leaving "pdf" out asks for the file itself.
 */
function checkParsers(value: unknown, where: string): void {
  if (!Array.isArray(value)) throw new UsageError(`${where}parsers must be an array of parser names`);
  const names = value.map((parser) => parserName(parser, where));
  for (const name of names) {
    if (name === 'image') refuse(where, 'parsers: "image"', 'images are not read (there is no OCR)');
    if (name !== 'pdf') refuse(where, `parsers: "${name}"`, 'the one parser is "pdf"');
  }
  if (!names.includes('pdf')) refuse(where, 'parsers', 'only ["pdf"] (a PDF is always read into Markdown; the file itself is not returned)');
}

function formatName(format: unknown, where: string): string {
  if (typeof format === 'string') return format;
  if (isObject(format) && typeof format.type === 'string') {
    const extra = Object.keys(format).filter((k) => k !== 'type');
    if (extra.length > 0) refuse(where, `formats[{type: "${format.type}"}].${extra[0]}`, 'formats take no options');
    return format.type;
  }
  throw new UsageError(`${where}formats must be an array of format names or {type} objects`);
}

/** v2's {type: "changeTracking", tag, modes...}: v1's changeTrackingOptions, in the format (validated with the rest). */
function changeTrackingOf(format: unknown): Obj | undefined {
  if (!isObject(format) || format.type !== 'changeTracking') return undefined;
  const { type: _type, ...options } = format;
  return options;
}

function mapFormats(value: unknown, where: string): { formats: Format[]; screenshotOptions?: ScreenshotOptions; changeTrackingOptions?: Obj; jsonOptions?: Obj } {
  if (!Array.isArray(value)) throw new UsageError(`${where}formats must be an array of format names`);
  let screenshotOptions: ScreenshotOptions | undefined;
  let changeTrackingOptions: Obj | undefined;
  let jsonOptions: Obj | undefined;
  const formats = value.map((format): Format => {
    const json = jsonFormatOf(format, where);
    if (json) {
      if (jsonOptions) throw new UsageError(`${where}formats: json may be asked for once`);
      jsonOptions = json;
      return 'json';
    }
    const changeTracking = changeTrackingOf(format);
    if (changeTracking) {
      if (Object.keys(changeTracking).length > 0) changeTrackingOptions = changeTracking;
      return 'changeTracking';
    }
    const screenshot = screenshotOf(format, where);
    if (screenshot) {
      if (screenshotOptions) throw new UsageError(`${where}formats: a screenshot may be asked for once (with fullPage or without)`);
      screenshotOptions = screenshot;
      return 'screenshot';
    }
    const name = formatName(format, where);
    if (name === 'extract') refuse(where, 'formats: "extract"', WHY_NOT.extract!);
    if (!FORMATS.includes(name as Format)) {
      throw new UsageError(`${where}formats: ${quoted(name)} is not supported by webjobs serve (supported: ${FORMATS.join(', ')}, screenshot@fullPage)`);
    }
    return name as Format;
  });
  return {
    formats,
    ...(screenshotOptions?.fullPage ? { screenshotOptions } : {}),
    ...(changeTrackingOptions ? { changeTrackingOptions } : {}),
    ...(jsonOptions ? { jsonOptions } : {}),
  };
}

/**
 * Firecrawl's headers. webjobs has one way in for each of User-Agent and Cookie
 * (userAgent, cookies), so those two become them: a Cookie header's cookies
 * belong to the hosts the request names, as webjobs' cookies without a domain do.
 */
function mapHeaders(headers: Obj): Obj {
  const out: Obj = {};
  // No prototype: a header named __proto__ stays a key, for validation to refuse by name.
  const rest: Obj = Object.create(null) as Obj;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'user-agent') out.userAgent = value;
    else if (lower === 'cookie' && typeof value === 'string') {
      out.cookies = value
        .split(';')
        .map((pair) => pair.trim())
        .filter(Boolean)
        .map((pair) => {
          const eq = pair.indexOf('=');
          return eq < 0 ? { name: pair, value: '' } : { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() };
        });
    } else rest[name] = value;
  }
  return Object.keys(rest).length > 0 ? { ...out, headers: rest } : out;
}

/**
 * Firecrawl's scrape options (top level of scrape and batch, `scrapeOptions` of
 * crawl) as webjobs' scrapeOptions. `skip` lists the request-level fields the
 * caller maps itself.
 */
export function mapScrapeOptions(obj: Obj, where: string, skip: readonly string[], version: FirecrawlVersion): Obj {
  const out: Obj = {};
  for (const key of Object.keys(obj)) {
    if (skip.includes(key) || obj[key] === undefined) continue;
    if (key === 'formats') Object.assign(out, mapFormats(obj.formats, where));
    else if (key === 'jsonOptions') out.jsonOptions = mapJsonOptions(obj.jsonOptions, where, version);
    else if (key === 'headers' && isObject(obj.headers)) Object.assign(out, mapHeaders(obj.headers));
    else if (SAME_SCRAPE.includes(key)) out[key] = obj[key];
    // v2's profile {name, saveChanges}: webjobs' own, validated with the rest.
    else if (key === 'profile' && version === 'v2') out.profile = obj.profile;
    else if (key === 'parsers') checkParsers(obj.parsers, where);
    else unmapped(obj, key, where, { neutral: NEUTRAL_SCRAPE, whyNot: WHY_NOT });
  }
  requireJsonOptions(out, where, version);
  return out;
}

/**
 * The URLs of a batch or extract. Firecrawl's ignoreInvalidURLs (default true)
 * leaves invalid ones out and names them in the answer; false refuses them all.
 */
function mapUrls(obj: Obj): { urls: unknown; invalidURLs: string[] } {
  const ignore = obj.ignoreInvalidURLs ?? true;
  if (typeof ignore !== 'boolean') throw new UsageError('ignoreInvalidURLs must be true or false');
  if (!ignore || !Array.isArray(obj.urls)) return { urls: obj.urls, invalidURLs: [] };
  const urls: unknown[] = [];
  const invalidURLs: string[] = [];
  const problems: string[] = [];
  for (const item of obj.urls as unknown[]) {
    try {
      urls.push(validateUrl(item, 'urls'));
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      invalidURLs.push(String(item));
      problems.push(err.message);
    }
  }
  if (urls.length === 0 && invalidURLs.length > 0) throw new UsageError(`urls: no valid URL: ${problems.slice(0, 3).join('; ')}`);
  return { urls, invalidURLs };
}

export function mapScrape(body: Obj, version: FirecrawlVersion): MappedRequest {
  const scrapeOptions = mapScrapeOptions(body, '', ['url', ...LABELS], version);
  return { kind: 'scrape', body: { url: body.url, scrapeOptions }, invalidURLs: [], renamed: [] };
}

const BATCH_FIELDS = ['urls', 'ignoreInvalidURLs', 'maxConcurrency', 'webhook', 'appendToId', ...LABELS];

export function mapBatch(body: Obj, version: FirecrawlVersion): MappedRequest {
  if (body.appendToId !== undefined) refuse('', 'appendToId', 'a batch cannot grow once started; start another');
  const scrapeOptions = mapScrapeOptions(body, '', BATCH_FIELDS, version);
  const { urls, invalidURLs } = mapUrls(body);
  const out: Obj = { urls, scrapeOptions, ...(body.webhook !== undefined ? { webhook: body.webhook } : {}) };
  const renamed: [string, string][] = [];
  if (body.maxConcurrency !== undefined) {
    out.concurrency = body.maxConcurrency;
    renamed.push(['maxConcurrency', 'concurrency']);
  }
  return { kind: 'batch', body: out, invalidURLs, renamed };
}

/** Characters that make a path pattern a regular expression rather than one of webjobs' globs. */
const REGEX_SYNTAX = /[\\^$()[\]{}|+]|\.\*|\.\+/;

function mapPaths(value: unknown, field: string): unknown {
  if (!Array.isArray(value)) return value;
  for (const pattern of value) {
    if (typeof pattern === 'string' && REGEX_SYNTAX.test(pattern)) {
      throw new UsageError(
        `${field}: "${pattern}" is a regular expression; webjobs serve takes path globs here (* within a segment, ** across segments, ? one character)`,
      );
    }
  }
  return value;
}

/** Firecrawl's default crawl scope: the start URL's path and below, unless crawlEntireDomain (v1: allowBackwardLinks). */
function startPathScope(url: unknown, includePaths: unknown): string[] | undefined {
  if (typeof url !== 'string' || !URL.canParse(url)) return undefined;
  const path = new URL(url).pathname.replace(/\/+$/, '');
  if (path === '') return undefined;
  if (includePaths !== undefined) {
    refuse('', 'includePaths', 'with a start URL below the site root it needs crawlEntireDomain: true (webjobs cannot also keep to the start path)');
  }
  if (/[*?]/.test(path)) refuse('', 'url', 'a start path with * or ? needs crawlEntireDomain: true');
  return [`${path}/**`];
}

const CRAWL_NEUTRAL: Unmapped['neutral'] = {
  allowExternalLinks: [false, 'a crawl stays on the start URL’s host'],
  allowSubdomains: [false, 'a crawl stays on the start URL’s host'],
  ignoreRobotsTxt: [false, 'robots.txt is always obeyed'],
  ignoreQueryParameters: [false, 'URLs differing in their query are different pages'],
  regexOnFullURL: [false, 'patterns are path globs'],
  zeroDataRetention: [false, 'jobs are kept in the job store until pruned'],
};

const CRAWL_WHY_NOT: Record<string, string> = {
  prompt: 'crawl options are not generated from a prompt',
  maxDepth: 'there is no depth limit by path segments; maxDiscoveryDepth: 0 is supported',
  deduplicateSimilarURLs: 'URLs are deduplicated by webjobs’ own normalisation only',
  maxConcurrency: 'a crawl’s concurrency is fixed (4 requests per host)',
  robotsUserAgent: 'robots.txt is read for webjobs’ own User-Agent',
};

export function mapCrawl(body: Obj, version: FirecrawlVersion): MappedRequest {
  const out: Obj = { url: body.url };
  const renamed: [string, string][] = [];
  const rename = (theirs: string, ours: string, value: unknown) => {
    if (value === undefined) return;
    out[ours] = value;
    renamed.push([theirs, ours]);
  };
  const entireDomain = body.crawlEntireDomain ?? (version === 'v1' ? body.allowBackwardLinks : undefined);
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (value === undefined || LABELS.includes(key) || key === 'url') continue;
    switch (key) {
      case 'limit':
        rename('limit', 'maxPages', value);
        break;
      case 'includePaths':
        rename('includePaths', 'includePatterns', mapPaths(value, 'includePaths'));
        break;
      case 'excludePaths':
        rename('excludePaths', 'excludePatterns', mapPaths(value, 'excludePaths'));
        break;
      case 'maxDiscoveryDepth':
        // Depth 0 is the start page and the sitemap's pages: webjobs' followLinks: false.
        if (value !== 0) refuse('', key, 'only 0 (the start page and the sitemap’s pages, followLinks: false)');
        out.followLinks = false;
        break;
      case 'sitemap':
        if (version === 'v1' || (value !== 'include' && value !== 'skip')) refuse('', key, 'only "include" or "skip" (v2)');
        out.ignoreSitemap = value === 'skip';
        break;
      case 'ignoreSitemap':
        if (version === 'v2') refuse('', key, 'v2 names it sitemap: "skip"');
        out.ignoreSitemap = value;
        break;
      case 'delay':
        // Firecrawl's delay is in seconds, webjobs' in milliseconds.
        if (typeof value !== 'number' || !(value >= 0)) throw new UsageError('delay must be a number of seconds');
        rename('delay (seconds)', 'delay (milliseconds)', Math.round(value * 1000));
        break;
      case 'crawlEntireDomain':
      case 'allowBackwardLinks':
        if (typeof value !== 'boolean' || (key === 'allowBackwardLinks' && version === 'v2')) refuse('', key, 'v1 only, true or false');
        break;
      case 'webhook':
        out.webhook = value;
        break;
      case 'scrapeOptions':
        if (!isObject(value)) throw new UsageError('scrapeOptions must be an object');
        out.scrapeOptions = mapScrapeOptions(value, 'scrapeOptions.', [], version);
        break;
      default:
        unmapped(body, key, '', { neutral: CRAWL_NEUTRAL, whyNot: CRAWL_WHY_NOT });
    }
  }
  if (entireDomain !== true) {
    const scope = startPathScope(body.url, body.includePaths);
    if (scope) out.includePatterns = scope;
  }
  return { kind: 'crawl', body: out, invalidURLs: [], renamed };
}

const EXTRACT_NEUTRAL: Unmapped['neutral'] = {
  enableWebSearch: [false, 'there is no web search'],
  allowExternalLinks: [false, 'only the given URLs are read'],
  includeSubdomains: [false, 'only the given URLs are read (no wildcards)'],
  showSources: [false, 'the data is not traced back to the page each field came from'],
  urlTrace: [false, 'the data is not traced back to the page each field came from'],
  ignoreSitemap: [true, 'only the given URLs are read (no wildcards)'],
};

const EXTRACT_WHY_NOT: Record<string, string> = {
  scrapeOptions: 'extract reads each page as Markdown of its main content',
  limit: 'only the given URLs are read (no wildcards)',
  timeout: 'an extract job has no overall timeout',
  agent: 'there is no agent mode',
};

const EXTRACT_SAME = ['urls', 'prompt', 'schema', 'systemPrompt', 'selectors', 'provider', 'model', 'webhook'];

export function mapExtract(body: Obj): MappedRequest {
  const out: Obj = {};
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (value === undefined || LABELS.includes(key) || key === 'ignoreInvalidURLs') continue;
    // selectors, provider and model: webjobs' own (Firecrawl has no field for them), as /api/extract takes them.
    if (EXTRACT_SAME.includes(key)) out[key] = value;
    else unmapped(body, key, '', { neutral: EXTRACT_NEUTRAL, whyNot: EXTRACT_WHY_NOT });
  }
  const { urls, invalidURLs } = mapUrls(body);
  if (Array.isArray(urls)) {
    const wildcard = urls.find((u) => typeof u === 'string' && u.includes('*'));
    if (wildcard) refuse('', 'urls', `"${wildcard}": wildcard URLs (crawl, then extract) are not read; name each page`);
  }
  if (urls !== undefined) out.urls = urls;
  return { kind: 'extract', body: out, invalidURLs, renamed: [] };
}

const MAP_NEUTRAL: Unmapped['neutral'] = {
  includeSubdomains: [false, 'a map stays on the start URL’s host'],
  ignoreQueryParameters: [false, 'URLs differing in their query are different pages'],
  zeroDataRetention: [false, 'nothing of a map is kept'],
};

/** A Firecrawl map request as webjobs' map request (validated by validateMapRequest). */
export function mapMap(body: Obj, version: FirecrawlVersion): Obj {
  const out: Obj = { url: body.url };
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (value === undefined || LABELS.includes(key) || key === 'url') continue;
    if (key === 'search' || key === 'limit') out[key] = value;
    else if (key === 'sitemap' && version === 'v2' && (value === 'include' || value === 'skip' || value === 'only')) {
      // "only": the sitemap's URLs, no page read (webjobs' depth 0); "skip": no sitemap.
      if (value === 'skip') out.ignoreSitemap = true;
      if (value === 'only') out.depth = 0;
    } else if (key === 'ignoreSitemap' && version === 'v1') out.ignoreSitemap = value;
    else unmapped(body, key, '', { neutral: MAP_NEUTRAL, whyNot: { sitemap: 'v2 only: "include", "skip" or "only"' } });
  }
  return out;
}

export function requestBody(value: unknown): Obj {
  if (!isObject(value)) throw new UsageError('the request body must be a JSON object');
  return value;
}
