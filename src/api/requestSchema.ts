/**
 * The job requests (types.ts) as JSON Schema, with the bounds of limits.ts, for
 * front ends that publish a schema (the MCP tools). Each `properties` map is typed
 * by the request type it describes, so a field added to a type without a schema
 * entry here (or a schema entry for a field the type lacks) fails to compile.
 * validate.ts stays the judge of a request: its messages are the ones users see.
 */
import { LIMITS } from './limits.js';
import { MODEL_PROVIDERS } from './types.js';
import {
  ENGINES,
  FORMATS,
  type ChangeTrackingOptions,
  type JsonOptions,
  SCREENSHOT_FORMATS,
  WAIT_UNTIL,
  type BatchScrapeRequest,
  type Cookie,
  type CrawlRequest,
  type ExtractRequest,
  type JobKind,
  type MapRequest,
  type ScrapeOptions,
  type ScrapeRequest,
  type ScreenshotOptions,
  type SessionOptions,
} from './types.js';
import { MAX_BATCH_CONCURRENCY, SERVICE_LIMITS, type RequestLimits } from './validate.js';
import { thousands } from './thousands.js';
import { actionsSchema, profileSchema } from './actionSchema.js';
import type { JsonSchema } from './jsonSchema.js';

export type { JsonSchema } from './jsonSchema.js';
import { WEBHOOK_EVENTS, WEBHOOK_LIMITS } from './webhook.js';

/** One schema per field of T, no more, no less. */
export type Properties<T> = { [K in keyof Required<T>]: JsonSchema };

