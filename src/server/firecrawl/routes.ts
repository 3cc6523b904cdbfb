/**
 * A Firecrawl-compatible API on `webjobs serve`, under /v1 and /v2: scrape
 * (synchronous), batch scrape, crawl (status paged by skip/limit with `next`,
 * cancel) and extract. A front end over the same JobBackend and JobGate as
 * /api: the same keys (sent as Authorization: Bearer KEY), plans, validation,
 * private-address refusal and per-key job limit; only the names and the
 * envelopes ({success, data}, {success: false, error}) are Firecrawl's.
 */
import { llmsTxtRoutes } from './llmstxt.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { JobBackend } from '../../api/backend.js';
import { JobFailedError, JobNotFoundError, ServeShutDownError } from '../../api/errors.js';
import type { JobFileStore } from '../../jobs/contracts.js';
import { describeError } from '../describeError.js';
import { fileLinker, type FileLinker } from '../files.js';
import type { JobGate } from '../gate.js';
import { mapBatch, mapCrawl, mapExtract, mapMap, mapScrape, requestBody, type FirecrawlVersion, type MappedRequest } from './request.js';
import { mapSearch, searchAnswer } from './search.js';
import { crawlState, extractState, toDocument } from './response.js';
import { pagedStatus, publicOrigin } from './status.js';
import { serveWatches } from './watch.js';

export const FIRECRAWL_VERSIONS: readonly FirecrawlVersion[] = ['v1', 'v2'];

/** Requests under /v1 and /v2 are Firecrawl's: their key comes as a Bearer token and their errors in Firecrawl's envelope. */
export function isFirecrawlPath(url: string): boolean {
  return /^\/v[12](\/|\?|$)/.test(url);
}

export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
}

export interface FirecrawlOptions {
  backend: JobBackend;
  gate: JobGate;
  bodyLimit: number;
  /** Bytes of documents in one batch or crawl status (at least one); the rest follows by `next`. */
  maxResultBytes: number;
  log: (line: string) => void;
  /** The jobs' screenshots, linked from documents to GET /api/files (which takes the Bearer key too). */
  files?: JobFileStore;
}

type IdRequest = FastifyRequest<{ Params: { jobId: string } }>;
type PagedRequest = FastifyRequest<{ Params: { jobId: string }; Querystring: { skip?: string; limit?: string } }>;

const ENDPOINTS = 'POST scrape, POST batch/scrape, GET|DELETE batch/scrape/ID, POST crawl, GET|DELETE crawl/ID, POST map, POST search, POST extract, GET extract/ID, POST llmstxt, GET llmstxt/ID';

export async function firecrawlRoutes(app: FastifyInstance, options: FirecrawlOptions): Promise<void> {
  const closeWatches = serveWatches(app.server, options);
  const shutdown = new AbortController();
  app.addHook('preClose', async () => {
    closeWatches();
    shutdown.abort();
  });
  for (const version of FIRECRAWL_VERSIONS) {
    await app.register((child) => versionRoutes(child, options, version, shutdown.signal), { prefix: `/${version}` });
  }
}

