/**
 * `webjobs retry ID`: a new batch job for the pages of a batch or crawl job that
 * failed; for a scrape or extract job that did not complete, the same job again.
 */
import { count } from '../plural.js';
import { Command } from 'commander';
import type { JobBackend } from '../../api/backend.js';
import { DamagedRecordError, NotResumableError, UsageError } from '../../api/errors.js';
import { isFinal, type BatchScrapeRequest, type ExtractRequest, type JobKind, type JobStatus, type ScrapeRequest } from '../../api/types.js';
import { withBackend } from '../backendFactory.js';
import { entriesOf } from '../jobPages.js';
import { addManyPagesOptions, runManyPages, type ManyPagesFlags } from '../manyPages.js';
import { addRunOptions, parseDuration } from '../options.js';
import { LIMITS } from '../../api/limits.js';
import { renderPage } from '../../api/renderPage.js';
import { renderRecord, runJob } from '../runJob.js';
import { resolveJobId } from './jobs.js';

/** The URLs of the failed entries of a batch or crawl job, in result order, read a result batch at a time. */
async function failedUrls(backend: JobBackend, kind: 'batch' | 'crawl', jobId: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const entry of entriesOf(backend, kind, jobId)) if (entry.status === 'failed') urls.push(entry.url);
  return urls;
}

/**
 * failedUrls; a job whose stored entries cannot be read (DamagedRecordError) is mended first where the back end
 * can (`mend`): those entries become failed entries saying they were lost, and are retried with the rest.
 */
async function failedOrLostUrls(backend: JobBackend, kind: 'batch' | 'crawl', jobId: string, say: (line: string) => void): Promise<string[]> {
  try {
    return await failedUrls(backend, kind, jobId);
  } catch (err) {
    if (!(err instanceof DamagedRecordError) || !backend.mend) throw err;
    const { lost } = await backend.mend(jobId);
    say(`${err.message.replace(/; webjobs resume .*$/, '')}: mended, ${count(lost, 'entry that could not be read', 'entries that could not be read')} stored as failed and retried`);
    return failedUrls(backend, kind, jobId);
  }
}

/** What retrying a job starts: a batch of its failed pages, or (scrape, extract) its own request again; none when nothing failed. */
type Retry =
  | { jobId: string; kind: 'batch'; request?: BatchScrapeRequest }
  | { jobId: string; kind: 'scrape'; request?: ScrapeRequest }
  | { jobId: string; kind: 'extract'; request?: ExtractRequest };

/**
 * The request that retries `jobId` with the options it ran with (headers and
 * cookies included): for a batch or crawl, a batch of the pages that failed; for
 * a scrape or extract that failed or was stopped, the same request.
 */
async function retryRequest(backend: JobBackend, idOrPrefix: string, say: (line: string) => void): Promise<Retry> {
  const jobId = await resolveJobId(backend, idOrPrefix);
  const { kind, status } = await backend.status(jobId);
  stillRuns(jobId, kind, status);
  const retry = await retryOf(backend, jobId, kind, status, say);
  // Another process may have resumed the job while its pages were read (what they said is no longer so).
  const now = await backend.status(jobId);
  stillRuns(jobId, now.kind, now.status);
  return retry;
}

/**
 * Refuses a job that is not over: its process, or another resuming it (webjobs resume), is at work. Exit 11,
 * as resume says of a job that still runs.
 */
function stillRuns(jobId: string, kind: string, status: JobStatus): void {
  if (isFinal(status)) return;
  throw new NotResumableError(`${kind} job ${jobId} is still ${status} (its process, or one resuming it, is at work); wait for it (webjobs wait ${jobId}) or cancel it first`);
}

async function retryOf(backend: JobBackend, jobId: string, kind: JobKind, status: JobStatus, say: (line: string) => void): Promise<Retry> {
  const original = await backend.request(jobId);
  if (original.kind === 'scrape') return { jobId, kind: 'scrape', ...(status !== 'completed' ? { request: original.request } : {}) };
  if (original.kind === 'extract') return { jobId, kind: 'extract', ...(status !== 'completed' ? { request: original.request } : {}) };
  if (kind !== 'batch' && kind !== 'crawl') throw new UsageError(`webjobs retry does not know ${kind} jobs`);
  const urls = await failedOrLostUrls(backend, kind, jobId, say);
  if (urls.length === 0) return { jobId, kind: 'batch' };
  const { scrapeOptions, sessionOptions } = original.request;
  const concurrency = original.kind === 'batch' ? original.request.concurrency : undefined;
  const fail = original.request.failOnHttpError ? { failOnHttpError: true } : {};
  return { jobId, kind: 'batch', request: { urls, scrapeOptions, sessionOptions, ...(concurrency !== undefined ? { concurrency } : {}), ...fail } };
}

