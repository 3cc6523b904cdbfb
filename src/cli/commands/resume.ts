/**
 * `webjobs resume ID`: a stopped or interrupted batch or crawl goes on in the same
 * job (jobs/resume.ts says which may), keeping the pages it stored; then it is
 * waited for and written out as webjobs batch / crawl do.
 */
import { Command } from 'commander';
import type { JobBackend } from '../../api/backend.js';
import { ExitCode, UnsupportedError } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { JobRequestByKind } from '../../api/types.js';
import { withBackend } from '../backendFactory.js';
import { addManyPagesOptions, runManyPages, type ManyKind, type ManyPagesFlags } from '../manyPages.js';
import { addRunOptions } from '../options.js';
import { addFailOption } from '../pageChecks.js';
import { withKeptOptions } from '../runOptions.js';
import { resolveJobId } from './jobs.js';

interface Resumable {
  jobId: string;
  kind: ManyKind;
  /** The job's request where the back end gives it (locally; a service does not). */
  request?: JobRequestByKind[ManyKind];
  /** Batch: its URL count; crawl: its maxPages. */
  total: number;
}

async function resumable(backend: JobBackend, idOrPrefix: string): Promise<Resumable> {
  const jobId = await resolveJobId(backend, idOrPrefix);
  const { kind } = await backend.status(jobId);
  if (!backend.resume) throw UnsupportedError.of('resume', 'this back end');
  // A scrape or extract is refused by the back end, saying why.
  if (kind !== 'batch' && kind !== 'crawl') throw await backend.resume(jobId, kind).then(() => new Error(`${kind} job ${jobId} resumed`), (err: unknown) => err);
  const start = await backend.request(jobId).catch(() => undefined);
  const request = start?.request as JobRequestByKind[ManyKind] | undefined;
  if (kind === 'crawl') return { jobId, kind, request, total: (request as JobRequestByKind['crawl'] | undefined)?.maxPages ?? LIMITS.defaultCrawlPages };
  const urls = (request as JobRequestByKind['batch'] | undefined)?.urls.length;
  // A batch's result lists every URL: with one entry a result batch, its batches are its URLs.
  return { jobId, kind, request, total: urls ?? (await backend.result(kind, jobId, { page: 1, batchSize: 1 })).totalPageBatches };
}

export function resumeCommand(): Command {
  const cmd = new Command('resume')
    .summary('go on with a stopped or interrupted batch or crawl')
    .description(
      'Go on with a batch or crawl that was stopped (Ctrl-C, SIGTERM, webjobs cancel) or interrupted (kill -9, a crash, a reboot, ' +
        'serve shut down) in the same job: the pages it stored are kept and never fetched again; a crawl goes on from its frontier, ' +
        "its seen URLs and each host's politeness delay (robots.txt is read again). A page that was loading when the job stopped " +
        '(in a crawl, or loaded and waiting for an earlier one to be stored) is fetched again. Prints, writes and exits as ' +
        "webjobs batch / crawl do, with the whole job's pages (--jsonl prints those done by this run).",
    )
    .argument('<jobId>', 'the job to resume: its id, or its first characters (at least 4) if they match one job');
  addManyPagesOptions(cmd);
  addRunOptions(cmd);
  addFailOption(cmd);
  cmd.option('--exit-code', `with the changeTracking format: exit ${ExitCode.changed} when a page is new, changed or removed (kept from the command that started the job)`);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs crawl https://example.com --max-pages 5000 --output-dir site/
  ^C
  webjobs: interrupted (SIGINT): crawl job 3f2b6c1e-… stopped, 812 pages done; … or go on with: webjobs resume 3f2b6c1e-…
  $ webjobs resume 3f2b6c1e                      # into site/ again, as the crawl was started
  $ webjobs resume 3f2b6c1e --output-dir copy/     # a flag given again wins
  $ webjobs resume $ID --remote https://jobs.example.com --no-wait

The job goes on as it was started: into the same --output-dir or -o (or --json, --jsonl), with its formats,
--exit-code and --fail (kept in WEBJOBS_HOME/runs/ by the command that started it); an output given again
replaces the kept one.

Exit codes: as webjobs batch / crawl (0 every page completed, 3 some pages failed, 10 with --exit-code a page
is new or changed, in this run or an earlier one of the job, 1 the job failed,
130/143 stopped again, resumable again); 4 no job with that id; 11 the job cannot resume: it completed,
failed on its own (not by an interruption), still runs, or is a scrape or extract (webjobs retry runs
those again). Nothing in the store changes then. A job whose stored entries cannot be read (result exits 8)
resumes whatever its end: the store is mended and those entries are done again.`,
  );
  return cmd.action(async (idOrPrefix: string, given: ManyPagesFlags) => {
    const job = await withBackend(given, (backend) => resumable(backend, idOrPrefix));
    // As the job was started: its --output-dir or -o, formats, --exit-code and --fail, unless given again.
    const flags = await withKeptOptions(job.jobId, given);
    flags.formats ??= job.request?.scrapeOptions?.formats;
    const label = `Resuming ${job.kind} job ${job.jobId}`;
    process.exitCode = await runManyPages(job.kind, job.request, flags, label, job.total, async (backend, options) => {
      await backend.resume!(job.jobId, job.kind, options);
      return { jobId: job.jobId };
    });
  });
}
