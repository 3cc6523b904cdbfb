/**
 * The HTTP face of `webjobs serve`: the job API's 12 routes under /api, plus
 * its extensions: cancel, resume, list, map, files (docs/api.md#routes). Fastify gives routing, the body size limit (413) and a
 * coarse JSON-schema gate; the request validation of record is validateRequest,
 * the same code the CLI uses, so a 400 says exactly what `webjobs` would.
 * The Firecrawl-compatible /v1 and /v2 (firecrawl/routes.ts) sit beside it,
 * sharing the JobGate: the same keys, plans, validation and limits.
 */
import { JOB_PATH, KIND_PATHS, NO_SUCH_JOB_CODE } from '../api/paths.js';
import { JobNotFoundError } from '../api/errors.js';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { JobBackend } from '../api/backend.js';
import { JOB_KINDS, type JobKind, type PageQuery } from '../api/types.js';
import { validateSearchRequest } from '../api/search.js';
import { queryInteger, validateJobId, validateMapRequest, validatePageQuery, validateRequest } from '../api/validate.js';
import type { JobFileStore } from '../jobs/contracts.js';
import { describeError } from './describeError.js';
import { fileLinker, withFileUrls } from './files.js';
import { bearerToken, firecrawlRoutes, isFirecrawlPath } from './firecrawl/routes.js';
import { JobGate } from './gate.js';
import type { ApiKey, KeyRing } from './keys.js';
import type { Admission } from './admission.js';
import type { AllowList } from '../engine/net/ssrf.js';
import { SERVER_DEFAULTS } from './defaults.js';
import { drainRefusedBody } from './refusedBody.js';
import { pagedAnswer, textOf } from './pagedAnswer.js';
import { httpServerOptions, limitConnections, type ConnectionLimits } from './connections.js';

export interface AppOptions {
  backend: JobBackend;
  keys: KeyRing;
  admission: Admission;
  /** Refuse loopback/private/link-local/metadata URLs at start (the guard in the engine catches the rest). */
  allowPrivate: boolean;
  allowHosts?: AllowList;
  /** The jobs' screenshots: records name them by URL, served at GET /api/files/{jobId}/{name}. */
  files?: JobFileStore;
  maxActiveJobsPerKey?: number;
  bodyLimit?: number;
  /** Bytes of entries one answer of a batch's or crawl's result holds at most (at least one entry); the rest is paged with `next`. */
  maxResultBytes?: number;
  /** Caps on connections and their idle time; each one not given is serve's default. */
  connections?: Partial<ConnectionLimits>;
  /** One line per request and the details of internal errors; nothing when absent. */
  log?: (line: string) => void;
  /** What /healthz reports beside the server itself (`database`): each part "ok" or why not; any other makes it a 503. */
  health?: () => Promise<Record<string, string>>;
}

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKey | null;
  }
  interface FastifyContextConfig {
    /** Reruns the route's own validation to explain a schema failure in webjobs' words. */
    explain?: (request: FastifyRequest) => void;
    public?: boolean;
    /** The route also takes the key as Authorization: Bearer KEY (Firecrawl's way), for URLs handed to Firecrawl clients. */
    bearer?: boolean;
  }
}

