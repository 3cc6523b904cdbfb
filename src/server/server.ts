/**
 * `webjobs serve` put together: keys, the job store of WEBJOBS_HOME, a
 * LocalBackend whose browser is guarded against SSRF, recovery of the jobs a
 * previous server left, and the HTTP app. The CLI command only parses flags.
 */
import type { AddressInfo } from 'node:net';
import { EnvironmentError } from '../api/errors.js';
import type { Engine } from '../engine/engine.js';
import { LocalBackend } from '../local/localBackend.js';
import { FileJobStore } from '../store/fileStore.js';
import { FilePageCache } from '../store/pageCache.js';
import { JobFiles } from '../store/jobFiles.js';
import { HeaderCache } from '../store/headerCache.js';
import { webjobsHome } from '../store/paths.js';
import { buildApp, SERVER_DEFAULTS } from './app.js';
import { loadKeys } from './keys.js';
import { JobOwners } from './owners.js';
import { recoverJobs } from './recovery.js';
import { createGuards } from './ssrf.js';

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
  maxActiveJobsPerKey?: number;
  /** Chromium's nice above this process (priority.ts); 0 or none: the same priority. */
  browserNice?: number;
  bodyLimit?: number;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export interface RunningServer {
  url: string;
  /** Stops accepting requests, then fails running jobs with `reason`; pending jobs are resumed by the next start. */
  close(reason: string): Promise<void>;
}

export const DEFAULT_MAX_JOBS = 2;

/** Longest a shutdown waits for jobs to record their end; any still running are failed by the next start. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Resolves with `promise`, or after `ms` if that is sooner. */
async function atMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const home = webjobsHome(env);
  const keys = await loadKeys(options.keysFile, env);
  const allowHosts = new Set((options.allowHosts ?? []).map((h) => h.toLowerCase()));
  const { requestGuard, egressGuard } = options.allowPrivate ? {} : createGuards({ allow: allowHosts });
  // Status and listings are answered from memory where the header cannot have changed unseen (headerCache.ts).
  const store = new HeaderCache(new FileJobStore(home));
  const files = new JobFiles(home);
  let engine: Engine | undefined;
  const backend = new LocalBackend({
    store,
    pageCache: new FilePageCache(home),
    files,
    env,
    maxConcurrentJobs: options.maxJobs ?? DEFAULT_MAX_JOBS,
    createEngine: async () => {
      const { BrowserEngine } = await import('../engine/engine.js');
      engine = new BrowserEngine({ env, requestGuard, egressGuard, browserNice: options.browserNice });
      return engine;
    },
  });
  const owners = await JobOwners.open(home);
  const recovered = await recoverJobs(store, (jobId) => backend.enqueue(jobId));
  if (recovered.resumed.length + recovered.failed.length > 0) {
    log(`recovered jobs of a previous run: ${recovered.resumed.length} pending resumed, ${recovered.failed.length} interrupted marked failed`);
  }
  const app = buildApp({
    backend,
    keys,
    owners,
    allowPrivate: options.allowPrivate ?? false,
    allowHosts,
    files,
    maxActiveJobsPerKey: options.maxActiveJobsPerKey ?? SERVER_DEFAULTS.maxActiveJobsPerKey,
    bodyLimit: options.bodyLimit,
    log,
  });
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (err) {
    await backend.close('webjobs serve could not start');
    throw new EnvironmentError(`cannot listen on ${options.host}:${options.port}: ${(err as Error).message}`);
  }
  const { port } = app.server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: async (reason) => {
      await app.close();
      // close() aborts every running job, but a page that is loading does not
      // listen; closing the browser under it ends it now, failed with `reason`.
      const closing = backend.close(reason);
      await engine?.close().catch(() => undefined);
      await atMost(closing, SHUTDOWN_GRACE_MS);
    },
  };
}
