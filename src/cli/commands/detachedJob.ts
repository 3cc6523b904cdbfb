import { Command } from 'commander';
import { createLocalBackend } from '../backendFactory.js';
import { LocalBackend } from '../../local/localBackend.js';

/** Internal: the detached process that runs a job started with --no-wait. */
export function detachedJobCommand(): Command {
  return new Command(LocalBackend.workerCommand)
    .argument('<jobId>')
    .action(async (jobId: string) => {
      const backend = await createLocalBackend();
      try {
        await backend.runStored(jobId);
      } finally {
        await backend.close();
      }
    });
}
