/** Commands about jobs that already exist: status, result, jobs, cancel, prune. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { LIMITS } from '../../api/limits.js';
import type { JobBackend } from '../../api/backend.js';
import { DamagedRecordError, JobEndedError, JobFailedError, JobNotFoundError, UsageError } from '../../api/errors.js';
import { FINAL_STATUSES, FORMATS, isFinal, JOB_KINDS, JOB_STATUSES, type Format, type JobKind, type JobStatus, type JobSummary } from '../../api/types.js';
import { withBackend } from '../backendFactory.js';
import { writeStoredPages } from '../manyPages.js';
import { parseDuration, parseFormats, parseInteger, type RunFlags } from '../options.js';
import { entriesOf, writeMergedRecord, writeResultBatch } from '../jobPages.js';
import { openOutput, writeOutput } from '../output.js';
import { pageOutput } from '../screenshot.js';
import { forgetRunOptions } from '../runOptions.js';
import { quoted } from '../../api/quote.js';
import { countMarks, entryMarks, type PageCounts } from '../../api/pageCounts.js';

type BackendFlags = Pick<RunFlags, 'remote' | 'apiKey'>;

export function addBackendOptions(cmd: Command): Command {
  return cmd
    .option('--remote <url>', 'ask a webjobs service at this URL (env: WEBJOBS_REMOTE)')
    .option('--api-key <key>', 'API key for --remote (env: WEBJOBS_API_KEY)')
    .option('--kind <kind>', `the job's kind (${JOB_KINDS.join(', ')}); found by itself when omitted`, (value: string) => {
      if (!JOB_KINDS.includes(value as JobKind)) throw new InvalidArgumentError(`choose from ${JOB_KINDS.join(', ')}.`);
      return value as JobKind;
    });
}

const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A job id, or the start of one that matches exactly one known job (as git takes
 * a short commit hash): `webjobs status 3f2b6c`.
 */
export async function resolveJobId(backend: JobBackend, idOrPrefix: string): Promise<string> {
  if (FULL_ID.test(idOrPrefix) || !/^[0-9a-f-]{4,}$/i.test(idOrPrefix)) return idOrPrefix;
  const prefix = idOrPrefix.toLowerCase();
  const matches = (await backend.list()).filter((job) => job.jobId.startsWith(prefix));
  if (matches.length === 1) return matches[0]!.jobId;
  if (matches.length === 0) throw new JobNotFoundError(idOrPrefix);
  throw new UsageError(`${quoted(idOrPrefix)} matches ${matches.length} jobs (${matches.slice(0, 5).map((j) => j.jobId).join(', ')}${matches.length > 5 ? ', ...' : ''}); give more of the id`);
}

export function statusCommand(): Command {
  const cmd = new Command('status')
    .summary("print a job's status")
    .description(
      'Print the status of a job: pending, running, completed, failed or stopped. For a batch or crawl, the pages done so far follow on stderr ' +
        '(pages completed, failed, and changed with the changeTracking format), while it runs and after; stdout holds the status alone, for scripts.',
    )
    .argument('<jobId>', 'the id a job command printed, or its first characters (at least 4) if they match one job')
    .option('--json', 'print {"status": ...} as the service returns it')
    .option('-q, --quiet', 'only the status: no page counts on stderr');
  addBackendOptions(cmd).addHelpText('after', '\nExamples:\n  $ webjobs status 3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d\n  $ webjobs status $ID --remote https://jobs.example.com --json');
  return cmd.action(async (jobId: string, flags: BackendFlags & { json?: boolean; kind?: JobKind; quiet?: boolean }) => {
    await withBackend(flags, async (backend) => {
      const id = await resolveJobId(backend, jobId);
      const { status, kind } = await backend.status(id, flags.kind);
      await writeOutput(flags.json ? JSON.stringify({ status }) : status);
      if (!flags.json && !flags.quiet && (kind === 'batch' || kind === 'crawl') && status !== 'pending') {
        // The status is said; counts that cannot be read (a service without the result) are left out.
        const counts = await pageCounts(backend, kind, id).catch(() => undefined);
        if (counts) process.stderr.write(`webjobs: ${counts}\n`);
      }
    });
  });
}

/** The entries' counts as the back end keeps them (the file store: in pages.idx), else read entry by entry. */
export async function countPages(backend: JobBackend, kind: 'batch' | 'crawl', jobId: string): Promise<PageCounts> {
  const kept = await backend.pageCounts?.(kind, jobId);
  if (kept) return kept;
  const counts: PageCounts = { completed: 0, failed: 0, changed: 0 };
  for await (const entry of entriesOf(backend, kind, jobId)) countMarks(counts, entryMarks(entry));
  return counts;
}

