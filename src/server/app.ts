/**
 * The HTTP face of `webjobs serve`: the spec's 12 endpoints under /api, plus
 * cancel and list. Fastify gives routing, the body size limit (413) and a
 * coarse JSON-schema gate; the request validation of record is validateRequest,
 * the same code the CLI uses, so a 400 says exactly what `webjobs` would.
 */
import { KIND_PATHS } from '../api/paths.js';
import { createReadStream, promises as fs } from 'node:fs';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { JobBackend } from '../api/backend.js';
import { requestUrls } from '../api/redact.js';
import { AuthError, DamagedRecordError, JobNotFoundError, TooManyJobsError, UsageError, WebjobsError } from '../api/errors.js';
import { isFinal, JOB_KINDS, type JobKind, type JobRequest, type PageQuery } from '../api/types.js';
import { validateJobId, validateMapRequest, validatePageQuery, validateRequest } from '../api/validate.js';
import { FILE_TYPES, type JobFiles } from '../store/jobFiles.js';
import type { ApiKey, KeyRing } from './keys.js';
import type { JobOwners } from './owners.js';
import { checkKindAllowed, checkRequestAllowed } from './plans.js';
import { literalRefusal, type AllowList } from './ssrf.js';

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
  /** The jobs' screenshots: records name them by URL, served at GET /api/files/{jobId}/{name}. */
  files?: JobFiles;
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
  const { backend, keys, owners } = options;
  const bodyLimit = options.bodyLimit ?? SERVER_DEFAULTS.bodyLimit;
  const maxActive = options.maxActiveJobsPerKey ?? SERVER_DEFAULTS.maxActiveJobsPerKey;
  const log = options.log ?? (() => undefined);
  // Bodies are parsed by plain JSON.parse: validateRequest refuses a "__proto__" key by name,
  // where Fastify's own check would answer that the body is not valid JSON.
  const app = Fastify({ bodyLimit, logger: false, return503OnClosing: true, onProtoPoisoning: 'ignore', onConstructorPoisoning: 'ignore' });
  app.decorateRequest('apiKey', null);

  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config.public) return;
    const presented = req.headers['x-api-key'];
    const key = keys.find(typeof presented === 'string' ? presented : undefined);
    if (!key) {
      throw new AuthError(presented ? 'invalid API key' : 'missing API key: send it in the x-api-key header');
    }
    req.apiKey = key;
  });
  app.addHook('onResponse', async (req, reply) => {
    log(`${req.method} ${req.url} ${reply.statusCode} ${Math.round(reply.elapsedTime)}ms${req.apiKey ? ` key=${req.apiKey.id}` : ''}`);
  });
  app.setErrorHandler((err: FastifyError, req, reply) => sendError(err, req, reply, bodyLimit, log));
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ message: `no such endpoint: ${req.method} ${req.url.split('?')[0]}` });
  });

  const keyOf = (req: FastifyRequest): ApiKey => req.apiKey!;

  /** Unknown ids and other keys' jobs look the same: 404. */
  const ownedJobId = (req: FastifyRequest<{ Params: { jobId: string } }>, kind: JobKind): string => {
    checkKindAllowed(kind, keyOf(req).plan);
    const jobId = validateJobId(req.params.jobId);
    if (!owners.owns(keyOf(req).id, jobId)) throw new JobNotFoundError(jobId);
    return jobId;
  };

  const startLocks = new Map<string, Promise<unknown>>();
  /** Starts of one key run one at a time, so two at once cannot both slip under the 429 limit. */
  const oneAtATime = <T>(keyId: string, fn: () => Promise<T>): Promise<T> => {
    const next = (startLocks.get(keyId) ?? Promise.resolve()).then(fn, fn);
    startLocks.set(keyId, next.catch(() => undefined));
    return next;
  };
  const finished = new Set<string>();
  const activeJobs = async (keyId: string): Promise<number> => {
    let active = 0;
    for (const jobId of owners.jobs(keyId)) {
      if (finished.has(jobId)) continue;
      const status = await backend.status(jobId).then((s) => s.status, () => 'failed' as const);
      if (isFinal(status)) finished.add(jobId);
      else active++;
    }
    return active;
  };

  for (const kind of JOB_KINDS) {
    const base = `/api${KIND_PATHS[kind]}`;

    app.post(
      base,
      { schema: { body: { type: 'object' } }, config: { explain: (req) => void validateRequest(kind, req.body) } },
      async (req) => {
        const key = keyOf(req);
        checkKindAllowed(kind, key.plan);
        const request = validateRequest(kind, req.body);
        checkRequestAllowed(request, key.plan);
        if (!options.allowPrivate) refusePrivateUrls(request, options.allowHosts);
        return oneAtATime(key.id, async () => {
          if ((await activeJobs(key.id)) >= maxActive) {
            throw new TooManyJobsError(`too many jobs at once: this API key has ${maxActive} pending or running; wait for one to finish`);
          }
          const { jobId } = await backend.start(kind, request);
          await owners.add(jobId, key.id);
          return { jobId };
        });
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
        const record = await backend.result(kind, jobId, paged ? validatePageQuery(req.query) : undefined);
        return options.files && kind !== 'extract' ? withFileUrls(record, options.files, `${req.protocol}://${req.host}`) : record;
      },
    );

    app.delete<{ Params: { jobId: string } }>(`${base}/:jobId`, async (req) => {
      const { status } = await backend.cancel(ownedJobId(req, kind), kind);
      return { status };
    });
  }

  // webjobs extension, not in the spec: a site's URLs, answered at once (no job).
  app.post(
    '/api/map',
    { schema: { body: { type: 'object' } }, config: { explain: (req) => void validateMapRequest(req.body) } },
    async (req, reply) => {
      if (!backend.map) throw new UsageError('map is not available on this server');
      const request = validateMapRequest(req.body);
      if (!options.allowPrivate) refusePrivateUrls({ url: request.url }, options.allowHosts);
      // A client that hangs up stops the reading of the site.
      const hungUp = new AbortController();
      reply.raw.on('close', () => hungUp.abort(new Error('the client closed the request')));
      return backend.map(request, hungUp.signal);
    },
  );

  // A job's screenshot, for the key that owns the job.
  app.get<{ Params: { jobId: string; name: string } }>('/api/files/:jobId/:name', async (req, reply) => {
    const jobId = validateJobId(req.params.jobId);
    const file = options.files?.path(jobId, req.params.name);
    const size = file ? await fs.stat(file).then((stat) => stat.size, () => undefined) : undefined;
    if (!owners.owns(keyOf(req).id, jobId) || !file || size === undefined) {
      return reply.code(404).send({ message: `no file ${req.params.name} of job ${jobId}` });
    }
    return reply.type(FILE_TYPES[file.slice(file.lastIndexOf('.') + 1)] ?? 'application/octet-stream').header('content-length', size).send(createReadStream(file));
  });

  app.get('/api/jobs', async (req) => {
    const key = keyOf(req);
    // Only this key's jobs are read, and only their headers: another key's jobs cost this one nothing.
    return backend.list(owners.jobs(key.id));
  });

  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok' }));

  return app;
}

