/**
 * The MCP tools: one entry each, over the JobBackend interface. A job kind
 * becomes a tool with `jobTool` (its input schema is the kind's request schema
 * plus `wait`); job_status and job_result read any job by id.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JobBackend, JobProgress } from '../api/backend.js';
import { LIMITS } from '../api/limits.js';
import { UnsupportedError, UsageError } from '../api/errors.js';
import { requestUrls } from '../api/redact.js';
import { mapRequestSchema, objectSchema, requestSchema, type JsonSchema } from '../api/requestSchema.js';
import { isFinal, type JobKind, type JobRequestByKind } from '../api/types.js';
import { validateJobId, validateMapRequest, type RequestLimits } from '../api/validate.js';
import { jobResult, RESULT_CHARS } from './results.js';
import { compactSchema } from './compactSchema.js';
import { sizedAnswer, takeWindow, windowArguments } from './window.js';
import { thousands } from '../api/thousands.js';
import { searchTool } from './search.js';

/** What a tool gets besides its arguments. */
export interface ToolContext {
  backend: JobBackend;
  /** Aborted when the client cancels the call (notifications/cancelled) or goes away. */
  signal: AbortSignal;
  /** Reports pages done of pages expected; a no-op when the client gave no progressToken. */
  progress(done: number, total: number | undefined, message: string): void;
  /** Jobs this session started, so that the session's end can cancel those still running. */
  jobs: Map<string, JobKind>;
  /** Throws (UsageError) when the address guard refuses one of these URLs outright; jobs on a service are its to refuse. */
  refuseUrls(urls: readonly string[]): void;
  /** The service's API key (--remote), to fetch a screenshot with. */
  apiKey?: string;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  annotations?: { readOnlyHint?: boolean; openWorldHint?: boolean; idempotentHint?: boolean };
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult>;
}

const PAGING = `Answers in Markdown, at most ${thousands(RESULT_CHARS)} characters (maxChars, maxTokens); more is read with job_result and the cursor given.`;

const WAIT: JsonSchema = {
  type: 'boolean',
  default: true,
  description: 'false: return the job id at once (then job_status, job_result)',
};

/** Pages expected of a batch or crawl, for progress; a crawl's maxPages is a bound, not a promise. */
function expectedPages<K extends JobKind>(kind: K, request: JobRequestByKind[K]): number | undefined {
  if (kind === 'batch') return (request as JobRequestByKind['batch']).urls.length;
  if (kind === 'crawl') return (request as JobRequestByKind['crawl']).maxPages ?? LIMITS.defaultCrawlPages;
  return undefined;
}

function started(kind: JobKind, jobId: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `Started ${kind} job ${jobId}. Check it with job_status {"jobId": "${jobId}"} and read it with job_result.` }],
    structuredContent: { jobId, kind, status: 'pending' },
  };
}

/**
 * Starts a job, waits for its end with progress, and answers with the first
 * window of its result. A cancelled call cancels the job; the job's end is then
 * what the call waits for, so the job is stopped before the handler returns.
 */
async function runJob<K extends JobKind>(kind: K, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
  const { maxChars, maxTokens, rest } = takeWindow(args);
  const { wait = true, ...request } = rest as Record<string, unknown> & { wait?: boolean };
  // An agent's tool call never POSTs what it read to a URL of its choosing: webhooks are for serve and the CLI.
  if ('webhook' in request) throw new UsageError('webhook is not taken by the MCP tools; use webjobs serve or the CLI for webhooks');
  const jobRequest = request as unknown as JobRequestByKind[K];
  ctx.refuseUrls(requestUrls(jobRequest));
  const { jobId } = await ctx.backend.start(kind, jobRequest);
  ctx.jobs.set(jobId, kind);
  const cancel = () => void ctx.backend.cancel(jobId, kind).catch(() => undefined);
  // Cancelled (or the session ended) while the job was being started.
  if (ctx.signal.aborted) cancel();
  if (!wait) return started(kind, jobId);
  ctx.signal.addEventListener('abort', cancel, { once: true });
  const total = expectedPages(kind, jobRequest);
  let reported = -1;
  const onProgress = (p: JobProgress) => {
    if (total === undefined || p.done <= reported) return;
    reported = p.done;
    const expected = p.total ?? total;
    const failed = `${p.failed > 0 ? `, ${p.failed} failed` : ''}${p.discovered !== undefined ? `, ${p.discovered} found so far` : ''}`;
    ctx.progress(p.done, expected, `${kind} job ${jobId}: ${p.done} of ${kind === 'crawl' ? 'at most ' : ''}${expected} pages done${failed}`);
  };
  try {
    const status = await ctx.backend.wait(kind, jobId, { onProgress });
    if (isFinal(status)) ctx.jobs.delete(jobId);
  } finally {
    ctx.signal.removeEventListener('abort', cancel);
  }
  // Nobody reads the answer to a cancelled call (the SDK drops it): no result to read for it.
  if (ctx.signal.aborted) return { content: [{ type: 'text', text: `${kind} job ${jobId} was cancelled` }], isError: true };
  return sizedAnswer((chars) => jobResult(ctx.backend, kind, jobId, undefined, { chars, apiKey: ctx.apiKey }), RESULT_CHARS, maxChars, maxTokens);
}

function jobTool(name: string, kind: JobKind, title: string, description: string, limits: RequestLimits): Tool {
  const { webhook: _webhook, ...properties } = requestSchema(kind, limits).properties ?? {};
  const schema = { ...requestSchema(kind, limits), properties };
  return {
    name,
    title,
    description: `${description} ${PAGING}`,
    inputSchema: compactSchema({ ...schema, properties: { ...schema.properties, ...sameOptions(kind, schema), wait: WAIT, ...windowArguments(RESULT_CHARS) } }, kind === 'scrape' ? 2 : 1),
    annotations: { readOnlyHint: true, openWorldHint: true },
    run: (args, ctx) => runJob(kind, args, ctx),
  };
}