/** "3 pages completed, 1 failed, 2 changed" (changed only with some). */
export function describeCounts({ completed, failed, changed }: PageCounts): string {
  return `${completed} page${completed === 1 ? '' : 's'} completed, ${failed} failed${changed > 0 ? `, ${changed} changed` : ''}`;
}

/** "3 pages completed, 1 failed, 2 changed": the entries of a batch or crawl stored so far. */
export async function pageCounts(backend: JobBackend, kind: 'batch' | 'crawl', jobId: string): Promise<string> {
  return describeCounts(await countPages(backend, kind, jobId));
}

/** Jobs whose pages `jobs` counts at once. */
const COUNTED_AT_ONCE = 4;

/**
 * `jobs`: each listed batch and crawl (not pending, nor damaged) with its page counts, read as `status` reads
 * them; a job whose entries cannot be read (removed meanwhile) is listed without.
 */
async function withCounts(backend: JobBackend, jobs: JobSummary[]): Promise<(JobSummary & { pages?: PageCounts })[]> {
  const counted: (JobSummary & { pages?: PageCounts })[] = jobs.map((job) => ({ ...job }));
  let next = 0;
  const worker = async () => {
    while (next < counted.length) {
      const job = counted[next++]!;
      if ((job.kind !== 'batch' && job.kind !== 'crawl') || job.status === 'pending' || job.status === 'unknown') continue;
      const pages = await countPages(backend, job.kind, job.jobId).catch(() => undefined);
      if (pages) job.pages = pages;
    }
  };
  await Promise.all(Array.from({ length: COUNTED_AT_ONCE }, worker));
  return counted;
}

export function resultCommand(): Command {
  const cmd = new Command('result')
    .summary("print a job's record, or write its pages")
    .description(
      'Print the record of a job as JSON, as the service returns it: a batch\'s or crawl\'s with every page entry merged into one "data" (as batch --json prints it), or one result batch with --page. ' +
        "With --content, print the pages' content instead (as the job command does); with --output-dir, write a batch's or crawl's pages as files: also for a job that was stopped, with the pages it did.",
    )
    .argument('<jobId>', 'the id a job command printed, or its first characters (at least 4) if they match one job')
    .option('--json', 'print the JSON record (the default; for scripts that pass --json to every command)')
    .option('--page <n>', 'only this result batch, 1-based, as the service pages it (batch and crawl jobs)', parseInteger('--page', 1))
    .option('--batch-size <n>', `with --page: page entries per result batch (default 100, at most ${LIMITS.maxResultBatchSize})`, parseInteger('--batch-size', 1, LIMITS.maxResultBatchSize))
    .option('--content', "print the pages' content (Markdown, or --formats) instead of the JSON record")
    .option('--output-dir <dir>', 'batch and crawl: write one file per page and format, and an index.json, into this folder')
    .option('--front-matter', 'with --output-dir: start each Markdown file with YAML front matter (title, url, sourceURL, statusCode, scrapedAt)')
    .option('-f, --formats <list>', `with --content or --output-dir: formats to write, comma-separated: ${FORMATS.join(', ')} (default: markdown)`, parseFormats)
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .option('-q, --quiet', 'nothing on stderr but errors (as the job commands take it)');
  addBackendOptions(cmd).addHelpText(
    'after',
    `
Examples:
  $ webjobs result $ID | jq .status
  $ webjobs result $ID | jq -r '.data[] | select(.status=="failed") | .url'   # every page of a batch or crawl
  $ webjobs result $ID --page 2 --batch-size 50 | jq -r '.data[].url'
  $ webjobs result $ID --output-dir pages/      # the pages of a batch or crawl, stopped ones included
  $ webjobs result $ID --content -o page.md`,
  );
  return cmd.action(async (jobId: string, flags: ResultFlags) => {
    if (flags.outputDir && (flags.output || flags.content)) throw new UsageError('--output-dir writes files itself; drop -o and --content');
    if (flags.formats && !flags.content && !flags.outputDir) throw new UsageError('--formats goes with --content or --output-dir');
    if (flags.frontMatter && !flags.outputDir) throw new UsageError('--front-matter goes with --output-dir');
    if (flags.json && (flags.outputDir || flags.content)) throw new UsageError(`--json prints the record; drop it or ${flags.outputDir ? '--output-dir' : '--content'}`);
    // Paged as the service pages it: --page, or --batch-size alone (its first result batch).
    const paged = flags.page !== undefined || flags.batchSize !== undefined;
    await withBackend(flags, async (backend) => {
      jobId = await resolveJobId(backend, jobId);
      const { kind } = await backend.status(jobId, flags.kind);
      if (flags.outputDir || flags.content) return writeContent(backend, kind, jobId, flags);
      if ((kind === 'batch' || kind === 'crawl') && !paged) return writeWholeRecord(backend, kind, jobId, flags.output);
      if (kind === 'batch' || kind === 'crawl') return writeResultBatch(kind, backend, jobId, { page: flags.page, batchSize: flags.batchSize }, flags.output);
      const record = await backend.result(kind, jobId);
      await writeOutput(JSON.stringify(record, null, 2), flags.output);
    });
  });
}

