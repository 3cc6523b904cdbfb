/**
 * `webjobs serve` put together: keys, the job store of WEBJOBS_HOME, a
 * LocalBackend whose browser is guarded against SSRF, recovery of the jobs a
 * previous server left, and the HTTP app. The CLI command only parses flags.
 */
import type { AddressInfo } from 'node:net';
import { EnvironmentError } from '../api/errors.js';
import type { JobBackend } from '../api/backend.js';
import type { BrowserSettings } from '../engine/browser/browser.js';
import type { Engine } from '../engine/engine.js';
import { LocalBackend } from '../local/localBackend.js';
import { FileJobStore } from '../store/fileStore.js';
import { FileProfiles } from '../store/profiles.js';
import { FilePageCache } from '../store/pageCache.js';
import { JobFiles } from '../store/jobFiles.js';
import type { JobFileStore } from '../jobs/contracts.js';
import { HeaderCache } from '../store/headerCache.js';
import { webjobsHome } from '../store/paths.js';
import { buildApp } from './app.js';
import { DEFAULT_MAX_JOBS, SERVER_DEFAULTS } from './defaults.js';
import { loadKeys } from './keys.js';
import { FileAdmission, PgAdmission, type Admission } from './admission.js';
import { JobOwners } from './owners.js';
import { recoverJobs, watchOrphans } from './recovery.js';
import { leaseMs } from '../jobs/leases.js';
import { createEgressGuard, createGuards } from '../engine/net/ssrf.js';
import { loadProxyClient } from '../engine/session/proxiedFetch.js';
import { loadRunner } from '../jobs/runners/index.js';
import type { ConnectionLimits } from './connections.js';
import { serveWebhooks } from './webhooks.js';

export interface ServeOptions {
  host: string;
  port: number;
  keysFile?: string;
  /** Fetch loopback/private/link-local/metadata addresses too (off by default). */
  allowPrivate?: boolean;
  /** host or host:port exceptions to the private-address refusal. */
  allowHosts?: string[];
  /** Jobs running at once; the rest wait as pending. */
  maxJobs?: number;
  /** All keys share one page cache (a hit tells a key what another fetched); by default each key has its own. */
  sharedCache?: boolean;
  maxActiveJobsPerKey?: number;
  /** Chromium's nice above this process (priority.ts); 0 or none: the same priority. */
  browserNice?: number;
  bodyLimit?: number;
  /** Bytes of entries in one answer of a batch's or crawl's result (pagedAnswer.ts). */
  maxResultBytes?: number;
  /** Caps on connections and their idle time (connections.ts); each one not given is serve's default. */
  connections?: Partial<ConnectionLimits>;
  /** postgres://… : job records and the work queue live there, shared with other serve and worker nodes. */
  database?: string;
  /** With `database`: also run a worker (`maxJobs` pages at once) in this process; default true. */
  worker?: boolean;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** Signs webhook deliveries (X-Firecrawl-Signature); else WEBJOBS_WEBHOOK_SECRET. */
  webhookSecret?: string;
  /** Delays of a failed webhook delivery's retries; Firecrawl's 1, 5 and 15 minutes by default. */
  webhookRetryDelaysMs?: readonly number[];
}

export interface RunningServer {
  url: string;
  /** Stops accepting requests, then fails running jobs with `reason`; pending jobs are resumed by the next start. */
  close(reason: string): Promise<void>;
}

/** Longest a shutdown waits for jobs to record their end; any still running are failed by the next start. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Longest a shutdown waits, once jobs have ended, for the answers in flight to be sent. */
const RESPONSE_GRACE_MS = 2_000;

/** Resolves with `promise`, or after `ms` if that is sooner. */
async function atMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The parts of serve that differ between the file store and PostgreSQL. */
interface Jobs {
  backend: JobBackend;
  admission: Admission;
  /** The jobs' screenshot files, served by URL. */
  files?: JobFileStore;
  /** Stops running jobs with `reason` and releases what the back end holds. */
  close(reason: string): Promise<void>;
  /** The state of what the jobs depend on, for /healthz: `database` with PostgreSQL. */
  health?: () => Promise<Record<string, string>>;
}