function connectionDefaults(): ConnectionLimits {
  const { maxConnections, maxConnectionsPerAddress, headersTimeout, keepAliveTimeout } = SERVER_DEFAULTS;
  return { maxConnections, maxConnectionsPerAddress, headersTimeout, keepAliveTimeout };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function buildApp(options: AppOptions): FastifyInstance {
  const { backend } = options;
  const bodyLimit = options.bodyLimit ?? SERVER_DEFAULTS.bodyLimit;
  const maxResultBytes = options.maxResultBytes ?? SERVER_DEFAULTS.maxResultBytes;
  const gate = new JobGate({
    backend,
    keys: options.keys,
    admission: options.admission,
    allowPrivate: options.allowPrivate,
    allowHosts: options.allowHosts,
    maxActiveJobsPerKey: options.maxActiveJobsPerKey ?? SERVER_DEFAULTS.maxActiveJobsPerKey,
  });
  const log = options.log ?? (() => undefined);
  // Bodies are parsed by plain JSON.parse: validateRequest refuses a "__proto__" key by name,
  // where Fastify's own check would answer that the body is not valid JSON.
  const limits: ConnectionLimits = { ...connectionDefaults(), ...definedOnly(options.connections ?? {}) };
  const app = Fastify({
    bodyLimit,
    logger: false,
    return503OnClosing: true,
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    http: httpServerOptions(limits),
    keepAliveTimeout: limits.keepAliveTimeout,
    requestTimeout: httpServerOptions(limits).requestTimeout,
  });
  limitConnections(app.server, limits);
  app.decorateRequest('apiKey', null);
  // An empty body is no body, whatever its content-type: axios, many SDKs and curl scripts send
  // content-type: application/json on every call, a DELETE or a GET included. Fastify's own parser
  // refuses that with a 400; any other body still goes to it (invalid JSON is still a 400).
  const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body: string, done) => (body === '' ? done(null, undefined) : parseJson(req, body, done)));

  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config.public) return;
    if (isFirecrawlPath(req.url)) {
      req.apiKey = gate.authenticate(bearerToken(req.headers.authorization), 'the Authorization header as Bearer KEY');
      return;
    }
    const presented = req.headers['x-api-key'];
    const { bearer } = req.routeOptions.config;
    const key = typeof presented === 'string' ? presented : bearer ? bearerToken(req.headers.authorization) : undefined;
    req.apiKey = gate.authenticate(key, bearer ? 'the x-api-key header or the Authorization header as Bearer KEY' : 'the x-api-key header');
  });
  app.addHook('onSend', async (req, reply) => {
    if (reply.statusCode === 413) await drainRefusedBody(req.raw);
  });
  app.addHook('onResponse', async (req, reply) => {
    log(`${req.method} ${req.url} ${reply.statusCode} ${Math.round(reply.elapsedTime)}ms${req.apiKey ? ` key=${req.apiKey.id}` : ''}`);
  });
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const { status, message, code } = describeError(err, req, reply, bodyLimit, log);
    void reply.code(status).send(code ? { message, code } : { message });
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ message: `no such endpoint: ${req.method} ${req.url.split('?')[0]}` });
  });

  const keyOf = (req: FastifyRequest): ApiKey => req.apiKey!;
  const ownedJobId = (req: FastifyRequest<{ Params: { jobId: string } }>, kind: JobKind): Promise<string> => gate.ownedJobId(keyOf(req), req.params.jobId, kind);

  for (const kind of JOB_KINDS) {
    const base = `/api${KIND_PATHS[kind]}`;

    app.post(
      base,
      { schema: { body: { type: 'object' } }, config: { explain: (req) => void validateRequest(kind, req.body) } },
      async (req) => {
        const { jobId } = await gate.start(keyOf(req), kind, req.body);
        return { jobId };
      },
    );

    app.get<{ Params: { jobId: string } }>(`${base}/:jobId/status`, async (req) => {
      const { status } = await backend.status(await ownedJobId(req, kind), kind);
      return { status };
    });

    app.get<{ Params: { jobId: string }; Querystring: PageQuery & { offset?: string } }>(
      `${base}/:jobId`,
      // No querystring schema: its coercion would read page=0x10 as 16. validatePageQuery takes decimal digits only.
      async (req, reply) => {
        const jobId = await ownedJobId(req, kind);
        const link = fileLinker(options.files, `${req.protocol}://${req.host}`);
        if (kind === 'batch' || kind === 'crawl') {
          const query = validatePageQuery(req.query);
          const offset = queryInteger(req.query.offset, 'offset', 0, query.batchSize - 1, 0);
          const paged = backend.resultText ? await backend.resultText(kind, jobId, query, link) : textOf(await backend.result(kind, jobId, query), link);
          const nextOf = (from: number) => `/api${KIND_PATHS[kind]}/${jobId}?page=${query.page}&batchSize=${query.batchSize}&offset=${from}`;
          return reply.type('application/json; charset=utf-8').send(pagedAnswer(paged, offset, maxResultBytes, nextOf));
        }
        const record = await backend.result(kind, jobId);
        return kind !== 'extract' ? withFileUrls(record, link) : record;
      },
    );

    app.delete<{ Params: { jobId: string } }>(`${base}/:jobId`, async (req) => {
      const { status } = await backend.cancel(await ownedJobId(req, kind), kind);
      return { status };
    });

    // webjobs extension (docs/api.md#routes): a stopped or interrupted batch or crawl goes on (webjobs resume).
    if (kind === 'batch' || kind === 'crawl') {
      app.post<{ Params: { jobId: string } }>(`${base}/:jobId/resume`, async (req) => {
        const { status } = await gate.resume(keyOf(req), await ownedJobId(req, kind), kind);
        return { status };
      });
    }
  }

  // webjobs extension (docs/api.md#routes): a site's URLs, answered at once (no job).
  app.post(
    '/api/map',
    { schema: { body: { type: 'object' } }, config: { explain: (req) => void validateMapRequest(req.body) } },
    async (req, reply) => gate.map(() => req.body, reply.raw),
  );

  // webjobs extension, not in the spec: a search engine's results, scraped when formats are named (webjobs search).
  app.post(
    '/api/search',
    { schema: { body: { type: 'object' } }, config: { explain: (req) => void validateSearchRequest(req.body) } },
    async (req, reply) => gate.search(keyOf(req), () => req.body, reply.raw),
  );

  // A job's screenshot, for the key that owns the job: /api's records and the Firecrawl API's documents link here.
  app.get<{ Params: { jobId: string; name: string } }>('/api/files/:jobId/:name', { config: { bearer: true } }, async (req, reply) => {
    const jobId = validateJobId(req.params.jobId);
    const file = await options.files?.read(jobId, req.params.name);
    if (!(await options.admission.owns(keyOf(req).id, jobId)) || !file) {
      return reply.code(404).send({ message: `no file ${req.params.name} of job ${jobId}` });
    }
    return reply.type(file.type).header('content-length', file.size).send(file.open());
  });

  app.get('/api/jobs', async (req) => {
    // Only this key's jobs are read, and only their headers: another key's jobs cost this one nothing.
    return backend.list(await gate.jobsOf(keyOf(req)));
  });

  // webjobs extension (docs/api.md#routes): one job's kind and status, for a client holding only its id
  // (`--remote` without --kind), which would otherwise try the status endpoint of each kind in turn.
  app.get<{ Params: { jobId: string } }>(`/api${JOB_PATH}/:jobId`, async (req, reply) => {
    try {
      const jobId = await gate.ownedJobId(keyOf(req), req.params.jobId);
      const { kind, status } = await backend.status(jobId);
      return { jobId, kind, status };
    } catch (err) {
      if (!(err instanceof JobNotFoundError)) throw err;
      // The code tells this 404 from a service's without the route.
      return reply.code(404).send({ message: err.message, code: NO_SUCH_JOB_CODE });
    }
  });

  void app.register(firecrawlRoutes, { backend, gate, bodyLimit, maxResultBytes, log, files: options.files });

  app.get('/healthz', { config: { public: true } }, async (_req, reply) => {
    const parts = (await options.health?.()) ?? {};
    const ok = Object.values(parts).every((state) => state === 'ok');
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', ...parts });
  });

  return app;
}