/** A batch's or crawl's record with every entry, written entry by entry. */
async function writeWholeRecord(backend: JobBackend, kind: 'batch' | 'crawl', jobId: string, output: string | undefined): Promise<void> {
  const out = await openOutput(output);
  try {
    await writeMergedRecord(out, backend, kind, jobId);
  } finally {
    await out.close();
  }
}

interface ResultFlags extends BackendFlags {
  json?: boolean;
  kind?: JobKind;
  page?: number;
  batchSize?: number;
  output?: string;
  content?: boolean;
  outputDir?: string;
  formats?: Format[];
  frontMatter?: boolean;
}

/** --content and --output-dir of `result`: what the job command would have printed or written. */
async function writeContent(backend: JobBackend, kind: JobKind, jobId: string, flags: ResultFlags): Promise<void> {
  if (kind === 'batch' || kind === 'crawl') return writeStoredPages(kind, backend, jobId, flags);
  if (flags.outputDir) throw new UsageError(`--output-dir is for batch and crawl jobs; ${jobId} is a ${kind} job (use --content -o FILE)`);
  if (kind === 'extract') {
    const record = await backend.result('extract', jobId);
    return writeOutput(JSON.stringify(record.data ?? null, null, 2), flags.output);
  }
  const record = await backend.result('scrape', jobId);
  if (!record.data) throw new JobFailedError(`scrape job ${jobId} ${record.status}: ${record.error ?? 'no content'}`);
  const content = await pageOutput(record.data, flags.formats, flags.output, flags.apiKey ?? process.env.WEBJOBS_API_KEY);
  await writeOutput(content, flags.output);
}

export function listCommand(): Command {
  const cmd = new Command('jobs')
    .summary('list jobs')
    .description(
      'List known jobs, newest first: id, kind, status, created, URL; for a batch or crawl, its pages completed, failed and changed so far (as status counts them), ' +
        'while it runs and after ("pages" in --json).',
    )
    .option('--json', 'print a JSON array, newest first')
    .addOption(new Option('--status <status>', 'only jobs in this state').choices([...JOB_STATUSES]))
    .option('--limit <n>', 'only the newest N jobs', parseInteger('--limit', 1));
  addBackendOptions(cmd).addHelpText(
    'after',
    '\nExamples:\n  $ webjobs jobs\n  $ webjobs jobs --status failed --limit 5\n  $ webjobs jobs --json | jq -r \'.[] | select(.status=="failed") | .jobId\'',
  );
  return cmd.action(async (flags: BackendFlags & { json?: boolean; status?: JobStatus; limit?: number }) => {
    await withBackend(flags, async (backend) => {
      // Newest first, as gh run list and docker ps; jobs created in the same millisecond keep the store's order, reversed.
      let jobs = (await backend.list()).reverse().sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
      if (flags.status) jobs = jobs.filter((job) => job.status === flags.status);
      if (flags.limit !== undefined) jobs = jobs.slice(0, flags.limit);
      const listed = await withCounts(backend, jobs);
      if (flags.json) return writeOutput(JSON.stringify(listed, null, 2));
      // Said on stderr: stdout stays empty, as a script reading the list expects.
      if (jobs.length === 0) {
        const none = flags.status ? `no ${flags.status} jobs` : 'no jobs yet; start one with: webjobs scrape URL';
        return void process.stderr.write(`webjobs: ${none}\n`);
      }
      const lines = listed.map((j) => [j.jobId, j.kind.padEnd(7), j.status.padEnd(9), j.createdAt, j.error ?? j.url, ...(j.pages ? [`(${describeCounts(j.pages)})`] : [])].join('  '));
      return writeOutput(lines.join('\n'));
    });
  });
}

