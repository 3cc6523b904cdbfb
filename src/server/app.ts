/**
 * The HTTP face of `webjobs serve`: the spec's 12 endpoints under /api, plus
 * cancel and list. Fastify gives routing, the body size limit (413) and a
 * coarse JSON-schema gate; the request validation of record is validateRequest,
 * the same code the CLI uses, so a 400 says exactly what `webjobs` would.
 * The Firecrawl-compatible /v1 and /v2 (firecrawl/routes.ts) sit beside it,
 * sharing the JobGate: the same keys, plans, validation and limits.
 */
import { KIND_PATHS } from '../api/paths.js';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { JobBackend } from '../api/backend.js';
import { JOB_KINDS, type JobKind, type PageQuery } from '../api/types.js';
import { validatePageQuery, validateRequest } from '../api/validate.js';
import { describeError } from './describeError.js';
import { bearerToken, firecrawlRoutes, isFirecrawlPath } from './firecrawl/routes.js';
import { JobGate } from './gate.js';
import type { ApiKey, KeyRing } from './keys.js';
import type { JobOwners } from './owners.js';
import type { AllowList } from './ssrf.js';

export const SERVER_DEFAULTS = {
  /** Enough for 1,000 URLs of 1,000 characters each; more is refused with 413. */
  bodyLimit: 1024 * 1024,
  /** Pending plus running jobs one key may have; one more start answers 429. */
  maxActiveJobsPerKey: 10,
} as const;

export interface AppOptions {
  backend: JobBackend;
  keys: KeyRing;
  owners: JobOwners;
  /** Refuse loopback/private/link-local/metadata URLs at start (the guard in the engine catches the rest). */
  allowPrivate: boolean;
  allowHosts?: AllowList;
  maxActiveJobsPerKey?: number;
  bodyLimit?: number;
  /** One line per request and the details of internal errors; nothing when absent. */
  log?: (line: string) => void;
}

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKey | null;
  }
  interface FastifyContextConfig {
    /** Reruns the route's own validation to explain a schema failure in webjobs' words. */
    explain?: (request: FastifyRequest) => void;
    public?: boolean;
  }
}

export function buildApp(options: AppOptions): FastifyInstance {
  const { backend } = options;
  const bodyLimit = options.bodyLimit ?? SERVER_DEFAULTS.bodyLimit;
  const gate = new JobGate({
    backend,
    keys: options.keys,
    owners: options.owners,
    allowPrivate: options.allowPrivate,
    allowHosts: options.allowHosts,
    maxActiveJobsPerKey: options.maxActiveJobsPerKey ?? SERVER_DEFAULTS.maxActiveJobsPerKey,
  });
  const log = options.log ?? (() => undefined);
  // Bodies are parsed by plain JSON.parse: validateRequest refuses a "__proto__" key by name,
  // where Fastify's own check would answer that the body is not valid JSON.
  const app = Fastify({ bodyLimit, logger: false, return503OnClosing: true, onProtoPoisoning: 'ignore', onConstructorPoisoning: 'ignore' });
  app.decorateRequest('apiKey', null);

  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config.public) return;
    if (isFirecrawlPath(req.url)) {
      req.apiKey = gate.authenticate(bearerToken(req.headers.authorization), 'the Authorization header as Bearer KEY');
      return;
    }
    const presented = req.headers['x-api-key'];
    req.apiKey = gate.authenticate(typeof presented === 'string' ? presented : undefined, 'the x-api-key header');
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
  const ownedJobId = (req: FastifyRequest<{ Params: { jobId: string } }>, kind: JobKind): string => gate.ownedJobId(keyOf(req), req.params.jobId, kind);

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
      const { status } = await backend.status(ownedJobId(req, kind), kind);
      return { status };
    });

    app.get<{ Params: { jobId: string }; Querystring: PageQuery }>(
      `${base}/:jobId`,
      // No querystring schema: its coercion would read page=0x10 as 16. validatePageQuery takes decimal digits only.
      async (req) => {
        const jobId = ownedJobId(req, kind);
        const paged = kind === 'batch' || kind === 'crawl';
        return backend.result(kind, jobId, paged ? validatePageQuery(req.query) : undefined);
      },
    );

    app.delete<{ Params: { jobId: string } }>(`${base}/:jobId`, async (req) => {
      const { status } = await backend.cancel(ownedJobId(req, kind), kind);
      return { status };
    });
  }

  app.get('/api/jobs', async (req) => {
    // Only this key's jobs are read, and only their headers: another key's jobs cost this one nothing.
    return backend.list(gate.jobsOf(keyOf(req)));
  });

  void app.register(firecrawlRoutes, { backend, gate, bodyLimit, log });

  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok' }));

  return app;
}
