/** The one place that decides which back end a command talks to. */
import type { JobBackend } from '../api/backend.js';
import { UsageError } from '../api/errors.js';

export interface BackendChoice {
  remote?: string;
  apiKey?: string;
}

export async function createBackend(choice: BackendChoice = {}, env: NodeJS.ProcessEnv = process.env): Promise<JobBackend> {
  const remote = choice.remote ?? env.WEBJOBS_REMOTE;
  if (remote) {
    throw new UsageError(`remote mode (${remote}) is not available in this build yet`);
  }
  return createLocalBackend(env);
}

export async function createLocalBackend(env: NodeJS.ProcessEnv = process.env) {
  const [{ LocalBackend }, { FileJobStore }, { webjobsHome }] = await Promise.all([
    import('../local/localBackend.js'),
    import('../store/fileStore.js'),
    import('../store/paths.js'),
  ]);
  return new LocalBackend({ store: new FileJobStore(webjobsHome(env)), env });
}
