import { Command } from 'commander';
import { addWebhookOption, webhookFrom, type WebhookFlags } from '../webhookOption.js';
import { LIMITS } from '../../api/limits.js';
import { USER_AGENT } from '../../engine/userAgent.js';
import type { CrawlRequest } from '../../api/types.js';
import { UsageError } from '../../api/errors.js';
import { LOCAL_LIMITS, SERVICE_LIMITS, validateCrawlRequest } from '../../api/validate.js';
import { addDelayOption, addManyPagesOptions, delayFrom, runManyPages, type ManyPagesFlags, type PolitenessFlags } from '../manyPages.js';
import { addFailOption } from '../pageChecks.js';
import {
  addRunOptions,
  addScrapeOptions,
  addSessionOptions,
  parseInteger,
  parseList,
  scrapeOptionsFrom,
  sessionOptionsFrom,
  type ScrapeFlags,
  type SessionFlags,
} from '../options.js';

interface CrawlFlags extends WebhookFlags, ScrapeFlags, SessionFlags, ManyPagesFlags, PolitenessFlags {
  maxPages?: number;
  maxDepth?: number;
  followLinks: boolean;
  ignoreSitemap?: boolean;
  includePatterns?: string[];
  excludePatterns?: string[];
}

export function crawlCommand(): Command {
  const cmd = new Command('crawl')
    .summary('crawl a site from a start URL')
    .description(
      `Crawl a site breadth-first from a URL: the start page, the pages it links to, the sitemap's pages, then deeper.
Stays on the start URL's host, obeys robots.txt, and visits each page once.`,
    )
    .argument('<url>', 'where the crawl starts (http or https)')
    .option(
      '--max-pages <n>',
      `pages to crawl, at most ${LIMITS.maxLocalCrawlPages} here and ${LIMITS.maxCrawlPages} with --remote (default: ${LIMITS.defaultCrawlPages})`,
      parseInteger('--max-pages', 1, LIMITS.maxLocalCrawlPages),
    )
    .option(
      '--max-depth <n>',
      `links to follow from the start page at most: 0 the start page and the sitemap's pages, 1 also the pages it links to... (0-${LIMITS.maxCrawlDepth}; default: no limit)`,
      parseInteger('--max-depth', 0, LIMITS.maxCrawlDepth),
    )
    .option('--no-follow-links', 'do not follow links: crawl the start page and the sitemap only')
    .option('--ignore-sitemap', 'do not read robots.txt Sitemap: lines or /sitemap.xml')
    .option('--include-patterns <globs>', 'only crawl paths matching one of these globs, comma-separated (e.g. "/blog/**")', parseList)
    .option('--exclude-patterns <globs>', 'never crawl paths matching these globs, comma-separated (e.g. "/tag/*,*.xml")', parseList);
  addDelayOption(cmd);
  addScrapeOptions(cmd);
  addSessionOptions(cmd);
  addWebhookOption(cmd);
  addRunOptions(cmd);
  addManyPagesOptions(cmd);
  addFailOption(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs crawl https://example.com
  $ webjobs crawl https://example.com/docs --max-pages 50 --include-patterns '/docs/**' --output-dir docs/
  $ webjobs crawl https://example.com --jsonl | jq -r '.metadata.title'
  $ webjobs crawl https://example.com --no-follow-links --json   # the start page and the sitemap's pages
  $ webjobs crawl https://example.com --max-depth 1 --ignore-sitemap   # the start page and the pages it links to
  $ webjobs crawl https://example.com --max-pages 2000 --delay 1000 --output-dir site/   # one request a second
  $ webjobs crawl https://shop.example.com/account --cookies cookies.txt -A 'reports bot'   # behind a login
  $ webjobs crawl https://example.com/catalog --actions '[{"type":"scroll","repeat":10}]'   # each page scrolled to its end
  $ webjobs crawl https://example.com --webhook https://hooks.example.com/webjobs   # each page POSTed as it is done

Politeness: the robots.txt of every origin the crawl reaches is obeyed (its "webjobs" group, else "*");
one that answers 5xx or cannot be fetched keeps the crawl off that origin. Requests to one host are
spaced by --delay or the robots.txt Crawl-delay, whichever is longer (one at a time then), else at
most ${LIMITS.perHostConcurrency} at once. Pages, robots.txt and sitemaps go out with one User-Agent: ${USER_AGENT}.

Globs match the URL path: * within a segment, ** across segments, ? one character;
at most ${LIMITS.maxCrawlPatterns} include and ${LIMITS.maxCrawlPatterns} exclude patterns, each at most ${LIMITS.maxCrawlPatternLength} characters.

When --max-pages stops the crawl before every URL found was crawled, a line on stderr says so and how
many more URLs were found (the record's urlsNotCrawled).

Exit codes: 0 every page completed, 3 the job completed but some pages failed (with --fail, an HTTP error too),
10 with --exit-code and --formats markdown,changeTracking: a page is new, changed or removed since the last run,
1 the job failed, 2 bad usage (e.g. --max-pages over ${LIMITS.maxLocalCrawlPages}, or ${LIMITS.maxCrawlPages} with --remote),
130/143 Ctrl-C/SIGTERM: the job is stopped, pages done kept (read them with webjobs result ID),
141 stdout closed (| head): a quiet stop.`,
  );
  return cmd.action(async (url: string, flags: CrawlFlags) => {
    const request: CrawlRequest = {
      url,
      followLinks: flags.followLinks,
      ignoreSitemap: Boolean(flags.ignoreSitemap),
      scrapeOptions: scrapeOptionsFrom(flags),
      sessionOptions: sessionOptionsFrom(flags),
      ...(flags.maxPages !== undefined ? { maxPages: flags.maxPages } : {}),
      ...(flags.maxDepth !== undefined ? { maxDepth: flags.maxDepth } : {}),
      ...(flags.includePatterns ? { includePatterns: flags.includePatterns } : {}),
      ...(flags.excludePatterns ? { excludePatterns: flags.excludePatterns } : {}),
      ...delayFrom(flags),
      ...(flags.fail ? { failOnHttpError: true } : {}),
      ...webhookFrom(flags),
    };
    // Checked here too so that a limit is a usage error before anything starts, on any back end.
    const remote = Boolean(flags.remote ?? process.env.WEBJOBS_REMOTE);
    if (remote && (flags.maxPages ?? 0) > LIMITS.maxCrawlPages) {
      throw new UsageError(`--max-pages must be at most ${LIMITS.maxCrawlPages} with --remote (the service's limit), got ${flags.maxPages}`);
    }
    const maxPages = validateCrawlRequest(request, remote ? SERVICE_LIMITS : LOCAL_LIMITS).maxPages ?? LIMITS.defaultCrawlPages;
    process.exitCode = await runManyPages('crawl', request, flags, `Crawling ${url}`, maxPages);
  });
}
