/**
 * Firecrawl's llms.txt generator: POST /v1/llmstxt {url, maxUrls, showFullText} starts a crawl
 * (webjobs' job; its id is the generation's), GET /v1/llmstxt/{id} answers {success, status,
 * data: {llmstxt, llmsfulltxt?}} once it is done (agents/llmsTxt.ts, no model). Whether
 * llmsfulltxt was asked is remembered by this node; another node answers with it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LLMSTXT_DEFAULT_PAGES, llmsFullTxt, llmsTxt, sitePages } from '../../agents/llmsTxt.js';
import type { JobBackend } from '../../api/backend.js';
import { UsageError } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { CrawlRequest, JobKind, JobRequest, PageEntry } from '../../api/types.js';

type IdRequest = FastifyRequest<{ Params: { jobId: string } }>;

export interface LlmsTxtRoutes {
  backend: JobBackend;
  /** Starts a job for the request's key (the gate's admission and limits). */
  start(req: FastifyRequest, kind: JobKind, body: JobRequest): Promise<string>;
  /** The job id, when the request's key owns it (else JobNotFoundError). */
  owned(req: FastifyRequest, jobId: string): Promise<string>;
}

const READ_BATCH = 100;

export function llmsTxtRoutes(app: FastifyInstance, { backend, start, owned }: LlmsTxtRoutes): void {
  const asked = new Map<string, { url: string; full: boolean }>();

  app.post('/llmstxt', async (req) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const { url, maxUrls, showFullText } = body;
    const unknown = Object.keys(body).filter((key) => !['url', 'maxUrls', 'showFullText', 'cache', 'origin', 'integration'].includes(key));
    if (unknown.length > 0) throw new UsageError(`unknown field "${unknown[0]}" (allowed: url, maxUrls, showFullText)`);
    if (typeof url !== 'string') throw new UsageError('url must be a string: the site whose llms.txt to generate');
    if (maxUrls !== undefined && (!Number.isInteger(maxUrls) || (maxUrls as number) < 1)) throw new UsageError('maxUrls must be a whole number of pages, at least 1');
    if (showFullText !== undefined && typeof showFullText !== 'boolean') throw new UsageError('showFullText must be true or false');
    const maxPages = Math.min((maxUrls as number | undefined) ?? LLMSTXT_DEFAULT_PAGES, LIMITS.maxCrawlPages);
    const request: CrawlRequest = { url, maxPages, scrapeOptions: { formats: ['markdown'] } };
    const id = await start(req, 'crawl', request);
    asked.set(id, { url, full: showFullText === true });
    return { success: true, id };
  });

  app.get('/llmstxt/:jobId', async (req: IdRequest) => {
    const jobId = await owned(req, req.params.jobId);
    const { status } = await backend.status(jobId, 'crawl');
    if (status === 'pending' || status === 'running') return { success: true, status: 'processing', data: {} };
    const entries: PageEntry[] = [];
    let url: string | undefined = asked.get(jobId)?.url;
    for (let page = 1; ; page++) {
      const record = await backend.result('crawl', jobId, { page, batchSize: READ_BATCH });
      entries.push(...record.data);
      if (page >= record.totalPageBatches) {
        if (record.status === 'failed') return { success: false, status: 'failed', error: record.error ?? 'the crawl failed', data: {} };
        break;
      }
    }
    url ??= entries[0]?.url ?? '';
    const pages = sitePages(entries, url);
    if (pages.length === 0) return { success: false, status: 'failed', error: `no page of ${url} could be read`, data: {} };
    const full = asked.get(jobId)?.full ?? true;
    return { success: true, status: 'completed', data: { llmstxt: llmsTxt(pages), ...(full ? { llmsfulltxt: llmsFullTxt(pages) } : {}) } };
  });
}
