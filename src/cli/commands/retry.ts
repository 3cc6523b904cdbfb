/** `webjobs retry ID`: a new batch job for the pages of a batch or crawl job that failed. */
import { Command } from 'commander';
import type { JobBackend } from '../../api/backend.js';
import { UsageError } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import { isFinal, type BatchScrapeRequest } from '../../api/types.js';
import { withBackend } from '../backendFactory.js';
import { addManyPagesOptions, runManyPages, type ManyPagesFlags } from '../manyPages.js';
import { addRunOptions } from '../options.js';
import { resolveJobId } from './jobs.js';

/** The URLs of the failed entries of a batch or crawl job, in result order, read a result batch at a time. */
async function failedUrls(backend: JobBackend, kind: 'batch' | 'crawl', jobId: string): Promise<string[]> {
  const urls: string[] = [];
  const batchSize = LIMITS.maxResultBatchSize;
  for (let page = 1; ; page++) {
    const record = await backend.result(kind, jobId, { page, batchSize });
    for (const entry of record.data) if (entry.status === 'failed') urls.push(entry.url);
    if (page >= record.totalPageBatches) return urls;
  }
}

/**
 * The batch request that retries `jobId`'s failed pages with the options it ran
 * with (headers and cookies included); undefined when no page failed.
 */
async function retryRequest(backend: JobBackend, idOrPrefix: string): Promise<{ jobId: string; request?: BatchScrapeRequest }> {
  const jobId = await resolveJobId(backend, idOrPrefix);
  const { kind, status } = await backend.status(jobId);
  if (kind !== 'batch' && kind !== 'crawl') throw new UsageError(`retry is for batch and crawl jobs; ${jobId} is a ${kind} job (start it again with webjobs ${kind})`);
  if (!isFinal(status)) throw new UsageError(`job ${jobId} is still ${status}; wait for it (webjobs status ${jobId}) or cancel it first`);
  const original = await backend.request(jobId);
  if (original.kind !== 'batch' && original.kind !== 'crawl') throw new UsageError(`retry is for batch and crawl jobs; ${jobId} is a ${original.kind} job`);
  const urls = await failedUrls(backend, kind, jobId);
  if (urls.length === 0) return { jobId };
  const { scrapeOptions, sessionOptions } = original.request;
  const concurrency = original.kind === 'batch' ? original.request.concurrency : undefined;
  return { jobId, request: { urls, scrapeOptions, sessionOptions, ...(concurrency !== undefined ? { concurrency } : {}) } };
}

export function retryCommand(): Command {
  const cmd = new Command('retry')
    .summary('scrape the pages of a batch or crawl job that failed again')
    .description(
      `Start a new batch job for the pages of a batch or crawl job that failed, with the options that job
ran with (formats, timeouts, headers, cookies, session). The old job stays as it was. Prints, writes
and exits as webjobs batch does; nothing to retry (no page failed) is exit 0.`,
    )
    .argument('<jobId>', 'the job whose failed pages to retry: its id, or its first characters (at least 4) if they match one job');
  addManyPagesOptions(cmd);
  addRunOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs retry 3f2b6c1e
  $ webjobs retry $ID --output-dir pages/       # adds the pages that now succeed beside the others
  $ webjobs retry $ID --no-wait                 # prints the new job's id`,
  );
  return cmd.action(async (idOrPrefix: string, flags: ManyPagesFlags) => {
    const { jobId, request } = await withBackend(flags, (backend) => retryRequest(backend, idOrPrefix));
    if (!request) {
      if (!flags.quiet) process.stderr.write(`webjobs: no page of ${jobId} failed; nothing to retry\n`);
      return;
    }
    process.exitCode = await runManyPages('batch', request, flags, `Retrying ${request.urls.length} failed pages of ${jobId}`, request.urls.length);
  });
}