export function objectSchema<T>(properties: Properties<T>, required: (keyof T & string)[] = [], description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

const integer = (minimum: number, maximum: number, description: string, defaultValue?: number): JsonSchema => ({
  type: 'integer',
  minimum,
  maximum,
  description,
  ...(defaultValue !== undefined ? { default: defaultValue } : {}),
});
const boolean = (description: string, defaultValue: boolean): JsonSchema => ({ type: 'boolean', description, default: defaultValue });
const text = (description: string): JsonSchema => ({ type: 'string', minLength: 1, pattern: '\\S', description });
const strings = (description: string, maxItems?: number, maxLength?: number): JsonSchema => ({
  type: 'array',
  items: { type: 'string', minLength: 1, pattern: '\\S', ...(maxLength !== undefined ? { maxLength } : {}) },
  ...(maxItems !== undefined ? { maxItems } : {}),
  description,
});
const url = (description: string): JsonSchema => ({ type: 'string', minLength: 1, description: `${description} (absolute http or https URL)` });
const urls = (description: string, maxItems: number): JsonSchema => ({
  type: 'array',
  items: { type: 'string', minLength: 1 },
  minItems: 1,
  maxItems,
  description: `${description} (absolute http or https URLs, at most ${thousands(maxItems)})`,
});

const cookieSchema = objectSchema<Cookie>(
  {
    name: { type: 'string', minLength: 1, description: 'cookie name' },
    value: { type: 'string', description: 'cookie value' },
    domain: { type: 'string', minLength: 1, description: 'host the cookie belongs to; without it, the host of each URL of the request' },
    includeSubdomains: { type: 'boolean', description: 'also send it to subdomains of domain' },
    path: { type: 'string', pattern: '^/', description: 'default "/"' },
    secure: { type: 'boolean', description: 'https only' },
    httpOnly: { type: 'boolean' },
    expires: { type: 'integer', minimum: 0, description: 'Unix time in seconds; absent or 0: a session cookie' },
  },
  ['name', 'value'],
);

const screenshotOptionsSchema = objectSchema<ScreenshotOptions>(
  {
    fullPage: boolean('the whole page, not only the viewport', false),
    format: { type: 'string', enum: SCREENSHOT_FORMATS, default: 'png', description: 'image format' },
  },
  [],
  'how the screenshot format is taken',
);

const changeTrackingOptionsSchema = objectSchema<ChangeTrackingOptions>(
  {
    tag: { type: 'string', maxLength: LIMITS.maxChangeTagLength, description: 'a separate history: the page is compared with the last result under the same tag' },
    modes: { type: 'array', items: { type: 'string', enum: ['git-diff'] }, uniqueItems: true, default: ['git-diff'], description: 'git-diff: the unified diff of the Markdown when changed' },
  },
  [],
  'with the changeTracking format: which history the page is compared with',
);

const provider: JsonSchema = {
  type: 'string',
  enum: MODEL_PROVIDERS,
  description: "the model server: anthropic (Claude) or openai (OpenAI or any server that speaks its Chat Completions API); default: the service's",
};
const model = text("the language model to use (default: the service's)");

const jsonOptionsSchema = objectSchema<JsonOptions>(
  {
    schema: { type: 'object', description: 'JSON Schema of the data to extract from each page; a schema, a prompt, or both are needed. A schema alone with no model configured is filled from the page\'s schema.org data' },
    prompt: text('what to extract from each page, in words'),
    systemPrompt: text('system prompt for the language model'),
    provider,
    model,
  },
  [],
  'with the json format: what to extract from each page (as the extract tool does, one page at a time)',
);

export const scrapeOptionsSchema = objectSchema<ScrapeOptions>(
  {
    formats: {
      type: 'array',
      items: { type: 'string', enum: FORMATS },
      minItems: 1,
      uniqueItems: true,
      default: ['markdown'],
      description: `what to return of each page: ${FORMATS.join(', ')} (default markdown)`,
    },
    onlyMainContent: boolean('keep only the main content (no navigation, headers, footers, ads)', true),
    explain: boolean('trace main-content selection in metadata.explain: which pass removed which block, and why', false),
    timeout: integer(1, LIMITS.maxTimeoutMs, 'milliseconds allowed to load and render one page', LIMITS.defaultTimeoutMs),
    waitFor: integer(0, LIMITS.maxWaitForMs, 'milliseconds to wait after the page loaded, for late scripts', 0),
    waitUntil: { type: 'string', enum: WAIT_UNTIL, default: 'load', description: 'when a page counts as loaded' },
    includeTags: strings('CSS selectors: only these parts of the page are kept'),
    excludeTags: strings('CSS selectors removed from the page before conversion'),
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      maxProperties: LIMITS.maxHeaders,
      description: 'extra HTTP request headers, sent only to the origins of the URLs the request names',
    },
    cookies: { type: 'array', items: cookieSchema, maxItems: LIMITS.maxCookies, description: 'cookies, each sent only to its own domain' },
    userAgent: { type: 'string', minLength: 1, maxLength: LIMITS.maxUserAgentLength, description: 'the User-Agent of every request of the job' },
    maxAge: integer(0, LIMITS.maxMaxAgeMs, 'milliseconds: reuse a stored result of the same URL and options younger than this (0: always fetch)'),
    screenshotOptions: screenshotOptionsSchema,
    changeTrackingOptions: changeTrackingOptionsSchema,
    jsonOptions: jsonOptionsSchema,
    actions: actionsSchema,
    profile: profileSchema,
    chunkTokens: integer(LIMITS.minTokens, LIMITS.maxTokens, 'with the chunks format: the most tokens (o200k_base) of one chunk', 512),
    maxTokens: integer(LIMITS.minTokens, LIMITS.maxTokens, "cut each page's Markdown after the last whole block that fits in this many tokens (metadata.truncated: true)"),
    engine: {
      type: 'string',
      enum: ENGINES,
      default: 'auto',
      description: 'how pages are read: http (the HTML as served), browser (rendered in Chromium), auto (http, Chromium only when a page needs it)',
    },
  },
  [],
  'how each page is loaded and converted',
);

export const sessionOptionsSchema = objectSchema<SessionOptions>(
  {
    useProxy: boolean('go through the configured proxy', false),
    solveCaptchas: boolean('solve CAPTCHAs with the configured solver', false),
    proxyCountry: { type: 'string', pattern: '^[A-Z]{2}$', description: 'two-letter country code of the proxy exit (needs useProxy)' },
  },
  [],
  'browser session settings (proxy, CAPTCHA solving)',
);

const delay = integer(0, LIMITS.maxDelayMs, 'milliseconds between two requests to one host (one at a time then)');
const failOnHttpError = boolean('a page the server answered with an HTTP error (4xx, 5xx) is a failed page', false);

/** The webhook field: a URL, or {url, headers, metadata, events} (JSON Schema without oneOf: the object form, which takes both). */
const webhook: JsonSchema = {
  type: 'object',
  description: 'POST the job\'s events (started, page, completed, failed) to this http(s) URL as JSON, in order, signed when the server has a secret',
  properties: {
    url: { type: 'string', minLength: 1, description: 'the receiver (http or https)' },
    headers: { type: 'object', maxProperties: WEBHOOK_LIMITS.maxHeaders, additionalProperties: { type: 'string' }, description: 'headers sent with each delivery' },
    metadata: { type: 'object', description: `echoed in every delivery (at most ${WEBHOOK_LIMITS.maxMetadataBytes / 1024} KB of JSON)` },
    events: { type: 'array', items: { type: 'string', enum: WEBHOOK_EVENTS }, uniqueItems: true, description: 'the events to deliver; all by default' },
  },
  required: ['url'],
  additionalProperties: false,
};