/** `shutdown` aborts when serve begins to close: a scrape waiting on its job is answered then. */
async function versionRoutes(app: FastifyInstance, options: FirecrawlOptions, version: FirecrawlVersion, shutdown: AbortSignal): Promise<void> {
  const { backend, gate } = options;
  /** What each request's Firecrawl names are called in webjobs, so that a validation error can say both. */
  const renamedOf = new WeakMap<FastifyRequest, [string, string][]>();

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const { status, message, code } = describeError(err, req, reply, options.bodyLimit, options.log);
    const renamed = renamedOf.get(req) ?? [];
    const hint = status === 400 && renamed.length > 0 ? ` (webjobs names: ${renamed.map(([theirs, ours]) => `${theirs} is ${ours}`).join(', ')})` : '';
    void reply.code(status).send({ success: false, error: message + hint, ...(code ? { code } : {}) });
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    void reply.code(404).send({ success: false, error: `no such endpoint: ${req.method} ${path} (webjobs serve's Firecrawl API has ${ENDPOINTS})` });
  });

  const keyOf = (req: FastifyRequest) => req.apiKey!;
  const base = (req: FastifyRequest) => `${publicOrigin(req.headers)}/${version}`;
  const linkOf = (req: FastifyRequest) => fileLinker(options.files, publicOrigin(req.headers));

  const start = async (req: FastifyRequest, mapped: MappedRequest) => {
    renamedOf.set(req, mapped.renamed);
    const { jobId } = await gate.start(keyOf(req), mapped.kind, mapped.body);
    return jobId;
  };

  app.post('/scrape', async (req, reply) => {
    const jobId = await start(req, mapScrape(requestBody(req.body), version));
    return scrapeNow(backend, jobId, reply, linkOf(req), shutdown);
  });

  app.post('/batch/scrape', async (req) => {
    const mapped = mapBatch(requestBody(req.body), version);
    const id = await start(req, mapped);
    return { success: true, id, url: `${base(req)}/batch/scrape/${id}`, ...(mapped.invalidURLs.length > 0 ? { invalidURLs: mapped.invalidURLs } : {}) };
  });

  app.post('/crawl', async (req) => {
    const id = await start(req, mapCrawl(requestBody(req.body), version));
    return { success: true, id, url: `${base(req)}/crawl/${id}` };
  });

  app.post('/extract', async (req) => {
    const mapped = mapExtract(requestBody(req.body));
    const id = await start(req, mapped);
    return { success: true, id, ...(mapped.invalidURLs.length > 0 ? { invalidURLs: mapped.invalidURLs } : {}) };
  });

  app.post('/map', async (req, reply) => {
    const { links } = await gate.map(() => mapMap(requestBody(req.body), version), reply.raw);
    return { success: true, links: version === 'v1' ? links.map((link) => link.url) : links };
  });

  llmsTxtRoutes(app, {
    backend,
    start: async (req, kind, body) => (await gate.start(keyOf(req), kind, body)).jobId,
    owned: (req, jobId) => gate.ownedJobId(keyOf(req), jobId, 'crawl'),
  });

  app.post('/search', async (req, reply) => searchAnswer(await gate.search(keyOf(req), () => mapSearch(requestBody(req.body), version), reply.raw), version));

  for (const [path, kind] of [['/batch/scrape', 'batch'], ['/crawl', 'crawl']] as const) {
    app.get(`${path}/:jobId`, async (req: PagedRequest, reply) => {
      // Firecrawl's v1 SDK polls a batch scrape at /v1/crawl/ID: there, either kind answers.
      const pagedKind = version === 'v1' && kind === 'crawl' ? await crawlOrBatch(req) : kind;
      const jobId = await gate.ownedJobId(keyOf(req), req.params.jobId, pagedKind);
      const answer = await pagedStatus(backend, pagedKind, jobId, req.query, `${base(req)}${path}/${jobId}`, linkOf(req), options.maxResultBytes);
      return reply.type('application/json; charset=utf-8').send(answer);
    });
    app.delete(`${path}/:jobId`, async (req: IdRequest) => {
      const jobId = await gate.ownedJobId(keyOf(req), req.params.jobId, kind);
      const { status } = await backend.cancel(jobId, kind);
      return { success: true, status: crawlState(status) };
    });
  }

  app.get('/extract/:jobId', async (req: IdRequest) => {
    const jobId = await gate.ownedJobId(keyOf(req), req.params.jobId, 'extract');
    const record = await backend.result('extract', jobId);
    const usage = record.metadata;
    return {
      success: record.status !== 'failed',
      status: extractState(record.status),
      ...(record.data !== undefined ? { data: record.data } : {}),
      ...(record.error ? { error: record.error } : {}),
      // A schema filled without a model: what was not found (Firecrawl's answers carry a warning too).
      ...(record.warning ? { warning: record.warning } : {}),
      ...(record.missing ? { missing: record.missing } : {}),
      ...(usage ? { tokensUsed: usage.inputTokens + usage.outputTokens } : {}),
    };
  });

  /** The kind of the job a v1 crawl status asks for: a crawl, or a batch scrape. */
  async function crawlOrBatch(req: PagedRequest): Promise<'crawl' | 'batch'> {
    const jobId = await gate.ownedJobId(keyOf(req), req.params.jobId);
    const { kind } = await backend.status(jobId);
    if (kind !== 'crawl' && kind !== 'batch') throw new JobNotFoundError(jobId);
    return kind;
  }
}

/**
 * A scrape answered in the request, as Firecrawl's is. A client that hangs up
 * first cancels the job, so nobody waits for a page nobody will read. A serve
 * that shuts down answers at once: on PostgreSQL the job may go on elsewhere.
 */
async function scrapeNow(backend: JobBackend, jobId: string, reply: FastifyReply, link: FileLinker, shutdown: AbortSignal) {
  let answered = false;
  reply.raw.on('close', () => {
    if (!answered) void backend.cancel(jobId, 'scrape').catch(() => undefined);
  });
  let stopWaiting: () => void = () => undefined;
  const closing = new Promise<never>((_, reject) => {
    stopWaiting = () => reject(new ServeShutDownError(jobId));
    if (shutdown.aborted) stopWaiting();
    else shutdown.addEventListener('abort', stopWaiting, { once: true });
  });
  try {
    await Promise.race([backend.wait('scrape', jobId), closing]);
  } finally {
    answered = true;
    // The signal lives as long as serve: one listener per scrape would pile up.
    shutdown.removeEventListener('abort', stopWaiting);
  }
  const record = await backend.result('scrape', jobId);
  if (record.status !== 'completed' || !record.data) {
    throw new JobFailedError(`scrape ${record.status}: ${record.error ?? 'no reason given'}`);
  }
  return { success: true, data: toDocument(link(record.data), jobId) };
}
