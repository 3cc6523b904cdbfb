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
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  annotations?: { readOnlyHint?: boolean; openWorldHint?: boolean; idempotentHint?: boolean };
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult>;
}

const PAGING = `The answer is Markdown text, with the job record alongside as structured content; it holds at most ${thousands(RESULT_CHARS)} characters of page content. When there is more, it ends with a cursor: call job_result with it to read on.`;

const WAIT: JsonSchema = {
  type: 'boolean',
  default: true,
  description: 'true (default): wait for the job to end and return its result. false: return the job id at once; follow with job_status and job_result. Jobs still running when this MCP session ends are cancelled.',
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
  const { wait = true, ...request } = args as Record<string, unknown> & { wait?: boolean };
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
  return jobResult(ctx.backend, kind, jobId);
}

function jobTool(name: string, kind: JobKind, title: string, description: string, limits: RequestLimits): Tool {
  const schema = requestSchema(kind, limits);
  return {
    name,
    title,
    description: `${description}\n\n${PAGING}`,
    inputSchema: { ...schema, properties: { ...schema.properties, wait: WAIT } },
    annotations: { readOnlyHint: true, openWorldHint: true },
    run: (args, ctx) => runJob(kind, args, ctx),
  };
}

/** Its form is checked by validateJobId, whose message shows what a job id looks like. */
const jobIdSchema: JsonSchema = { type: 'string', minLength: 1, description: 'the job id (a UUID) a job tool returned' };

function jobStatusTool(): Tool {
  return {
    name: 'job_status',
    title: 'Job status',
    description:
      'The status (pending, running, completed, failed, stopped) and kind of a job, and for batch and crawl how many pages are done. Use it for a job started with wait: false, or to see whether a job is still running before reading it with job_result.',
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
    description: `The result of a job: page contents as Markdown (scrape, batch_scrape, crawl) or the extracted JSON (extract), at most ${thousands(RESULT_CHARS)} characters of content per call. Without a cursor it starts at the beginning; with the cursor a previous answer ended with, it reads on from there. A batch or crawl still running shows the pages done so far.`,
    inputSchema: objectSchema<{ jobId: string; cursor: string }>(
      { jobId: jobIdSchema, cursor: { type: 'string', minLength: 1, description: 'where to read on: the cursor the previous answer gave' } },
      ['jobId'],
    ),
    annotations: { readOnlyHint: true, idempotentHint: true },
    run: async (args, ctx) => {
      const jobId = validateJobId(String(args.jobId));
      const { kind } = await ctx.backend.status(jobId);
      return jobResult(ctx.backend, kind, jobId, args.cursor as string | undefined);
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
    description: `List the URLs of a site quickly, without rendering pages: from its sitemaps and the start page's links (depth reads links further). Use it to find the pages of a site before scraping the ones you need with batch_scrape, or to find one page by a word of its address or link text (search). Answers with one URL a line, at most ${thousands(RESULT_CHARS)} characters; narrow a larger site with search, includePatterns or limit.`,
    inputSchema: mapRequestSchema(),
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
      'Read one web page and get its content as clean Markdown (or its HTML, or its links): a page whose HTML already holds its content is read over HTTP, one that needs scripts is rendered in a real browser (scrapeOptions.engine chooses). Use it when you have one URL and need what the page says. For several known URLs use batch_scrape; to explore a site whose page URLs you do not know use crawl; for specific fields as JSON use extract.',
      limits,
    ),
    jobTool(
      'batch_scrape',
      'batch',
      'Scrape many web pages',
      `Scrape a list of known URLs (up to ${thousands(LIMITS.maxBatchUrls)}) in one job; results come back in the order given, and a page that fails does not stop the others. Use it instead of calling scrape many times. Sends progress (pages done of total) while it runs.`,
      limits,
    ),
    jobTool(
      'crawl',
      'crawl',
      'Crawl a website',
      `Start at one URL and scrape the pages of that site it leads to, following links and the sitemap, up to maxPages (default ${LIMITS.defaultCrawlPages}); includePatterns and excludePatterns narrow it to parts of the site. Use it to cover a site or a section (docs, a blog) whose page URLs you do not know. Honours robots.txt. Sends progress (pages done) while it runs.`,
      limits,
    ),
    mapTool(),
    searchTool(),
    jobTool(
      'extract',
      'extract',
      'Extract structured data',
      `Extract structured data as JSON from up to ${LIMITS.maxExtractUrls} pages with a language model, following a JSON Schema, a prompt, or both (at least one). Use it when you need particular fields (prices, names, dates, lists of items) rather than the page text; the pages' data is merged into one answer. With no model: \`selectors\` (CSS) returns one object per repeated element (listings, tables, search results), and a \`schema\` alone is filled from the pages' schema.org data when no model is configured.`,
      limits,
    ),
    jobStatusTool(),
    jobResultTool(),
  ];
}
