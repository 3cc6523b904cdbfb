/**
 * Request validation, shared by every back end and by `serve`: the CLI builds a
 * request object and passes it here, the server passes the parsed body here.
 * Each function returns the request with defaults applied, or throws a UsageError
 * whose message names the offending field.
 */
import { invalidSelectors } from './selectors.js';
import { validateCssSchema } from './cssSchema.js';
import { LimitError, UnsupportedError, UsageError } from './errors.js';
import { LIMITS } from './limits.js';
import { MODEL_PROVIDERS, type ModelProviderName } from './types.js';
import {
  ENGINES,
  CHANGE_TRACKING_MODES,
  FORMATS,
  SCREENSHOT_FORMATS,
  WAIT_UNTIL,
  type BatchScrapeRequest,
  type ChangeTrackingMode,
  type ChangeTrackingOptions,
  type CrawlRequest,
  type EngineName,
  type ExtractRequest,
  type Format,
  type JobKind,
  type JsonOptions,
  type JobRequestByKind,
  type MapRequest,
  type PageQuery,
  type ScrapeOptions,
  type ScrapeRequest,
  type ScreenshotFormat,
  type ScreenshotOptions,
  type SessionOptions,
  type WaitUntil,
} from './types.js';

import { accessOptions } from './validateAccess.js';
import { validateActions, validateProfile } from './actions.js';
import { expectObject, isObject, optBoolean, optField, optInteger, optStringArray, rejectUnknown, type Obj } from './validateFields.js';
import { thousands } from './thousands.js';
import { escapeInput, quoted } from './quote.js';
import { validateWebhook } from './webhook.js';

/** An array of CSS selectors, each one the page's engine can parse (selectors.ts). */
function optSelectors(obj: Obj, key: string, field: string): string[] | undefined {
  const selectors = optStringArray(obj, key, field);
  const [invalid] = invalidSelectors(selectors ?? []);
  if (invalid !== undefined) throw new UsageError(`${field}.${key}: ${quoted(invalid)} is not a valid CSS selector`);
  return selectors;
}

/**
 * `example.com/page` or `localhost:8080`, a host written without a scheme: the
 * https:// URL the user most likely meant, for the error message. Undefined for
 * anything else (a URL with a scheme, a relative path, words).
 */
