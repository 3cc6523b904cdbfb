import { Command } from 'commander';
import { LIMITS } from '../../api/limits.js';
import type { CrawlRequest } from '../../api/types.js';
import { validateCrawlRequest } from '../../api/validate.js';
import { addManyPagesOptions, runManyPages, type ManyPagesFlags } from '../manyPages.js';
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

interface CrawlFlags extends ScrapeFlags, SessionFlags, ManyPagesFlags {
  maxPages?: number;
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
    .option('--max-pages <n>', `pages to crawl, at most ${LIMITS.maxCrawlPages} (default: ${LIMITS.defaultCrawlPages})`, parseInteger('--max-pages', 1, LIMITS.maxCrawlPages))
    .option('--no-follow-links', 'do not follow links: crawl the start page and the sitemap only')
    .option('--ignore-sitemap', 'do not read robots.txt Sitemap: lines or /sitemap.xml')
    .option('--include-patterns <globs>', 'only crawl paths matching one of these globs, comma-separated (e.g. "/blog/**")', parseList)
    .option('--exclude-patterns <globs>', 'never crawl paths matching these globs, comma-separated (e.g. "/tag/*,*.xml")', parseList);
  addScrapeOptions(cmd);
  addSessionOptions(cmd);
  addRunOptions(cmd);
  addManyPagesOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ webjobs crawl https://example.com
  $ webjobs crawl https://example.com/docs --max-pages 50 --include-patterns '/docs/**' --output-dir docs/
  $ webjobs crawl https://example.com --jsonl | jq -r '.metadata.title'
  $ webjobs crawl https://example.com --no-follow-links --json   # the start page and the sitemap's pages
  $ webjobs crawl https://shop.example.com/account --cookies cookies.txt -A 'reports bot'   # behind a login

Globs match the URL path: * within a segment, ** across segments, ? one character;
at most ${LIMITS.maxCrawlPatterns} include and ${LIMITS.maxCrawlPatterns} exclude patterns, each at most ${LIMITS.maxCrawlPatternLength} characters.

Exit codes: 0 every page completed, 3 the job completed but some pages failed,
1 the job failed, 2 bad usage (e.g. --max-pages over ${LIMITS.maxCrawlPages}),
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
      ...(flags.includePatterns ? { includePatterns: flags.includePatterns } : {}),
      ...(flags.excludePatterns ? { excludePatterns: flags.excludePatterns } : {}),
    };
    // Checked here too so that a limit is a usage error before anything starts, on any back end.
    const maxPages = validateCrawlRequest(request).maxPages ?? LIMITS.defaultCrawlPages;
    process.exitCode = await runManyPages('crawl', request, flags, `Crawling ${url}`, maxPages);
  });
}
