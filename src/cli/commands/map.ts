/** `webjobs map`: a site's URLs, one a line, ready for `webjobs batch -`. */
import { Command } from 'commander';
import { UnsupportedError, UsageError } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { MapRequest } from '../../api/types.js';
import { validateMapRequest } from '../../api/validate.js';
import { withBackend } from '../backendFactory.js';
import { parseInteger, parseList } from '../options.js';
import { writeOutput } from '../output.js';

interface MapFlags {
  depth?: number;
  search?: string;
  limit?: number;
  ignoreSitemap?: boolean;
  includePatterns?: string[];
  excludePatterns?: string[];
  json?: boolean;
  output?: string;
  remote?: string;
  apiKey?: string;
}

export function mapCommand(): Command {
  return new Command('map')
    .summary("list a site's URLs (sitemaps and links), without rendering pages")
    .description(
      `List the URLs of a site, fast: its sitemaps (robots.txt Sitemap: lines, /sitemap.xml, indexes, .gz)
and the links of the start page, fetched over plain HTTP (no browser). URLs are normalised and
de-duplicated as crawl does, kept on the start URL's host, allowed by robots.txt, and only pages
(not images or archives). Prints one URL a line: the input of \`webjobs batch -\`.`,
    )
    .argument('<url>', 'the site (http or https)')
    .option(
      '--depth <n>',
      `link levels read: 0 sitemaps only, 1 the start page's links, 2 and ${LIMITS.maxMapDepth} also the links of the pages they reach (default: ${LIMITS.defaultMapDepth})`,
      parseInteger('--depth', 0, LIMITS.maxMapDepth),
    )
    .option('--search <term>', 'keep URLs whose address or link text contains this (case-insensitive)')
    .option('--limit <n>', `most URLs printed (default: ${LIMITS.defaultMapLimit})`, parseInteger('--limit', 1, LIMITS.maxMapLimit))
    .option('--ignore-sitemap', 'do not read robots.txt Sitemap: lines or /sitemap.xml')
    .option('--include-patterns <globs>', 'only paths matching one of these globs, comma-separated (as crawl)', parseList)
    .option('--exclude-patterns <globs>', 'never paths matching these globs, comma-separated (as crawl)', parseList)
    .option('--json', 'print {"links": [{"url", "title", "description"}]}: title and description where a page was read')
    .option('-o, --output <file>', 'write the URLs to a file instead of stdout')
    .option('--remote <url>', 'ask a webjobs service (POST /api/map) instead of this machine (env: WEBJOBS_REMOTE)')
    .option('--api-key <key>', 'API key for --remote (env: WEBJOBS_API_KEY)')
    .addHelpText(
      'after',
      `
Examples:
  $ webjobs map https://example.com
  $ webjobs map https://example.com --search pricing --limit 20
  $ webjobs map https://example.com/docs --include-patterns '/docs/**' | webjobs batch - --output-dir docs/
  $ webjobs map https://example.com --json | jq -r '.links[] | "\\(.url)\\t\\(.title // "")"'

Exit codes: 0 the map was made (even when empty), 1 the site could not be read
(robots.txt answered 5xx or could not be fetched), 2 bad usage, 7 the remote service failed.`,
    )
    .action(async (url: string, flags: MapFlags) => {
      const request: MapRequest = {
        url,
        ...(flags.search !== undefined ? { search: flags.search } : {}),
        ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
        ...(flags.depth !== undefined ? { depth: flags.depth } : {}),
        ...(flags.ignoreSitemap ? { ignoreSitemap: true } : {}),
        ...(flags.includePatterns ? { includePatterns: flags.includePatterns } : {}),
        ...(flags.excludePatterns ? { excludePatterns: flags.excludePatterns } : {}),
      };
      validateMapRequest(request);
      const result = await withBackend({ remote: flags.remote, apiKey: flags.apiKey }, async (backend) => {
        if (!backend.map) throw UnsupportedError.of('map', 'this back end');
        return backend.map(request);
      });
      const text = flags.json ? JSON.stringify(result, null, 2) : result.links.map((link) => link.url).join('\n');
      await writeOutput(text, flags.output);
    });
}