function withoutScheme(value: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return undefined;
  const host = /^([a-z0-9-]+(\.[a-z0-9-]+)*)(:\d+)?([/?#]|$)/i.exec(value);
  if (!host || !(host[1]!.includes('.') || host[1] === 'localhost' || host[3])) return undefined;
  return URL.canParse(`https://${value}`) ? `https://${value}` : undefined;
}

/**
 * An absolute http(s) URL; anything else is refused before a job exists. With
 * `savedPages` (the CLI's own jobs on this machine, never `serve`, MCP or a
 * remote request), also the file:// URL of a saved page.
 */
export function validateUrl(value: unknown, field = 'url', options: { savedPages?: boolean } = {}): string {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${field} must be a non-empty string`);
  const schemeless = withoutScheme(value.trim());
  if (schemeless) throw new UsageError(`${field}: ${quoted(value)} has no http:// or https://; did you mean ${escapeInput(schemeless)}?`);
  let parsed: URL;
  try {
    parsed = new URL(value.trim());
  } catch {
    throw new UsageError(`${field}: ${quoted(value)} is not a valid URL (expected e.g. https://example.com/page)`);
  }
  if (parsed.protocol === 'file:' && options.savedPages) {
    if (parsed.hostname !== '' && parsed.hostname !== 'localhost') throw new UsageError(`${field}: ${quoted(value)} names a file on another host; name a file on this machine`);
    return parsed.href;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    const saved = parsed.protocol === 'file:' ? ' (saved pages are read only by the command line on their own machine)' : '';
    throw new UsageError(`${field}: ${quoted(value)} must use http or https, not ${parsed.protocol.replace(':', '')}${saved}`);
  }
  if (!parsed.hostname) throw new UsageError(`${field}: ${quoted(value)} has no host`);
  return parsed.href;
}

/**
 * Checks every URL of a list and collects every problem, each named by
 * `labelOf(index)`, so that a caller can report all bad entries at once.
 */
export function validateEach(items: readonly unknown[], labelOf: (index: number) => string, options: { savedPages?: boolean } = {}): { urls: string[]; problems: string[] } {
  const problems: string[] = [];
  const urls = items.map((item, i) => {
    try {
      return validateUrl(item, labelOf(i), options);
    } catch (err) {
      problems.push((err as Error).message);
      return '';
    }
  });
  return { urls, problems };
}

/** Every URL of a list, reporting all the bad ones at once with their 1-based positions. */
export function validateUrlList(value: unknown, field: string, max: number, options: { savedPages?: boolean } = {}): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new UsageError(`${field} must be a non-empty array of URLs`);
  if (value.length > max) {
    throw new LimitError(`${field}: ${value.length} URLs given, the limit is ${thousands(max)}`);
  }
  const { urls, problems } = validateEach(value, (i) => `item ${i + 1}`, options);
  if (problems.length > 0) {
    const shown = problems.slice(0, 20).join('; ');
    const more = problems.length > 20 ? ` (and ${problems.length - 20} more)` : '';
    throw new UsageError(`${field}: ${problems.length} invalid URL(s): ${shown}${more}`);
  }
  return urls;
}

export function validateScrapeOptions(value: unknown, field = 'scrapeOptions'): ScrapeOptions {
  const obj = expectObject(value, field);
  rejectUnknown(
    obj,
    ['formats', 'onlyMainContent', 'timeout', 'waitFor', 'waitUntil', 'includeTags', 'excludeTags', 'headers', 'cookies', 'userAgent', 'maxAge', 'screenshotOptions', 'engine', 'explain', 'changeTrackingOptions', 'jsonOptions', 'chunkTokens', 'maxTokens', 'actions', 'profile'],
    field,
  );
  const formats = optStringArray(obj, 'formats', field) ?? ['markdown'];
  if (formats.length === 0) throw new UsageError(`${field}.formats must name at least one format (${FORMATS.join(', ')}); leave it out for markdown`);
  for (const format of formats) {
    if (!FORMATS.includes(format as Format)) {
      throw new UsageError(`${field}.formats: unknown format ${quoted(format)} (allowed: ${FORMATS.join(', ')})`);
    }
  }
  if (obj.changeTrackingOptions !== undefined && !formats.includes('changeTracking')) {
    throw new UsageError(`${field}.changeTrackingOptions goes with the changeTracking format: add it to formats`);
  }
  const changeTracking = formats.includes('changeTracking') ? validateChangeTracking(obj, formats, field) : undefined;
  const json = validateJsonFormat(obj, formats, field);
  const waitUntil = obj.waitUntil;
  if (waitUntil !== undefined && !WAIT_UNTIL.includes(waitUntil as WaitUntil)) {
    throw new UsageError(`${field}.waitUntil must be one of ${WAIT_UNTIL.join(', ')}`);
  }
  const engine = obj.engine;
  if (engine !== undefined && !ENGINES.includes(engine as EngineName)) {
    throw new UsageError(`${field}.engine must be one of ${ENGINES.join(', ')}`);
  }
  const waitFor = optInteger(obj, 'waitFor', field, 0, LIMITS.maxWaitForMs) ?? 0;
  const actions = obj.actions === undefined ? undefined : validateActions(obj.actions, field, waitFor);
  if (actions && actions.length > 0 && engine === 'http') throw new UsageError(`${field}.actions are run in a browser: use engine auto or browser, not http`);
  if (obj.profile !== undefined && engine === 'http') throw new UsageError(`${field}.profile is a browser's cookies and local storage: use engine auto or browser, not http`);
  return {
    formats: [...new Set(formats)] as Format[],
    onlyMainContent: optBoolean(obj, 'onlyMainContent', field) ?? true,
    timeout: optInteger(obj, 'timeout', field, 1, LIMITS.maxTimeoutMs) ?? LIMITS.defaultTimeoutMs,
    waitFor,
    waitUntil: (waitUntil as WaitUntil | undefined) ?? 'load',
    includeTags: optSelectors(obj, 'includeTags', field) ?? [],
    excludeTags: optSelectors(obj, 'excludeTags', field) ?? [],
    ...accessOptions(obj, field),
    ...(engine !== undefined ? { engine: engine as EngineName } : {}),
    ...optField('maxAge', optInteger(obj, 'maxAge', field, 0, LIMITS.maxMaxAgeMs)),
    ...(optBoolean(obj, 'explain', field) ? { explain: true } : {}),
    ...optField('changeTrackingOptions', changeTracking),
    ...optField('jsonOptions', json),
    ...(actions && actions.length > 0 ? { actions } : {}),
    ...optField('profile', obj.profile === undefined ? undefined : validateProfile(obj.profile, field)),
    ...tokenOptions(obj, formats, field),
    ...optField('screenshotOptions', obj.screenshotOptions === undefined ? undefined : validateScreenshotOptions(obj.screenshotOptions, `${field}.screenshotOptions`)),
  };
}

/** chunkTokens (with the chunks format) and maxTokens: whole numbers of tokens, at least MIN_TOKENS. */
function tokenOptions(obj: Obj, formats: string[], field: string): Pick<ScrapeOptions, 'chunkTokens' | 'maxTokens'> {
  const chunkTokens = optInteger(obj, 'chunkTokens', field, LIMITS.minTokens, LIMITS.maxTokens);
  if (chunkTokens !== undefined && !formats.includes('chunks')) throw new UsageError(`${field}.chunkTokens goes with the chunks format: add it to formats`);
  return { ...optField('chunkTokens', chunkTokens), ...optField('maxTokens', optInteger(obj, 'maxTokens', field, LIMITS.minTokens, LIMITS.maxTokens)) };
}

/** The changeTracking format compares Markdown (as Firecrawl, it needs the markdown format) under a tag; the json mode is not there yet. */
function validateChangeTracking(obj: Obj, formats: string[], field: string): ChangeTrackingOptions {
  if (!formats.includes('markdown')) throw new UsageError(`${field}.formats: changeTracking compares the Markdown: ask for markdown too`);
  if (obj.changeTrackingOptions === undefined) return {};
  const where = `${field}.changeTrackingOptions`;
  const options = expectObject(obj.changeTrackingOptions, where);
  rejectUnknown(options, ['tag', 'modes', 'schema', 'prompt'], where);
  const tag = options.tag;
  if (tag !== undefined && tag !== null && (typeof tag !== 'string' || tag.length > LIMITS.maxChangeTagLength)) {
    throw new UsageError(`${where}.tag must be a string of at most ${LIMITS.maxChangeTagLength} characters`);
  }
  const modes = optStringArray(options, 'modes', where);
  const unknown = modes?.find((mode) => !CHANGE_TRACKING_MODES.includes(mode as ChangeTrackingMode));
  if (unknown !== undefined) throw new UsageError(`${where}.modes: unknown mode ${quoted(unknown)} (allowed: ${CHANGE_TRACKING_MODES.join(', ')})`);
  if (modes?.includes('json') || options.schema !== undefined || options.prompt !== undefined) {
    throw new UnsupportedError(`${where}: the json mode (schema, prompt) is not supported by webjobs yet; git-diff is`);
  }
  return { ...(typeof tag === 'string' && tag !== '' ? { tag } : {}), ...optField('modes', modes as ChangeTrackingMode[] | undefined) };
}

/**
 * The json format and its jsonOptions go together (as Firecrawl v1 has them); the
 * options are extract's for one page, checked for shape here (the schema with ajv
 * by the job's preflight).
 */
function validateJsonFormat(obj: Obj, formats: string[], field: string): JsonOptions | undefined {
  const where = `${field}.jsonOptions`;
  if (!formats.includes('json')) {
    if (obj.jsonOptions !== undefined) throw new UsageError(`${where} goes with the json format: add it to formats`);
    return undefined;
  }
  if (obj.jsonOptions === undefined) throw new UsageError(`${field}.formats: json needs ${where} with a schema, a prompt, or both`);
  const options = expectObject(obj.jsonOptions, where);
  rejectUnknown(options, ['schema', 'prompt', 'systemPrompt', 'provider', 'model'], where);
  const schema = options.schema;
  if (schema !== undefined && !isObject(schema)) throw new UsageError(`${where}.schema must be a JSON Schema object`);
  if (schema !== undefined) checkSchemaDepth(schema, `${where}.schema`);
  const prompt = optString(options, 'prompt', where);
  if (prompt === undefined && schema === undefined) throw new UsageError(`${where} needs a schema, a prompt, or both`);
  const systemPrompt = optString(options, 'systemPrompt', where);
  const model = optString(options, 'model', where);
  return {
    ...optField('schema', schema as Record<string, unknown> | undefined),
    ...optField('prompt', prompt),
    ...optField('systemPrompt', systemPrompt),
    ...(options.provider !== undefined ? { provider: modelProvider(options.provider, where) } : {}),
    ...optField('model', model),
  };
}

function validateScreenshotOptions(value: unknown, field: string): ScreenshotOptions {
  const obj = expectObject(value, field);
  rejectUnknown(obj, ['fullPage', 'format'], field);
  if (obj.format !== undefined && !SCREENSHOT_FORMATS.includes(obj.format as ScreenshotFormat)) {
    throw new UsageError(`${field}.format must be one of ${SCREENSHOT_FORMATS.join(', ')}`);
  }
  return { fullPage: optBoolean(obj, 'fullPage', field) ?? false, format: (obj.format as ScreenshotFormat | undefined) ?? 'png' };
}

export function validateSessionOptions(value: unknown, field = 'sessionOptions'): SessionOptions {
  const obj = expectObject(value, field);
  rejectUnknown(obj, ['useProxy', 'solveCaptchas', 'proxyCountry'], field);
  const proxyCountry = obj.proxyCountry;
  if (proxyCountry !== undefined && (typeof proxyCountry !== 'string' || !/^[A-Z]{2}$/.test(proxyCountry))) {
    throw new UsageError(`${field}.proxyCountry must be a two-letter uppercase country code such as US or DE`);
  }
  const useProxy = optBoolean(obj, 'useProxy', field) ?? false;
  if (proxyCountry !== undefined && !useProxy) {
    throw new UsageError(`${field}.proxyCountry needs useProxy: true (--use-proxy)`);
  }
  return {
    useProxy,
    solveCaptchas: optBoolean(obj, 'solveCaptchas', field) ?? false,
    ...(proxyCountry !== undefined ? { proxyCountry: proxyCountry as string } : {}),
  };
}

function requestObject(value: unknown): Obj {
  if (!isObject(value)) throw new UsageError('the request body must be a JSON object');
  return value;
}

export function validateScrapeRequest(value: unknown, limits: RequestLimits = SERVICE_LIMITS): ScrapeRequest {
  const obj = requestObject(value);
  rejectUnknown(obj, ['url', 'scrapeOptions', 'sessionOptions'], 'request');
  return {
    url: validateUrl(obj.url, 'url', { savedPages: limits.savedPages }),
    scrapeOptions: validateScrapeOptions(obj.scrapeOptions),
    sessionOptions: validateSessionOptions(obj.sessionOptions),
  };
}

/** Tabs one batch may use at once (the webjobs extension `concurrency`); more only thrashes one machine. */
export const MAX_BATCH_CONCURRENCY = 32;

export function validateBatchScrapeRequest(value: unknown, limits: RequestLimits = SERVICE_LIMITS): BatchScrapeRequest {
  const obj = requestObject(value);
  rejectUnknown(obj, ['urls', 'scrapeOptions', 'sessionOptions', 'concurrency', 'delay', 'failOnHttpError', 'webhook'], 'request');
  // concurrency is a webjobs extension; left out, the engine chooses for the machine.
  const concurrency = optInteger(obj, 'concurrency', 'request', 1, MAX_BATCH_CONCURRENCY);
  const delay = optDelay(obj);
  return {
    urls: validateUrlList(obj.urls, 'urls', LIMITS.maxBatchUrls, { savedPages: limits.savedPages }),
    scrapeOptions: validateScrapeOptions(obj.scrapeOptions),
    sessionOptions: validateSessionOptions(obj.sessionOptions),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(delay !== undefined ? { delay } : {}),
    ...(optBoolean(obj, 'failOnHttpError', 'request') ? { failOnHttpError: true } : {}),
    ...optField('webhook', validateWebhook(obj.webhook)),
  };
}

/** Limits that depend on where a job runs: the service's (docs/api.md#limits) or this machine's. */
export interface RequestLimits {
  maxCrawlPages: number;
  /** scrape and batch may name saved pages (file:// URLs): only the CLI's own jobs on this machine, never serve or MCP. */
  savedPages?: boolean;
}

/** The job API's limits, which `serve` applies to every request: the default, so nothing exceeds them unless asked. */
export const SERVICE_LIMITS: RequestLimits = { maxCrawlPages: LIMITS.maxCrawlPages };
/** A job the CLI runs on this machine: a crawl may be larger, as its pages go to disk as they finish. */
export const LOCAL_LIMITS: RequestLimits = { maxCrawlPages: LIMITS.maxLocalCrawlPages };
/** A job the command line runs on this machine for its user: LOCAL_LIMITS, and saved pages (file://) may be read. */
export const CLI_LIMITS: RequestLimits = { ...LOCAL_LIMITS, savedPages: true };

export function validateCrawlRequest(value: unknown, limits: RequestLimits = SERVICE_LIMITS): CrawlRequest {
  const obj = requestObject(value);
  rejectUnknown(
    obj,
    ['url', 'maxPages', 'maxDepth', 'followLinks', 'ignoreSitemap', 'includePatterns', 'excludePatterns', 'scrapeOptions', 'sessionOptions', 'delay', 'failOnHttpError', 'webhook'],
    'request',
  );
  const delay = optDelay(obj);
  const maxDepth = optInteger(obj, 'maxDepth', 'request', 0, LIMITS.maxCrawlDepth);
  return {
    url: validateUrl(obj.url),
    maxPages: optInteger(obj, 'maxPages', 'request', 1, limits.maxCrawlPages) ?? LIMITS.defaultCrawlPages,
    ...(maxDepth !== undefined ? { maxDepth } : {}),
    followLinks: optBoolean(obj, 'followLinks', 'request') ?? true,
    ignoreSitemap: optBoolean(obj, 'ignoreSitemap', 'request') ?? false,
    includePatterns: optPatterns(obj, 'includePatterns'),
    excludePatterns: optPatterns(obj, 'excludePatterns'),
    scrapeOptions: validateScrapeOptions(obj.scrapeOptions),
    sessionOptions: validateSessionOptions(obj.sessionOptions),
    ...(delay !== undefined ? { delay } : {}),
    ...(optBoolean(obj, 'failOnHttpError', 'request') ? { failOnHttpError: true } : {}),
    ...optField('webhook', validateWebhook(obj.webhook)),
  };
}

/** The webjobs extension `delay` of batch and crawl: milliseconds between two requests to one host. */
function optDelay(obj: Obj): number | undefined {
  return optInteger(obj, 'delay', 'request', 0, LIMITS.maxDelayMs);
}

function optPatterns(obj: Obj, key: string): string[] {
  const patterns = optStringArray(obj, key, 'request') ?? [];
  if (patterns.length > LIMITS.maxCrawlPatterns) {
    throw new LimitError(`request.${key}: ${patterns.length} patterns given, the limit is ${LIMITS.maxCrawlPatterns}`);
  }
  const long = patterns.findIndex((pattern) => pattern.length > LIMITS.maxCrawlPatternLength);
  if (long >= 0) {
    throw new LimitError(
      `request.${key}: pattern ${long + 1} has ${patterns[long]!.length} characters, the limit is ${LIMITS.maxCrawlPatternLength}`,
    );
  }
  return patterns;
}

function optString(obj: Obj, key: string, field = 'request'): string | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${field}.${key} must be a non-empty string`);
  return value;
}

/** Whether objects and arrays in `value` nest deeper than `max` levels; walked without recursion, stopping at the first too deep. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) stack.push({ node: child, depth: depth + 1 });
  }
  return false;
}

/** Refuses a schema too deep to compile, before ajv meets it (a stack overflow there would be our 500). */
export function checkSchemaDepth(schema: unknown, label: string): void {
  if (nestedDeeperThan(schema, LIMITS.maxSchemaDepth)) {
    throw new LimitError(`${label} nests objects and arrays more than ${LIMITS.maxSchemaDepth} levels deep, the limit`);
  }
}

function modelProvider(value: unknown, field = 'request'): ModelProviderName {
  if (!(MODEL_PROVIDERS as readonly unknown[]).includes(value)) {
    throw new UsageError(`${field}.provider: unknown model provider ${JSON.stringify(value)} (use ${MODEL_PROVIDERS.join(' or ')})`);
  }
  return value as ModelProviderName;
}

/** Shape only; whether `schema` is valid JSON Schema is checked by the extract engine with ajv. */
export function validateExtractRequest(value: unknown): ExtractRequest {
  const obj = requestObject(value);
  rejectUnknown(obj, ['urls', 'prompt', 'schema', 'selectors', 'systemPrompt', 'provider', 'model', 'sessionOptions', 'webhook'], 'request');
  const prompt = optString(obj, 'prompt');
  const schema = obj.schema;
  if (schema !== undefined && !isObject(schema)) throw new UsageError('request.schema must be a JSON Schema object');
  if (schema !== undefined) checkSchemaDepth(schema, 'request.schema');
  if (obj.selectors !== undefined && (prompt !== undefined || schema !== undefined)) {
    throw new UsageError('extract takes selectors (no model) or a schema and/or a prompt, not both');
  }
  const selectors = obj.selectors === undefined ? undefined : validateCssSchema(obj.selectors);
  if (prompt === undefined && schema === undefined && selectors === undefined) throw new UsageError('extract needs a schema, a prompt, or both');
  return {
    urls: validateUrlList(obj.urls, 'urls', LIMITS.maxExtractUrls),
    ...(selectors !== undefined ? { selectors } : {}),
    ...(prompt !== undefined ? { prompt } : {}),
    ...(schema !== undefined ? { schema: schema as Record<string, unknown> } : {}),
    ...(optString(obj, 'systemPrompt') !== undefined ? { systemPrompt: optString(obj, 'systemPrompt') } : {}),
    ...(obj.provider !== undefined ? { provider: modelProvider(obj.provider) } : {}),
    ...(optString(obj, 'model') !== undefined ? { model: optString(obj, 'model') } : {}),
    sessionOptions: validateSessionOptions(obj.sessionOptions),
    ...optField('webhook', validateWebhook(obj.webhook)),
  };
}

/** The webjobs extension map: checked like a crawl's URL and patterns. */
export function validateMapRequest(value: unknown): MapRequest {
  refuseProtoKeys(value);
  const obj = requestObject(value);
  rejectUnknown(obj, ['url', 'search', 'limit', 'depth', 'ignoreSitemap', 'includePatterns', 'excludePatterns'], 'request');
  const search = optString(obj, 'search');
  if (search !== undefined && search.length > MAX_MAP_SEARCH_LENGTH) throw new LimitError(`request.search has ${search.length} characters, the limit is ${MAX_MAP_SEARCH_LENGTH}`);
  return {
    url: validateUrl(obj.url),
    ...(search !== undefined ? { search } : {}),
    limit: optInteger(obj, 'limit', 'request', 1, LIMITS.maxMapLimit) ?? LIMITS.defaultMapLimit,
    depth: optInteger(obj, 'depth', 'request', 0, LIMITS.maxMapDepth) ?? LIMITS.defaultMapDepth,
    ignoreSitemap: optBoolean(obj, 'ignoreSitemap', 'request') ?? false,
    includePatterns: optPatterns(obj, 'includePatterns'),
    excludePatterns: optPatterns(obj, 'excludePatterns'),
  };
}

const MAX_MAP_SEARCH_LENGTH = 200;

const VALIDATORS: { [K in JobKind]: (value: unknown, limits: RequestLimits) => JobRequestByKind[K] } = {
  scrape: validateScrapeRequest,
  batch: validateBatchScrapeRequest,
  crawl: validateCrawlRequest,
  extract: validateExtractRequest,
};

/**
 * A JSON key "__proto__" is an ordinary key to JSON.parse but the prototype to
 * most JavaScript that copies objects; no request needs one, so it is refused
 * wherever it is, by name.
 */
function refuseProtoKeys(value: unknown): void {
  const stack: { value: unknown; at: string }[] = [{ value, at: 'request' }];
  while (stack.length > 0) {
    const { value: node, at } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (Object.prototype.hasOwnProperty.call(node, '__proto__')) throw new UsageError(`${at}: the key "__proto__" is not allowed`);
    for (const [key, child] of Object.entries(node)) stack.push({ value: child, at: Array.isArray(node) ? `${at}[${key}]` : `${at}.${key}` });
  }
}

export function validateRequest<K extends JobKind>(kind: K, value: unknown, limits: RequestLimits = SERVICE_LIMITS): JobRequestByKind[K] {
  refuseProtoKeys(value);
  return VALIDATORS[kind](value, limits);
}

/** Job ids are UUIDs; anything else is refused before it can become a path. */
export const JOB_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function validateJobId(value: string): string {
  if (!JOB_ID_PATTERN.test(value)) throw new UsageError(`${quoted(value)} is not a job id (job ids look like 3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d)`);
  return value.toLowerCase();
}

/** A query-string integer from `min` to `max`, in decimal digits; `fallback` when absent. */
export function queryInteger(raw: unknown, name: string, min: number, max: number, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  // Decimal digits only: Number() would also read "0x10", "1e3", " 7" and "0b11".
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^[0-9]{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} must be an integer from ${min} to ${max}, in decimal digits`);
  return n;
}

/** A page of results, into range on every store: its first entry at most LIMITS.maxResultOffset. */
export function validatePageQuery(query: { page?: unknown; batchSize?: unknown }): Required<PageQuery> {
  const batchSize = queryInteger(query.batchSize, 'batchSize', 1, LIMITS.maxResultBatchSize, LIMITS.defaultResultBatchSize);
  return { page: queryInteger(query.page, 'page', 1, Math.floor(LIMITS.maxResultOffset / batchSize) + 1, 1), batchSize };
}
