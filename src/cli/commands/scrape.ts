import { Command } from 'commander';
import type { PageData } from '../../api/types.js';
import { addRunOptions, addScrapeOptions, addSessionOptions, scrapeOptionsFrom, sessionOptionsFrom, type RunFlags, type ScrapeFlags, type SessionFlags } from '../options.js';
import { addFailOption, checkPage, type FailFlags } from '../pageChecks.js';
import { pageOutput } from '../screenshot.js';
import { renderRecord, runJob } from '../runJob.js';

/**
 * --include-tags that matched nothing leaves the page empty, which a script would
 * store as a success: said on stderr (the exit code stays 0: the page is what it is).
 */
function warnIfNothingIncluded(data: PageData, flags: ScrapeFlags & RunFlags): void {
  if (!flags.includeTags?.length || flags.quiet) return;
  if ((data.markdown ?? '').trim() !== '' || (data.html ?? '').trim() !== '') return;
  process.stderr.write(`webjobs: warning: --include-tags ${flags.includeTags.join(',')} matched nothing on ${data.metadata.url}\n`);
}

export function scrapeCommand(): Command {
  const cmd = new Command('scrape')
    .summary('scrape one page into markdown, html or links')
    .description('Scrape one URL in a headless browser and print its main content as Markdown.')
    .argument('<url>', 'the page to scrape (http or https)');
  addScrapeOptions(cmd);
  addSessionOptions(cmd);
  addRunOptions(cmd);
  addFailOption(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs scrape https://example.com
  $ webjobs scrape https://example.com --formats links
  $ webjobs scrape https://example.com --json | jq -r .data.metadata.title
  $ webjobs scrape https://example.com --no-only-main-content --exclude-tags 'nav,.ads' -o page.md
  $ webjobs scrape https://intranet.example.com --header "Authorization: Bearer $TOKEN" --cookies cookies.txt
  $ webjobs scrape https://example.com/status --fail -o status.md   # cron: a 4xx/5xx answer keeps the old file, exit 1
  $ webjobs scrape https://example.com --formats screenshot -o shot.png

Headers go only to the origin of the URL; each cookie only to its own domain (README: Pages behind a login).`,
  );
  return cmd.action(async (url: string, flags: ScrapeFlags & SessionFlags & RunFlags & FailFlags) => {
    const request = { url, scrapeOptions: scrapeOptionsFrom(flags), sessionOptions: sessionOptionsFrom(flags) };
    process.exitCode = await runJob(
      'scrape',
      request,
      flags,
      { label: `Scraping ${url}` },
      renderRecord(
        'scrape',
        flags,
        () => `scrape of ${url}`,
        (record) => pageOutput(record.data!, flags.formats, flags.output, flags.apiKey ?? process.env.WEBJOBS_API_KEY),
        (record) => {
          checkPage(record.data!, url, flags);
          warnIfNothingIncluded(record.data!, flags);
        },
      ),
    );
  });
}