/** The record with each screenshot's path on this machine replaced by its URL here. */
function withFileUrls<T>(record: T, files: JobFiles, origin: string): T {
  const data = (record as { data?: unknown }).data;
  const pages = (Array.isArray(data) ? data : [data]) as ({ screenshot?: unknown } | null | undefined)[];
  for (const page of pages) {
    const file = typeof page?.screenshot === 'string' ? files.nameOf(page.screenshot) : undefined;
    if (file) page!.screenshot = `${origin}/api/files/${file.jobId}/${file.name}`;
  }
  return record;
}

function refusePrivateUrls(request: JobRequest, allowHosts?: AllowList): void {
  const refusals = requestUrls(request)
    .map((url) => literalRefusal(url, allowHosts))
    .filter((r): r is string => r !== undefined);
  if (refusals.length > 0) {
    const more = refusals.length > 3 ? ` (and ${refusals.length - 3} more)` : '';
    throw new UsageError(`${refusals.slice(0, 3).join('; ')}${more}`);
  }
}

/** Every error leaves as {"message"} with its status; a stack trace only ever goes to the log. */
function sendError(err: FastifyError, req: FastifyRequest, reply: FastifyReply, bodyLimit: number, log: (line: string) => void): void {
  const send = (status: number, message: string) => void reply.code(status).send({ message });
  if (err instanceof TooManyJobsError) void reply.header('retry-after', String(err.retryAfterSeconds));
  if (err instanceof DamagedRecordError) return void reply.code(err.httpStatus).send({ message: err.message, code: DamagedRecordError.code });
  if (err instanceof WebjobsError) return send(err.httpStatus, err.message);
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return send(413, `request body too large: the limit is ${bodyLimit.toLocaleString('en-US')} bytes`);
  }
  if (err.validation) {
    try {
      req.routeOptions.config.explain?.(req);
    } catch (explained) {
      if (explained instanceof UsageError) return send(400, explained.message);
    }
    return send(400, `invalid request: ${err.message}`);
  }
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return send(400, `the request body is not valid JSON: ${err.message}`);
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return send(status, err.message);
  log(`internal error on ${req.method} ${req.url}: ${err.stack ?? err.message}`);
  send(500, 'internal error in webjobs serve; the server log has the details');
}