/**
 * What the first scrape, batch or crawl would load on the thread that answers
 * requests, loaded before serve listens: the runners, the engine and undici (~0.35 s
 * of module loading, which held /healthz that long when the first job came).
 * Extract's runner (the LLM client, Ajv) stays loaded by the first extract job.
 */
async function loadJobModules(): Promise<void> {
  await Promise.all([loadRunner('scrape'), loadRunner('batch'), loadRunner('crawl'), import('../engine/engine.js'), loadProxyClient()]);
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const keys = await loadKeys(options.keysFile, env);
  const allowHosts = new Set((options.allowHosts ?? []).map((h) => h.toLowerCase()));
  const guards = options.allowPrivate ? {} : createGuards({ allow: allowHosts });
  const jobs = options.database ? await postgresJobs(options, env, guards, log) : await fileJobs(options, env, guards, log, keys.size);
  await loadJobModules();
  const app = buildApp({
    backend: jobs.backend,
    keys,
    admission: jobs.admission,
    allowPrivate: options.allowPrivate ?? false,
    allowHosts,
    files: jobs.files,
    maxActiveJobsPerKey: options.maxActiveJobsPerKey ?? SERVER_DEFAULTS.maxActiveJobsPerKey,
    bodyLimit: options.bodyLimit,
    connections: options.connections,
    maxResultBytes: options.maxResultBytes,
    log,
    health: jobs.health,
  });
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (err) {
    await jobs.close('webjobs serve could not start');
    throw new EnvironmentError(`cannot listen on ${options.host}:${options.port}: ${(err as Error).message}`);
  }
  const { port } = app.server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: async (reason) => {
      // New requests get 503 from here on, idle keep-alive connections end, and a
      // Firecrawl scrape waiting on its job is answered (its routes' preClose).
      const stopping = app.close();
      await jobs.close(reason);
      await atMost(stopping, RESPONSE_GRACE_MS);
      // Node's close() waits for every other connection, and counts one that has
      // not sent a byte yet (an HTTP client's spare pooled connection) as busy:
      // serve would run until that client chose to hang up.
      app.server.closeAllConnections();
      await stopping;
    },
  };
}

type Guards = Pick<BrowserSettings, 'requestGuard' | 'egressGuard'>;

/**
 * The browser engine of serve's jobs. `fairTabs` (the file store's serve, whose jobs share one engine): at most
 * as many tabs at once as one batch opens, handed out in turn per key (tabTurns.ts); PostgreSQL's workers take
 * pages in turn from the queue instead (pg/fairTurns.ts), as many as their slots.
 */
async function browserEngine(env: NodeJS.ProcessEnv, guards: Guards, browserNice?: number, fairTabs = false): Promise<Engine> {
  const [{ BrowserEngine }, { defaultConcurrency }, { TabTurns }] = await Promise.all([
    import('../engine/engine.js'),
    import('../engine/browser/browser.js'),
    import('../engine/browser/tabTurns.js'),
  ]);
  return new BrowserEngine({ env, ...guards, browserNice, ...(fairTabs ? { tabTurns: new TabTurns(defaultConcurrency()) } : {}) });
}

