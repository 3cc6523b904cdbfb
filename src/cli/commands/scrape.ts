import { Command } from 'commander';
import { addRunOptions, addScrapeOptions, addSessionOptions, scrapeOptionsFrom, sessionOptionsFrom, type RunFlags, type ScrapeFlags, type SessionFlags } from '../options.js';
import { renderPage } from '../pageText.js';
import { renderRecord, runJob } from '../runJob.js';

export function scrapeCommand(): Command {
  const cmd = new Command('scrape')
    .summary('scrape one page into markdown, html or links')
    .description('Scrape one URL in a headless browser and print its main content as Markdown.')
    .argument('<url>', 'the page to scrape (http or https)');
  addScrapeOptions(cmd);
  addSessionOptions(cmd);
  addRunOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs scrape https://example.com
  $ webjobs scrape https://example.com --formats links
  $ webjobs scrape https://example.com --json | jq -r .data.metadata.title
  $ webjobs scrape https://example.com --no-only-main-content --exclude-tags 'nav,.ads' -o page.md`,
  );
  return cmd.action(async (url: string, flags: ScrapeFlags & SessionFlags & RunFlags) => {
    const request = { url, scrapeOptions: scrapeOptionsFrom(flags), sessionOptions: sessionOptionsFrom(flags) };
    process.exitCode = await runJob(
      'scrape',
      request,
      flags,
      { label: `Scraping ${url}` },
      renderRecord('scrape', flags, () => `scrape of ${url}`, (record) => renderPage(record.data!, flags.formats)),
    );
  });
}
