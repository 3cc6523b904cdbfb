/** `webjobs llmstxt <url>`: a site's llms.txt (llmstxt.org), or llms-full.txt, from a crawl, without a model. */
import { Command } from 'commander';
import { LIMITS } from '../../api/limits.js';
import { UsageError } from '../../api/errors.js';
import type { CrawlRequest, PageEntry } from '../../api/types.js';
import { LOCAL_LIMITS, SERVICE_LIMITS, validateCrawlRequest } from '../../api/validate.js';
import { entriesOf } from '../jobPages.js';
import { describeProgress } from '../manyPages.js';
import { LLMSTXT_DEFAULT_PAGES, LLMSTXT_MAX_PAGES } from '../../agents/llmsTxt.js';
import { addRunOptions, addSessionOptions, parseInteger, sessionOptionsFrom, type RunFlags, type SessionFlags } from '../options.js';
import { writeOutput } from '../output.js';
import { runJob } from '../runJob.js';


interface LlmsTxtFlags extends RunFlags, SessionFlags {
  maxPages?: number;
  full?: boolean;
}

export function llmsTxtCommand(): Command {
  const cmd = new Command('llmstxt')
    .summary("write a site's llms.txt (or llms-full.txt) from a crawl")
    .description(
      `Crawl a site and write its llms.txt as llmstxt.org defines it, without a model: "# title" (the home page's),
"> summary" (its description), then "## section" groups by the first path segment, each page as
"- [title](url): description" (its meta description, or its first sentence). --full writes llms-full.txt:
every page's Markdown under its title and URL.`,
    )
    .argument('<url>', 'the site (its home page, where the crawl starts)')
    .option(
      '--max-pages <n>',
      `pages to crawl, at most ${LLMSTXT_MAX_PAGES} here and ${LIMITS.maxCrawlPages} with --remote (default: ${LLMSTXT_DEFAULT_PAGES}; ${LIMITS.maxCrawlPages} with --remote)`,
      parseInteger('--max-pages', 1, LLMSTXT_MAX_PAGES),
    )
    .option('--full', 'write llms-full.txt: every page\'s Markdown, not only its link');
  addSessionOptions(cmd);
  addRunOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs llmstxt https://example.com > llms.txt
  $ webjobs llmstxt https://docs.example.com --max-pages 500 -o llms.txt
  $ webjobs llmstxt https://docs.example.com --full -o llms-full.txt

Exit codes: 0 written, 1 the crawl failed, 2 bad usage, 130/143 Ctrl-C/SIGTERM (nothing written).`,
  );
  return cmd.action(async (url: string, flags: LlmsTxtFlags) => {
    const remote = Boolean(flags.remote ?? process.env.WEBJOBS_REMOTE);
    if (remote && (flags.maxPages ?? 0) > LIMITS.maxCrawlPages) {
      throw new UsageError(`--max-pages must be at most ${LIMITS.maxCrawlPages} with --remote (the service's limit), got ${flags.maxPages}`);
    }
    if (flags.json) throw new UsageError('llmstxt writes text: drop --json');
    const maxPages = flags.maxPages ?? (remote ? LIMITS.maxCrawlPages : LLMSTXT_DEFAULT_PAGES);
    const request: CrawlRequest = { url, maxPages, scrapeOptions: { formats: ['markdown'] }, sessionOptions: sessionOptionsFrom(flags) };
    validateCrawlRequest(request, remote ? SERVICE_LIMITS : LOCAL_LIMITS);
    process.exitCode = await runJob('crawl', request, flags, { label: `Crawling ${url} for llms.txt`, describeProgress: describeProgress('crawl', maxPages) }, async ({ backend, jobId }) => {
      const entries: PageEntry[] = [];
      for await (const entry of entriesOf(backend, 'crawl', jobId)) entries.push(entry);
      const { llmsFullTxt, llmsTxt, sitePages } = await import('../../agents/llmsTxt.js');
      const pages = sitePages(entries, url);
      if (pages.length === 0) throw new UsageError(`no page of ${url} could be read: nothing to write`);
      await writeOutput((flags.full ? llmsFullTxt : llmsTxt)(pages), flags.output);
      return 0;
    });
  });
}