/** batch_scrape's and crawl's scrapeOptions: the scrape tool's fields, said there once. */
function sameOptions(kind: JobKind, schema: JsonSchema): Record<string, JsonSchema> {
  const options = schema.properties?.scrapeOptions;
  if (kind === 'scrape' || !options) return {};
  return { scrapeOptions: { ...options, description: "each page's options: the scrape tool's scrapeOptions" } };
}

/** Its form is checked by validateJobId, whose message shows what a job id looks like. */
const jobIdSchema: JsonSchema = { type: 'string', minLength: 1, description: 'the job id (a UUID) a job tool returned' };

function jobStatusTool(): Tool {
  return {
    name: 'job_status',
    title: 'Job status',
    description:
      "A job's status (pending, running, completed, failed, stopped), kind, and pages done (batch, crawl).",
    inputSchema: objectSchema<{ jobId: string }>({ jobId: jobIdSchema }, ['jobId']),
    annotations: { readOnlyHint: true, idempotentHint: true },
    run: async (args, ctx) => {
      const jobId = validateJobId(String(args.jobId));
      const { status, kind } = await ctx.backend.status(jobId);
      let pages = '';
      let done: number | undefined;
      if (kind === 'batch' || kind === 'crawl') {
        const record = await ctx.backend.result(kind, jobId, { page: 1, batchSize: 1 });
        done = 'totalScrapedPages' in record ? record.totalScrapedPages : record.totalCrawledPages;
        pages = `, ${done} page(s) done`;
      }
      return {
        content: [{ type: 'text', text: `${kind} job ${jobId}: ${status}${pages}${isFinal(status) ? '. Read it with job_result.' : '.'}` }],
        structuredContent: { jobId, kind, status, ...(done !== undefined ? { pagesDone: done } : {}) },
      };
    },
  };
}

function jobResultTool(): Tool {
  return {
    name: 'job_result',
    title: 'Job result',
    description: `A job's result (Markdown, or extract's JSON), from the start or from the cursor a previous answer gave. ${PAGING}`,
    inputSchema: objectSchema<{ jobId: string; cursor: string; maxChars: number; maxTokens: number }>(
      { jobId: jobIdSchema, cursor: { type: 'string', minLength: 1, description: 'the cursor the previous answer gave' }, ...(windowArguments(RESULT_CHARS) as { maxChars: JsonSchema; maxTokens: JsonSchema }) },
      ['jobId'],
    ),
    annotations: { readOnlyHint: true, idempotentHint: true },
    run: async (args, ctx) => {
      const jobId = validateJobId(String(args.jobId));
      const { kind } = await ctx.backend.status(jobId);
      const { maxChars, maxTokens } = takeWindow(args);
      return sizedAnswer((chars) => jobResult(ctx.backend, kind, jobId, args.cursor as string | undefined, { chars, apiKey: ctx.apiKey }), RESULT_CHARS, maxChars, maxTokens);
    },
  };
}

/**
 * map answers at once (no job, nothing stored to page through): its URL list is
 * cut at the size cap, with a note saying how many more there were.
 */
function mapTool(): Tool {
  return {
    name: 'map',
    title: 'List the URLs of a website',
    description: `List a site's URLs from its sitemaps and links, without rendering pages, one a line (at most ${thousands(RESULT_CHARS)} characters); search narrows them.`,
    inputSchema: compactSchema(mapRequestSchema()),
    annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
    run: async (args, ctx) => {
      if (!ctx.backend.map) throw UnsupportedError.of('map', 'this back end');
      const request = validateMapRequest(args);
      ctx.refuseUrls([request.url]);
      const { links } = await ctx.backend.map(request, ctx.signal);
      const shown: typeof links = [];
      let length = 0;
      for (const link of links) {
        length += link.url.length + 1;
        if (length > RESULT_CHARS) break;
        shown.push(link);
      }
      const more = links.length - shown.length;
      const note = more > 0 ? `\n\n(${more} more URLs not shown: narrow the map with search, includePatterns or limit)` : '';
      return {
        content: [{ type: 'text', text: `${shown.map((link) => link.url).join('\n')}${note}` }],
        structuredContent: { links: shown, total: links.length },
      };
    },
  };
}

/** Every tool, in the order clients list them. `limits`: where jobs run (a crawl's maxPages differs). */
export function tools(limits: RequestLimits): Tool[] {
  return [
    jobTool(
      'scrape',
      'scrape',
      'Scrape a web page',
      'Read one web page as clean Markdown (or HTML, links, chunks, a screenshot). For several URLs use batch_scrape; for a whole site, crawl; for fields as JSON, extract.',
      limits,
    ),
    jobTool(
      'batch_scrape',
      'batch',
      'Scrape many web pages',
      `Scrape up to ${thousands(LIMITS.maxBatchUrls)} known URLs in one job, in the order given; a failed page does not stop the others.`,
      limits,
    ),
    jobTool(
      'crawl',
      'crawl',
      'Crawl a website',
      `Scrape the pages of a site from one URL, following links and the sitemap, up to maxPages (default ${LIMITS.defaultCrawlPages}); honours robots.txt.`,
      limits,
    ),
    mapTool(),
    searchTool(),
    jobTool(
      'extract',
      'extract',
      'Extract structured data',
      `Extract data as JSON from up to ${LIMITS.maxExtractUrls} pages with a language model, by a JSON Schema and/or a prompt; without a model, by CSS selectors or from schema.org data.`,
      limits,
    ),
    jobStatusTool(),
    jobResultTool(),
  ];
}