/** One serve: records under WEBJOBS_HOME, jobs run in this process; jobs a previous serve left are recovered. */
async function fileJobs(options: ServeOptions, env: NodeJS.ProcessEnv, guards: Guards, log: (line: string) => void, keyCount: number): Promise<Jobs> {
  const home = webjobsHome(env);
  // Status and listings are answered from memory where the header cannot have changed unseen (headerCache.ts).
  const store = new HeaderCache(new FileJobStore(home));
  const files = new JobFiles(home);
  let engine: Engine | undefined;
  const maxJobs = options.maxJobs ?? DEFAULT_MAX_JOBS;
  const webhooks = await serveWebhooks({
    home,
    store,
    secret: options.webhookSecret ?? (env.WEBJOBS_WEBHOOK_SECRET || undefined),
    retryDelaysMs: options.webhookRetryDelaysMs,
    allowPrivate: options.allowPrivate,
    allowHosts: new Set((options.allowHosts ?? []).map((h) => h.toLowerCase())),
    log,
  });
  const backend = new LocalBackend({
    store,
    pageCache: new FilePageCache(home),
    files,
    profiles: new FileProfiles(home),
    env,
    maxConcurrentJobs: maxJobs,
    // With more than one key, one key never holds every slot: another key's job can always start.
    maxRunningPerTenant: keyCount > 1 && maxJobs > 1 ? maxJobs - 1 : maxJobs,
    sharedCache: options.sharedCache,
    createEngine: async () => (engine = await browserEngine(env, guards, options.browserNice, true)),
    webhooks,
  });
  const owners = await JobOwners.open(home);
  const enqueue = (jobId: string) => backend.enqueue(jobId, owners.keyOf(jobId));
  const recovered = await recoverJobs(store, enqueue);
  if (recovered.resumed.length + recovered.failed.length > 0) {
    log(`recovered jobs of a previous run: ${recovered.resumed.length} pending resumed, ${recovered.failed.length} interrupted marked failed`);
  }
  // Jobs whose owner still held its lease are taken over once it runs out.
  const stopWatch = recovered.waiting.length > 0 ? watchOrphans(store, recovered.waiting, enqueue, Math.ceil(leaseMs(env) / 3), log) : undefined;
  return {
    backend,
    admission: new FileAdmission(owners, backend),
    files,
    close: async (reason) => {
      stopWatch?.();
      // close() aborts every running job, but a page that is loading does not
      // listen; closing the browser under it ends it now, failed with `reason`.
      const closing = backend.close(reason);
      await engine?.close().catch(() => undefined);
      await atMost(closing, SHUTDOWN_GRACE_MS);
      // What is still owed stays under its job for the next serve.
      await webhooks.close();
    },
  };
}

/**
 * An API node on PostgreSQL: records, key counts and the queue are shared with
 * every other node; unless `worker` is false it also runs a worker. Nothing
 * needs recovering on start: a dead node's pages come back when their lease ends.
 */
async function postgresJobs(options: ServeOptions, env: NodeJS.ProcessEnv, guards: Guards, log: (line: string) => void): Promise<Jobs> {
  const [{ connect, databaseHealth, pgSettings }, { PgBackend }, { PgWorker }, { PgJobFiles }, { PgWebhookSender }] = await Promise.all([
    import('../pg/connect.js'),
    import('../pg/backend.js'),
    import('../pg/worker.js'),
    import('../pg/jobFiles.js'),
    import('../pg/webhooks.js'),
  ]);
  const connection = await connect(pgSettings(options.database!, env), log);
  // Map is answered by this node, by plain HTTP through the guarded engine: no browser starts for it.
  const backend = new PgBackend(connection, env, { createEngine: () => browserEngine(env, guards, options.browserNice), sharedCache: options.sharedCache });
  const worker =
    options.worker === false
      ? undefined
      : new PgWorker({ connection, env, concurrency: options.maxJobs ?? DEFAULT_MAX_JOBS, createEngine: () => browserEngine(env, guards, options.browserNice), log });
  await worker?.start();
  // Every API node sends the webhook deliveries jobs owe, whichever node or worker ran them (pg/webhooks.ts).
  const webhooks = new PgWebhookSender(connection.settings.url, connection.pool, {
    secret: options.webhookSecret ?? (env.WEBJOBS_WEBHOOK_SECRET || undefined),
    retryDelaysMs: options.webhookRetryDelaysMs,
    // No cache: every attempt resolves the name again and is checked on what it resolves to now.
    guard: options.allowPrivate ? undefined : createEgressGuard({ allow: new Set((options.allowHosts ?? []).map((h) => h.toLowerCase())), cacheMs: 0 }),
    log,
  });
  await webhooks.start();
  const database = databaseHealth(connection.pool);
  return {
    backend,
    admission: new PgAdmission(backend),
    files: new PgJobFiles(connection.pool),
    health: async () => ({ database: await database() }),
    close: async () => {
      await worker?.close(SHUTDOWN_GRACE_MS);
      // What is owed stays in the table for the other nodes, or the next start.
      await webhooks.close();
      await backend.close().catch(() => undefined);
      await connection.close();
    },
  };
}