/** A scrape or extract job again, printed as `webjobs scrape` / `webjobs extract` print it. */
async function runAgain(retry: Extract<Retry, { kind: 'scrape' | 'extract' }>, flags: ManyPagesFlags): Promise<number> {
  const manyOnly = [flags.jsonl && '--jsonl', flags.outputDir && '--output-dir', flags.frontMatter && '--front-matter'].filter(Boolean);
  if (manyOnly.length > 0) throw new UsageError(`${manyOnly.join(' and ')} go with a batch or crawl job; ${retry.jobId} is a ${retry.kind} job`);
  const label = `Retrying ${retry.kind} job ${retry.jobId}`;
  if (retry.kind === 'scrape') {
    const formats = retry.request!.scrapeOptions?.formats;
    const render = renderRecord('scrape', flags, (jobId) => `scrape job ${jobId}`, (record) => renderPage(record.data!, formats));
    return runJob('scrape', retry.request!, flags, { label }, render);
  }
  const render = renderRecord('extract', flags, (jobId) => `extract job ${jobId}`, (record) => JSON.stringify(record.data ?? null, null, 2));
  return runJob('extract', retry.request!, flags, { label }, render);
}

export function retryCommand(): Command {
  const cmd = new Command('retry')
    .summary('run the failed pages of a job again')
    .description(
      `Start a new batch job for the pages of a batch or crawl job that failed, with the options that job
ran with (formats, timeouts, headers, cookies, session); prints, writes and exits as webjobs batch does.
A scrape or extract job that failed or was stopped starts again with its own request, and prints as
webjobs scrape / extract do. The old job stays as it was, but for entries its store can no longer read
(result exits 8): they are stored as failed (lost) and run again. Nothing to retry (no page failed, or the
job completed) is exit 0.`,
    )
    .argument('<jobId>', 'the job to retry: its id, or its first characters (at least 4) if they match one job');
  addManyPagesOptions(cmd);
  addRunOptions(cmd);
  cmd.option(
    '--timeout <duration>',
    'time allowed to load each page, in place of the one the job ran with: 500ms, 20s, 2m; a bare number is ms',
    parseDuration('--timeout', { unit: 'ms', bare: 'ms', min: 1, max: LIMITS.maxTimeoutMs }),
  );
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs retry 3f2b6c1e
  $ webjobs retry $ID --output-dir pages/       # adds the pages that now succeed beside the others
  $ webjobs retry $ID --timeout 60s             # pages that timed out, given longer
  $ webjobs retry $ID --no-wait                 # prints the new job's id`,
  );
  return cmd.action(async (idOrPrefix: string, flags: ManyPagesFlags & { timeout?: number }) => {
    const say = (line: string) => void (flags.quiet || process.stderr.write(`webjobs: ${line}\n`));
    const retry = await withBackend(flags, (backend) => retryRequest(backend, idOrPrefix, say));
    if (flags.timeout !== undefined) {
      if (retry.kind === 'extract') throw new UsageError('--timeout goes with a batch, crawl or scrape job; an extract job has its own timeouts');
      if (retry.request) retry.request.scrapeOptions = { ...retry.request.scrapeOptions, timeout: flags.timeout };
    }
    if (!retry.request) {
      const what = retry.kind === 'batch' ? `no page of ${retry.jobId} failed` : `${retry.kind} job ${retry.jobId} completed`;
      if (!flags.quiet) process.stderr.write(`webjobs: ${what}; nothing to retry\n`);
      return;
    }
    if (retry.kind !== 'batch') {
      process.exitCode = await runAgain(retry, flags);
      return;
    }
    const { request } = retry;
    process.exitCode = await runManyPages('batch', request, flags, `Retrying ${count(request.urls.length, 'failed page')} of ${retry.jobId}`, request.urls.length);
  });
}