export function cancelCommand(): Command {
  const cmd = new Command('cancel')
    .summary('stop a pending or running job')
    .description('Stop a job. It ends in the state "stopped"; pages already done stay readable. A job that had already ended is left as it is (exit 12).')
    .argument('<jobId>', 'the id a job command printed, or its first characters (at least 4) if they match one job');
  addBackendOptions(cmd).addHelpText('after', '\nExamples:\n  $ webjobs cancel $ID');
  return cmd.action(async (jobId: string, flags: BackendFlags & { kind?: JobKind }) => {
    await withBackend(flags, async (backend) => {
      const id = await resolveJobId(backend, jobId);
      const before = await backend.status(id, flags.kind);
      if (isFinal(before.status)) throw new JobEndedError(`${before.kind} job ${id} had already ended (${before.status}); nothing to cancel`);
      const { status } = await backend.cancel(id, flags.kind);
      await writeOutput(status);
    });
  });
}

/** --older-than 7d: a unit is required (a bare number would be ambiguous for an age); in milliseconds. */
export const parseAge = parseDuration('--older-than', { unit: 'ms' });

function parseFinalStatuses(value: string, previous: JobStatus[] = []): JobStatus[] {
  const statuses = value.split(',').map((v) => v.trim()).filter(Boolean);
  for (const status of statuses) {
    if (!FINAL_STATUSES.includes(status as JobStatus)) {
      throw new InvalidArgumentError(`${quoted(status)} is not a state a job ends in (choose from ${FINAL_STATUSES.join(', ')}).`);
    }
  }
  return [...previous, ...(statuses as JobStatus[])];
}

interface PruneFlags extends BackendFlags {
  olderThan?: number;
  status?: JobStatus[];
  dryRun?: boolean;
}

export function pruneCommand(): Command {
  const cmd = new Command('prune')
    .summary('delete old jobs, by age and status')
    .description(
      'Delete local jobs that have ended (completed, failed, stopped) with their pages, chosen by age, by status, or both. Jobs still pending or running are never deleted; damaged records are left alone. Prints the id of each deleted job (with --dry-run: each job it would delete).',
    )
    .option('--older-than <age>', 'only jobs created longer ago than this: 30m, 12h, 7d, 2w (a unit is needed)', parseAge)
    .option('--status <states>', `only jobs in these states, comma-separated: ${FINAL_STATUSES.join(', ')}`, parseFinalStatuses)
    .option('--dry-run', 'print what would be deleted, delete nothing')
    .option('--remote <url>', 'refused: a webjobs service keeps its jobs by its own rules');
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs prune --older-than 7d --status failed
  $ webjobs prune --older-than 30d              # every ended job older than 30 days
  $ webjobs prune --status stopped,failed --dry-run`,
  );
  return cmd.action(async (flags: PruneFlags) => {
    if (flags.olderThan === undefined && !flags.status) throw new UsageError('prune needs --older-than, --status or both (it never deletes every job at once)');
    await withBackend(flags, async (backend) => {
      const cutoff = flags.olderThan === undefined ? Infinity : Date.now() - flags.olderThan;
      const wanted = flags.status ?? FINAL_STATUSES;
      const listed = await backend.list();
      const chosen = listed.filter(
        (job) => job.status !== 'unknown' && wanted.includes(job.status) && (flags.olderThan === undefined || Date.parse(job.createdAt) < cutoff),
      );
      // Damaged records are left alone and said so: their state, so whether they are wanted, is unknown.
      const skip = (why: string) => process.stderr.write(`webjobs: skipped: ${why}\n`);
      let skipped = 0;
      for (const job of listed) {
        if (job.status !== 'unknown') continue;
        skipped++;
        skip(job.error ?? `job ${job.jobId} cannot be read`);
      }
      const deleted: string[] = [];
      for (const job of chosen) {
        try {
          if (flags.dryRun) deleted.push(job.jobId);
          else if (await backend.remove(job.jobId)) {
            // The options resume would go on with (runOptions.ts) go with the job.
            await forgetRunOptions(job.jobId);
            deleted.push(job.jobId);
          }
        } catch (err) {
          // A damaged record (its listed header is fine, its record is not) is left alone, as the listing's are.
          if (err instanceof JobNotFoundError) continue;
          if (!(err instanceof DamagedRecordError)) throw err;
          skipped++;
          skip(err.message);
        }
      }
      if (deleted.length > 0) await writeOutput(deleted.join('\n'));
      const left = skipped > 0 ? `; left ${skipped} damaged job${skipped === 1 ? '' : 's'} alone` : '';
      process.stderr.write(`webjobs: ${flags.dryRun ? 'would delete' : 'deleted'} ${deleted.length} job${deleted.length === 1 ? '' : 's'}${left}\n`);
    });
  });
}
