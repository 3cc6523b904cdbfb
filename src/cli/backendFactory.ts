/** The one place that decides which back end a command talks to. */
import type { JobBackend } from '../api/backend.js';

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
  return createLocalBackend(env, choice.savedPages ?? true);
}

export async function createLocalBackend(env: NodeJS.ProcessEnv = process.env, savedPages = true) {
  const [{ LocalBackend }, { FileJobStore }, { FilePageCache }, { JobFiles }, { webjobsHome }] = await Promise.all([
    import('../local/localBackend.js'),
    import('../store/fileStore.js'),
    import('../store/pageCache.js'),
    import('../store/jobFiles.js'),
    import('../store/paths.js'),
  ]);
  const home = webjobsHome(env);
  return new LocalBackend({ store: new FileJobStore(home), pageCache: new FilePageCache(home), files: new JobFiles(home), env, savedPages });
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