export function scrapeRequestSchema(): JsonSchema {
  return objectSchema<ScrapeRequest>(
    { url: url('the page to scrape'), scrapeOptions: scrapeOptionsSchema, sessionOptions: sessionOptionsSchema },
    ['url'],
  );
}

export function batchScrapeRequestSchema(): JsonSchema {
  return objectSchema<BatchScrapeRequest>(
    {
      urls: urls('the pages to scrape, in the order results come back', LIMITS.maxBatchUrls),
      scrapeOptions: scrapeOptionsSchema,
      sessionOptions: sessionOptionsSchema,
      concurrency: integer(1, MAX_BATCH_CONCURRENCY, 'pages loaded at once (browser tabs); default: tuned to the machine'),
      delay,
      failOnHttpError,
      webhook,
    },
    ['urls'],
  );
}

const crawlPatterns = (what: string) =>
  strings(`${what} (glob patterns on the URL path, e.g. /blog/**)`, LIMITS.maxCrawlPatterns, LIMITS.maxCrawlPatternLength);

export function crawlRequestSchema(limits: RequestLimits = SERVICE_LIMITS): JsonSchema {
  const patterns = crawlPatterns;
  return objectSchema<CrawlRequest>(
    {
      url: url('where the crawl starts; it stays on this site'),
      maxPages: integer(1, limits.maxCrawlPages, 'pages to scrape at most', LIMITS.defaultCrawlPages),
      maxDepth: integer(0, LIMITS.maxCrawlDepth, 'links followed from the start page at most (0: the start page and the sitemap only); none: no limit'),
      followLinks: boolean('follow links found on pages', true),
      ignoreSitemap: boolean("do not read the site's sitemap", false),
      includePatterns: patterns('only pages whose path matches one of these'),
      excludePatterns: patterns('pages whose path matches one of these are skipped'),
      scrapeOptions: scrapeOptionsSchema,
      sessionOptions: sessionOptionsSchema,
      delay,
      failOnHttpError,
      webhook,
    },
    ['url'],
  );
}

/** The webjobs extension map (no job): a site's URLs from its sitemaps and links. */
export function mapRequestSchema(): JsonSchema {
  return objectSchema<MapRequest>(
    {
      url: url('the site to map; URLs stay on its host'),
      search: { type: 'string', minLength: 1, maxLength: 200, description: 'keep URLs whose address or link text contains this (case-insensitive)' },
      limit: integer(1, LIMITS.maxMapLimit, 'URLs to return at most', LIMITS.defaultMapLimit),
      depth: integer(0, LIMITS.maxMapDepth, "link levels read from the start page (0: the sitemaps only)", LIMITS.defaultMapDepth),
      ignoreSitemap: boolean("do not read the site's sitemaps", false),
      includePatterns: crawlPatterns('only URLs whose path matches one of these'),
      excludePatterns: crawlPatterns('URLs whose path matches one of these are left out'),
    },
    ['url'],
  );
}

export function extractRequestSchema(): JsonSchema {
  return objectSchema<ExtractRequest>(
    {
      urls: urls('the pages to extract from', LIMITS.maxExtractUrls),
      prompt: text('what to extract, in words; a prompt, a schema, or both are needed'),
      schema: { type: 'object', description: 'JSON Schema of the data to extract; a prompt, a schema, or both are needed' },
      selectors: {
        type: 'object',
        description:
          'instead of a prompt or schema, no model: Crawl4AI\'s JSON CSS schema {"baseSelector": "li.product", "fields": [{"name": "title", "selector": "h2", "type": "text"}]} (types text, attribute with "attribute", html, nested and list with their own "fields"); the result is an array with one object per element baseSelector matches',
      },
      systemPrompt: text('system prompt for the language model'),
      provider,
      model,
      sessionOptions: sessionOptionsSchema,
      webhook,
    },
    ['urls'],
  );
}

/** Each kind's request schema under the given limits (a crawl's maxPages depends on where it runs). */
export function requestSchema(kind: JobKind, limits: RequestLimits = SERVICE_LIMITS): JsonSchema {
  const schemas: Record<JobKind, () => JsonSchema> = {
    scrape: scrapeRequestSchema,
    batch: batchScrapeRequestSchema,
    crawl: () => crawlRequestSchema(limits),
    extract: extractRequestSchema,
  };
  return schemas[kind]();
}
