import { Command } from 'commander';
import { count } from '../plural.js';
import { addWebhookOption, webhookFrom, type WebhookFlags } from '../webhookOption.js';
import { LimitError, UsageError } from '../../api/errors.js';
import { MAX_URL_LIST_BYTES, pageInput, readUrlList, type Sourced } from '../inputs.js';
import { LIMITS } from '../../api/limits.js';
import { validateUrl } from '../../api/validate.js';
import { addConcurrencyOption, addDelayOption, addManyPagesOptions, delayFrom, runManyPages, type ManyPagesFlags, type PolitenessFlags } from '../manyPages.js';
import { addFailOption } from '../pageChecks.js';
import { addRunOptions, addScrapeOptions, addSessionOptions, scrapeOptionsFrom, sessionOptionsFrom, type ScrapeFlags, type SessionFlags } from '../options.js';
import { thousands } from '../../api/thousands.js';

interface BatchFlags extends WebhookFlags, ScrapeFlags, SessionFlags, ManyPagesFlags, PolitenessFlags {
  file?: string;
  concurrency?: number;
}

/**
 * The URLs of the arguments, then of --file, then of stdin ('-'); an argument or
 * a line naming an existing file is that saved page (inputs.ts).
 */
async function collectUrls(args: string[], file: string | undefined, remote: boolean): Promise<Sourced[]> {
  const sources: Sourced[] = [];
  const fromStdin = file === '-' || args.includes('-');
  args.forEach((arg, i) => {
    if (arg !== '-') sources.push({ url: arg, where: `argument ${i + 1}` });
  });
  if (file && file !== '-') sources.push(...(await readUrlList(file)));
  if (fromStdin) sources.push(...(await readUrlList('-')));
  if (sources.length > LIMITS.maxBatchUrls) return sources; // refused by checkUrls, before a file is looked at
  return Promise.all(
    sources.map((source) =>
      pageInput(source.url, { remote }).then(
        (url) => ({ ...source, url }),
        (err: Error) => ({ ...source, problem: `${source.where}: ${err.message}` }),
      ),
    ),
  );
}

/** The whole list is checked before a job exists: a limit or a bad line refuses it, with every bad line named. */
export function checkUrls(sources: Sourced[]): string[] {
  if (sources.length === 0) throw new UsageError('no URLs given: pass them as arguments, with --file FILE, or on stdin with -');
  if (sources.length > LIMITS.maxBatchUrls) {
    throw new LimitError(`${sources.length} URLs given; a batch takes at most ${thousands(LIMITS.maxBatchUrls)}. Split the list into several batches.`);
  }
  const problems: string[] = [];
  const urls = sources.map((source) => {
    try {
      if (source.problem) throw new UsageError(source.problem);
      return validateUrl(source.url, source.where, { savedPages: true });
    } catch (err) {
      problems.push((err as Error).message);
      return '';
    }
  });
  if (problems.length > 0) {
    const more = problems.length > 20 ? `\n  (and ${problems.length - 20} more)` : '';
    throw new UsageError(`${problems.length} invalid URL(s), nothing was scraped:\n  ${problems.slice(0, 20).join('\n  ')}${more}`);
  }
  return urls;
}

export function batchCommand(): Command {
  const cmd = new Command('batch')
    .summary('scrape many pages (up to 1,000) in one job')
    .description('Scrape a list of URLs in one job. Pages come back in the order given, duplicates included; a page that fails does not stop the others.')
    .argument('[urls...]', 'pages to scrape: URLs, or paths of saved pages; "-" reads URLs from stdin')
    .option('--file <file>', `read URLs (or paths of saved pages) from a file, one a line (# comments and blank lines skipped; at most ${thousands(LIMITS.maxBatchUrls)} URLs and ${MAX_URL_LIST_BYTES / 1024 / 1024} MB); "-" for stdin`);
  addScrapeOptions(cmd);
  addSessionOptions(cmd);
  addConcurrencyOption(cmd);
  addDelayOption(cmd);
  addWebhookOption(cmd);
  addRunOptions(cmd);
  addManyPagesOptions(cmd);
  addFailOption(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs batch https://example.com/a https://example.com/b
  $ webjobs batch --file urls.txt --output-dir pages/
  $ grep -v '^#' urls.txt | webjobs batch - --jsonl | jq -r 'select(.status=="failed") | .url'
  $ webjobs batch --file urls.txt --json --concurrency 4 -o batch.json
  $ webjobs batch --file urls.txt --header "Authorization: Bearer $TOKEN" --output-dir pages/
  $ webjobs batch --file urls.txt --fail --output-dir pages/   # a 404 or 500 page is a failed page (exit 3)
  $ webjobs batch --file urls.txt --actions actions.json --profile shop --output-dir pages/   # the same actions on every page
  $ WEBJOBS_WEBHOOK_SECRET=s3cret webjobs batch --file urls.txt --webhook https://hooks.example.com/webjobs

Exit codes: 0 every page completed, 3 the job completed but some pages failed (with --fail, an HTTP error too),
10 with --exit-code and --formats markdown,changeTracking: a page is new or changed since the last run,
1 the job failed, 2 bad usage (more than 1,000 URLs, an invalid URL: its line is named),
130/143 Ctrl-C/SIGTERM: the job is stopped, pages done kept (read them with webjobs result ID),
141 stdout closed (| head): a quiet stop.`,
  );
  return cmd.action(async (args: string[], flags: BatchFlags) => {
    const urls = checkUrls(await collectUrls(args, flags.file, Boolean(flags.remote ?? process.env.WEBJOBS_REMOTE)));
    const request = {
      urls,
      scrapeOptions: scrapeOptionsFrom(flags),
      sessionOptions: sessionOptionsFrom(flags),
      ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
      ...delayFrom(flags),
      ...(flags.fail ? { failOnHttpError: true } : {}),
      ...webhookFrom(flags),
    };
    process.exitCode = await runManyPages('batch', request, flags, `Scraping ${count(urls.length, 'page')}`, urls.length);
  });
}
