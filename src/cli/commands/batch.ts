import { promises as fs } from 'node:fs';
import { Command } from 'commander';
import { LimitError, UsageError } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import { validateEach } from '../../api/validate.js';
import { addConcurrencyOption, addDelayOption, addManyPagesOptions, delayFrom, runManyPages, type ManyPagesFlags, type PolitenessFlags } from '../manyPages.js';
import { addFailOption } from '../pageChecks.js';
import { addRunOptions, addScrapeOptions, addSessionOptions, scrapeOptionsFrom, sessionOptionsFrom, type ScrapeFlags, type SessionFlags } from '../options.js';

interface BatchFlags extends ScrapeFlags, SessionFlags, ManyPagesFlags, PolitenessFlags {
  file?: string;
  concurrency?: number;
}

/** A URL and where the user wrote it, so errors can point at the line. */
interface Sourced {
  url: string;
  where: string;
}

async function readText(file: string): Promise<string> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

/** One URL a line; blank lines and lines starting with # are skipped but still counted for line numbers. */
export function urlsFromText(text: string, name: string): Sourced[] {
  const found: Sourced[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    found.push({ url: trimmed, where: `${name} line ${i + 1}` });
  });
  return found;
}

async function collectUrls(args: string[], file: string | undefined): Promise<Sourced[]> {
  const sources: Sourced[] = [];
  const fromStdin = file === '-' || args.includes('-');
  args.forEach((arg, i) => {
    if (arg !== '-') sources.push({ url: arg, where: `argument ${i + 1}` });
  });
  if (file && file !== '-') sources.push(...urlsFromText(await readText(file), file));
  if (fromStdin) sources.push(...urlsFromText(await readText('-'), 'stdin'));
  return sources;
}

/** The whole list is checked before a job exists: a limit or a bad line refuses it, with every bad line named. */
export function checkUrls(sources: Sourced[]): string[] {
  if (sources.length === 0) throw new UsageError('no URLs given: pass them as arguments, with --file FILE, or on stdin with -');
  if (sources.length > LIMITS.maxBatchUrls) {
    throw new LimitError(`${sources.length} URLs given; a batch takes at most ${LIMITS.maxBatchUrls.toLocaleString('en-US')}. Split the list into several batches.`);
  }
  const { urls, problems } = validateEach(
    sources.map((source) => source.url),
    (i) => sources[i]!.where,
  );
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
    .argument('[urls...]', 'pages to scrape; "-" reads URLs from stdin')
    .option('--file <file>', 'read URLs from a file, one a line (# comments and blank lines skipped); "-" for stdin');
  addScrapeOptions(cmd);
  addSessionOptions(cmd);
  addConcurrencyOption(cmd);
  addDelayOption(cmd);
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

Exit codes: 0 every page completed, 3 the job completed but some pages failed (with --fail, an HTTP error too),
1 the job failed, 2 bad usage (more than 1,000 URLs, an invalid URL: its line is named),
130/143 Ctrl-C/SIGTERM: the job is stopped, pages done kept (read them with webjobs result ID),
141 stdout closed (| head): a quiet stop.`,
  );
  return cmd.action(async (args: string[], flags: BatchFlags) => {
    const urls = checkUrls(await collectUrls(args, flags.file));
    const request = {
      urls,
      scrapeOptions: scrapeOptionsFrom(flags),
      sessionOptions: sessionOptionsFrom(flags),
      ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
      ...delayFrom(flags),
    };
    process.exitCode = await runManyPages('batch', request, flags, `Scraping ${urls.length} pages`, urls.length);
  });
}
