/** The one place that decides which back end a command talks to. */
import type { JobBackend } from '../api/backend.js';
import type { BrowserSettings } from '../engine/browser/browser.js';
import { errorMessage, UsageError } from '../api/errors.js';
import { parseDelayList } from './options.js';

export interface BackendChoice {
  remote?: string;
  apiKey?: string;
  /** Jobs run here may read saved pages (file://): true but for MCP, whose requests come from an agent. */
  savedPages?: boolean;
}

export async function createBackend(choice: BackendChoice = {}, env: NodeJS.ProcessEnv = process.env): Promise<JobBackend> {
  const remote = choice.remote ?? env.WEBJOBS_REMOTE;
  if (remote) {
    const { RemoteBackend } = await import('../remote/remoteBackend.js');
    return new RemoteBackend({ baseUrl: remote, apiKey: choice.apiKey ?? env.WEBJOBS_API_KEY });
  }
  return createLocalBackend(env, { savedPages: choice.savedPages ?? true });
}

/**
 * `guards`: the address guard of the browser and of plain fetches (webjobs mcp); none by default, the CLI runs as its user.
 * `savedPages`: whether paths and file:// URLs are read from this machine (the CLI's own jobs, not an agent's).
 */
export async function createLocalBackend(
  env: NodeJS.ProcessEnv = process.env,
  { guards, savedPages = true }: { guards?: Pick<BrowserSettings, 'requestGuard' | 'egressGuard'>; savedPages?: boolean } = {},
) {
  const [{ LocalBackend }, { FileJobStore }, { FilePageCache }, { JobFiles }, { webjobsHome }, { FileProfiles }, { Webhooks, CLI_RETRY_DELAYS_MS, countInRecord }] = await Promise.all([
    import('../local/localBackend.js'),
    import('../store/fileStore.js'),
    import('../store/pageCache.js'),
    import('../store/jobFiles.js'),
    import('../store/paths.js'),
    import('../store/profiles.js'),
    import('../jobs/webhooks/webhooks.js'),
  ]);
  const home = webjobsHome(env);
  const createEngine = guards
    ? async () => new (await import('../engine/engine.js')).BrowserEngine({ env, ...guards })
    : undefined;
  const store = new FileJobStore(home);
  // A job's webhook is sent while it runs; the command waits for its deliveries (retried sooner than serve's) before it exits.
  const webhooks = new Webhooks({
    secret: env.WEBJOBS_WEBHOOK_SECRET || undefined,
    retryDelaysMs: env.WEBJOBS_WEBHOOK_RETRY_DELAYS !== undefined ? envDelays(env.WEBJOBS_WEBHOOK_RETRY_DELAYS) : CLI_RETRY_DELAYS_MS,
    guard: guards?.egressGuard,
    log: (line) => process.stderr.write(`webjobs: ${line}\n`),
    count: countInRecord(store),
  });
  return new LocalBackend({ store, pageCache: new FilePageCache(home), files: new JobFiles(home), profiles: new FileProfiles(home), env, createEngine, savedPages, webhooks, drainWebhooks: true });
}

/** WEBJOBS_WEBHOOK_RETRY_DELAYS (e.g. 1s,5s,15s), a usage error when it cannot be read. */
function envDelays(value: string): number[] {
  try {
    return parseDelayList('WEBJOBS_WEBHOOK_RETRY_DELAYS')(value);
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
}

/** Runs `fn` with a back end and closes it however `fn` ends, so browsers and sockets never outlive a command. */
export async function withBackend<T>(choice: BackendChoice, fn: (backend: JobBackend) => Promise<T>): Promise<T> {
  const backend = await createBackend(choice);
  try {
    return await fn(backend);
  } finally {
    await backend.close();
  }
}
