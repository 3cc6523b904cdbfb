import { promises as fs } from 'node:fs';
import { checkOutputFormats, resolveOutput } from '../output.js';
import { Command } from 'commander';
import type { PageData } from '../../api/types.js';
import { addRunOptions, addScrapeOptions, changedPage, addSessionOptions, scrapeOptionsFrom, sessionOptionsFrom, type RunFlags, type ScrapeFlags, type SessionFlags } from '../options.js';
import { addFailOption, checkPage, type FailFlags } from '../pageChecks.js';
import { pageOutput } from '../screenshot.js';
import { ExitCode, UsageError } from '../../api/errors.js';
import { pageInput, readStdinPage } from '../inputs.js';
import { printable } from '../printable.js';
import { renderRecord, runJob } from '../runJob.js';
import { frontMatterOf } from '../outputDir.js';

/**
 * --include-tags that matched nothing leaves the page empty, which a script would
 * store as a success: said on stderr (the exit code stays 0: the page is what it is).
 */
function warnIfNothingIncluded(data: PageData, flags: ScrapeFlags & RunFlags): void {
  if (!flags.includeTags?.length || flags.quiet) return;
  if ((data.markdown ?? '').trim() !== '' || (data.html ?? '').trim() !== '') return;
  process.stderr.write(`webjobs: warning: --include-tags ${printable(flags.includeTags.join(','))} matched nothing on ${data.metadata.url}\n`);
}

/** The page the argument names: a URL, a saved page's path, or '-' for HTML on stdin (then a file removed at the end). */
async function pageOf(arg: string, flags: RunFlags): Promise<{ url: string; remove?: () => Promise<void> }> {
  const remote = Boolean(flags.remote ?? process.env.WEBJOBS_REMOTE);
  if (arg !== '-') return { url: await pageInput(arg, { remote }) };
  if (remote) throw new UsageError('a page on stdin is read on this machine: --remote reads http(s) URLs only; drop --remote');
  if (!flags.wait || flags.waitTimeout !== undefined) {
    throw new UsageError(`a page on stdin is read while webjobs waits: drop ${flags.wait ? '--wait-timeout' : '--no-wait'}, or save the page to a file and scrape that`);
  }
  return readStdinPage();
}

export function scrapeCommand(): Command {
  const cmd = new Command('scrape')
    .summary('scrape one page into markdown, html or links')
    .description(
      'Scrape one page and print its main content as Markdown. A URL is read over HTTP, or rendered in Chromium when the page needs it (--engine); a saved page (a path, or - for HTML on stdin) is read on this machine, offline.',
    )
    .argument('<url>', 'the page to scrape: an http(s) URL, the path of a saved page, or - for HTML on stdin');
  addScrapeOptions(cmd);
  addSessionOptions(cmd);
  addRunOptions(cmd);
  addFailOption(cmd);
  cmd.option('--front-matter', 'start the Markdown with YAML front matter (title, url, sourceURL, statusCode, scrapedAt), as --output-dir does');
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs scrape https://example.com
  $ webjobs scrape https://example.com --formats links
  $ webjobs scrape https://example.com/docs --formats chunks --chunk-tokens 300   # chunks for a retrieval index
  $ webjobs scrape https://example.com/long-read --max-tokens 2000   # cut after the last whole block within 2,000 tokens
  $ webjobs scrape https://example.com --front-matter -o page.md   # YAML front matter, then the Markdown
  $ webjobs scrape https://example.com --json | jq -r .data.metadata.title
  $ webjobs scrape https://example.com --no-only-main-content --exclude-tags 'nav,.ads' -o page.md
  $ webjobs scrape https://intranet.example.com --header "Authorization: Bearer $TOKEN" --cookies cookies.txt
  $ webjobs scrape https://example.com/status --fail -o status.md   # cron: a 4xx/5xx answer keeps the old file, exit 1
  $ webjobs scrape https://example.com --formats screenshot -o shot.png
  $ webjobs scrape https://example.com/pricing --formats markdown,changeTracking --exit-code --json   # cron: exit 10 when it changed
  $ webjobs scrape https://shop.example.com/item/42 --formats json --schema product.schema.json   # its data as JSON (no model: from its JSON-LD)
  $ webjobs scrape https://example.com/products --actions '[{"type":"click","selector":"#more"}]'   # "Load more", then read
  $ webjobs scrape https://example.com/feed --actions '[{"type":"scroll","repeat":20}]'   # an endless list
  $ webjobs scrape https://example.com/account --profile shop   # the cookies a login through --actions kept
  $ webjobs scrape https://example.com/app --wait-for-selector '#root main'
  $ webjobs scrape saved/article.html --timeout 20s
  $ curl -s https://example.com | webjobs scrape -

Headers go only to the origin of the URL; each cookie only to its own domain (docs/engines.md: Pages behind a login).
A saved page is read as saved, without a browser or a network: its scripts do not run, nothing it names is loaded.`,
  );
  return cmd.action(async (arg: string, flags: ScrapeFlags & SessionFlags & RunFlags & FailFlags & { frontMatter?: boolean }) => {
    if (flags.frontMatter && (flags.json || (flags.formats !== undefined && (flags.formats.length !== 1 || flags.formats[0] !== 'markdown')))) {
      throw new UsageError('--front-matter goes with Markdown output: drop --json and --formats other than markdown');
    }
    checkOutputFormats(flags.output, flags.formats, Boolean(flags.json), false);
    // A file -o would replace: a page answered with an HTTP error leaves it as it is.
    const target = flags.json ? undefined : await resolveOutput(flags.output);
    const goodFile = target?.kind === 'file' && (await fs.stat(target.path).then((s) => s.size > 0, () => false)) ? flags.output : undefined;
    const page = await pageOf(arg, flags);
    const url = page.url;
    try {
      const request = { url, scrapeOptions: scrapeOptionsFrom(flags), sessionOptions: sessionOptionsFrom(flags) };
      let changed = false;
      const code = await runJob(
        'scrape',
        request,
        flags,
        { label: `Scraping ${arg === '-' ? 'the page on stdin' : url}` },
        renderRecord(
          'scrape',
          flags,
          () => `scrape of ${url}`,
          async (record) => {
            const output = await pageOutput(record.data!, flags.formats, flags.output, flags.apiKey ?? process.env.WEBJOBS_API_KEY);
            return flags.frontMatter && typeof output === 'string' ? frontMatterOf(record.data!) + output : output;
          },
          (record) => {
            const kept = checkPage(record.data!, url, flags, goodFile);
            warnIfNothingIncluded(record.data!, flags);
            changed = changedPage(record.data);
            return kept;
          },
        ),
      );
      process.exitCode = code === ExitCode.ok && flags.exitCode && changed ? ExitCode.changed : code;
    } finally {
      await page.remove?.();
    }
  });
}
