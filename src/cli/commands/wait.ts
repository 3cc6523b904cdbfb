/** `webjobs wait ID`: wait for a job started with --no-wait (or by another process) to end. */
import { count } from '../plural.js';
import { Command } from 'commander';
import { ExitCode, JobFailedError } from '../../api/errors.js';
import type { JobKind } from '../../api/types.js';
import { withBackend } from '../backendFactory.js';
import { entriesOf } from '../jobPages.js';
import { countEntries, describeProgress } from '../manyPages.js';
import { parseDuration, type RunFlags } from '../options.js';
import { writeOutput } from '../output.js';
import { startProgress } from '../terminal.js';
import { addBackendOptions, resolveJobId } from './jobs.js';

interface WaitFlags extends Pick<RunFlags, 'remote' | 'apiKey' | 'waitTimeout' | 'quiet' | 'progress'> {
  json?: boolean;
  kind?: JobKind;
}

export function waitCommand(): Command {
  const cmd = new Command('wait')
    .summary('wait for a job to end, e.g. one started with --no-wait')
    .description(
      'Wait for a job to end and print its final status (completed, failed or stopped); the exit code says how it ended, as the job command would have. Waiting does not change the job: Ctrl-C stops the wait, not the job.',
    )
    .argument('<jobId>', 'the id a job command printed, or its first characters (at least 4) if they match one job')
    .option('--json', 'print {"status": ...} as the service returns it')
    .option('--wait-timeout <duration>', 'stop waiting after this long (the job goes on), exit code 5: 90s, 10m, 2h; a bare number is seconds', parseDuration('--wait-timeout', { unit: 's', bare: 's', min: 0.001 }))
    .option('--progress', 'show progress on stderr even when stdout is piped or redirected (stderr must be a terminal)')
    .option('-q, --quiet', 'nothing on stderr but errors');
  addBackendOptions(cmd).addHelpText(
    'after',
    `
Examples:
  $ ID=$(webjobs batch --file urls.txt --no-wait)
  $ webjobs wait $ID && webjobs result $ID --output-dir pages/
  $ webjobs wait $ID --wait-timeout 10m --remote https://jobs.example.com

Exit codes: 0 the job completed (every page, for batch and crawl), 3 batch or crawl completed
but some pages failed, 1 the job failed or was stopped, 4 no job with that id, 5 --wait-timeout ran out.`,
  );
  return cmd.action(async (idOrPrefix: string, flags: WaitFlags) => {
    process.exitCode = await withBackend(flags, async (backend) => {
      const jobId = await resolveJobId(backend, idOrPrefix);
      const { kind } = await backend.status(jobId, flags.kind);
      const paged = kind === 'batch' || kind === 'crawl';
      const progress = await startProgress(`Waiting for ${kind} job ${jobId}`, flags);
      const started = Date.now();
      let status;
      try {
        status = await backend.wait(kind, jobId, {
          timeoutMs: flags.waitTimeout !== undefined ? flags.waitTimeout * 1000 : undefined,
          onProgress: paged ? (p) => progress.update(describeProgress(kind, p.total ?? 0)(p, Date.now() - started)) : undefined,
        });
      } finally {
        progress.stop();
      }
      await writeOutput(flags.json ? JSON.stringify({ status }) : status);
      if (status !== 'completed') {
        const record = await backend.result(kind, jobId, { page: 1, batchSize: 1 });
        throw new JobFailedError(`${kind} job ${jobId} ${status}: ${record.error ?? 'no reason given'}`);
      }
      if (!paged) return ExitCode.ok;
      const { failed, done } = await countEntries(entriesOf(backend, kind, jobId));
      if (failed > 0 && !flags.quiet) process.stderr.write(`webjobs: ${failed} of ${count(done, 'page')} failed (exit code 3)\n`);
      return failed > 0 ? ExitCode.partial : ExitCode.ok;
    });
  });
}
