/** Commands about jobs that already exist: status, result, jobs, cancel. */
import { Command, InvalidArgumentError } from 'commander';
import { JOB_KINDS, type JobKind } from '../../api/types.js';
import { withBackend } from '../backendFactory.js';
import { parseInteger, type RunFlags } from '../options.js';
import { writeOutput } from '../output.js';

type BackendFlags = Pick<RunFlags, 'remote' | 'apiKey'>;

function addBackendOptions(cmd: Command): Command {
  return cmd
    .option('--remote <url>', 'ask a webjobs service at this URL (env: WEBJOBS_REMOTE)')
    .option('--api-key <key>', 'API key for --remote (env: WEBJOBS_API_KEY)')
    .option('--kind <kind>', `the job's kind (${JOB_KINDS.join(', ')}); found by itself when omitted`, (value: string) => {
      if (!JOB_KINDS.includes(value as JobKind)) throw new InvalidArgumentError(`choose from ${JOB_KINDS.join(', ')}.`);
      return value as JobKind;
    });
}

export function statusCommand(): Command {
  const cmd = new Command('status')
    .summary("print a job's status")
    .description('Print the status of a job: pending, running, completed, failed or stopped.')
    .argument('<jobId>', 'the id a job command printed')
    .option('--json', 'print {"status": ...} as the service returns it');
  addBackendOptions(cmd).addHelpText('after', '\nExamples:\n  $ webjobs status 3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d\n  $ webjobs status $ID --remote https://jobs.example.com --json');
  return cmd.action(async (jobId: string, flags: BackendFlags & { json?: boolean; kind?: JobKind }) => {
    await withBackend(flags, async (backend) => {
      const { status } = await backend.status(jobId, flags.kind);
      await writeOutput(flags.json ? JSON.stringify({ status }) : status);
    });
  });
}

export function resultCommand(): Command {
  const cmd = new Command('result')
    .summary("print a job's record")
    .description('Print the record of a job as JSON, as the service returns it. Batch and crawl records are paged.')
    .argument('<jobId>', 'the id a job command printed')
    .option('--page <n>', 'result batch to read, 1-based (batch and crawl jobs)', parseInteger('--page', 1))
    .option('--batch-size <n>', 'page entries per result batch (default 100, at most 1000)', parseInteger('--batch-size', 1))
    .option('-o, --output <file>', 'write to a file instead of stdout');
  addBackendOptions(cmd).addHelpText(
    'after',
    '\nExamples:\n  $ webjobs result $ID | jq .status\n  $ webjobs result $ID --page 2 --batch-size 50 | jq -r ".data[].url"',
  );
  return cmd.action(async (jobId: string, flags: BackendFlags & { kind?: JobKind; page?: number; batchSize?: number; output?: string }) => {
    await withBackend(flags, async (backend) => {
      const { kind } = await backend.status(jobId, flags.kind);
      const record = await backend.result(kind, jobId, { page: flags.page, batchSize: flags.batchSize });
      await writeOutput(JSON.stringify(record, null, 2), flags.output);
    });
  });
}

export function listCommand(): Command {
  const cmd = new Command('jobs')
    .summary('list jobs')
    .description('List known jobs, oldest first: id, kind, status, created, URL.')
    .option('--json', 'print a JSON array');
  addBackendOptions(cmd).addHelpText('after', '\nExamples:\n  $ webjobs jobs\n  $ webjobs jobs --json | jq -r \'.[] | select(.status=="failed") | .jobId\'');
  return cmd.action(async (flags: BackendFlags & { json?: boolean }) => {
    await withBackend(flags, async (backend) => {
      const jobs = await backend.list();
      if (flags.json) return writeOutput(JSON.stringify(jobs, null, 2));
      const lines = jobs.map((j) => [j.jobId, j.kind.padEnd(7), j.status.padEnd(9), j.createdAt, j.error ?? j.url].join('  '));
      return writeOutput(lines.join('\n'));
    });
  });
}

export function cancelCommand(): Command {
  const cmd = new Command('cancel')
    .summary('stop a pending or running job')
    .description('Stop a job. It ends in the state "stopped"; pages already done stay readable.')
    .argument('<jobId>', 'the id a job command printed');
  addBackendOptions(cmd).addHelpText('after', '\nExamples:\n  $ webjobs cancel $ID');
  return cmd.action(async (jobId: string, flags: BackendFlags & { kind?: JobKind }) => {
    await withBackend(flags, async (backend) => {
      const { status } = await backend.cancel(jobId, flags.kind);
      await writeOutput(status);
    });
  });
}
