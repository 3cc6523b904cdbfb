/** `webjobs search`: a search engine's results for a question (SearXNG or Brave), each scraped with --formats. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { ExitCode, InterruptedError, UnsupportedError, UsageError } from '../../api/errors.js';
import { SEARCH_BACKENDS, SEARCH_ENV, SEARCH_LIMITS, TIME_RANGES, validateSearchRequest, type SearchHit, type SearchRequest } from '../../api/search.js';
import { LIMITS } from '../../api/limits.js';
import { ENGINES, type EngineName, type Format, type ScrapeOptions } from '../../api/types.js';
import { withBackend } from '../backendFactory.js';
import { exitCodeOf, watchSignals } from '../interrupt.js';
import { parseDuration, parseFormats, parseInteger, parseList } from '../options.js';
import { writeOutput } from '../output.js';
import { printable } from '../printable.js';
import { colors, startProgress, stderrIsTerminal } from '../terminal.js';

interface SearchFlags {
  limit?: number;
  formats?: Format[];
  engine?: EngineName;
  maxAge?: number;
  timeout?: number;
  onlyMainContent?: boolean;
  includeDomains?: string[];
  excludeDomains?: string[];
  timeRange?: SearchRequest['timeRange'];
  lang?: string;
  country?: string;
  searchBackend?: SearchRequest['searchBackend'];
  json?: boolean;
  jsonl?: boolean;
  output?: string;
  remote?: string;
  apiKey?: string;
  quiet?: boolean;
}

/** Plain text: title, URL and snippet a block; a scraped result's Markdown under it, or why it has none. */
function plainBlock(hit: SearchHit): string {
  const lines = [hit.title || hit.url, hit.url, ...(hit.description ? [hit.description] : [])];
  if (hit.error) lines.push(`(not scraped: ${hit.error})`);
  else if (hit.markdown !== undefined) lines.push('', hit.markdown.trim());
  return lines.join('\n');
}

/** How each result is scraped: batch's options of the same flags. */
function scrapeOptionsOf(flags: SearchFlags, formats: Format[]): ScrapeOptions {
  return {
    formats,
    ...(flags.onlyMainContent === false ? { onlyMainContent: false } : {}),
    ...(flags.engine ? { engine: flags.engine } : {}),
    ...(flags.maxAge !== undefined ? { maxAge: Math.round(flags.maxAge * 1000) } : {}),
    ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}),
  };
}

function render(web: SearchHit[], flags: SearchFlags): string {
  if (flags.json) return JSON.stringify({ success: true, data: { web } }, null, 2);
  if (flags.jsonl) return web.map((hit) => JSON.stringify(hit)).join('\n');
  return web.map(plainBlock).join('\n\n');
}

export function searchCommand(): Command {
  return new Command('search')
    .summary('search the web (SearXNG or Brave) and scrape the results')
    .description(
      `Ask a search engine and list its results: title, URL and snippet, one result a block. With --formats, each result is also scraped as batch scrapes pages (the same engines, cache and politeness). The engine is a SearXNG instance (${SEARCH_ENV.searxngUrl}, with the json format enabled) or the Brave Search API (${SEARCH_ENV.braveKey}); SearXNG first when both are set, unless --search-backend says otherwise.`,
    )
    .argument('<query...>', 'what to search for (several words are one query)')
    .option('--limit <n>', `results wanted, ${1} to ${SEARCH_LIMITS.maxLimit} (default: ${SEARCH_LIMITS.defaultLimit}); further pages are asked for until then`, parseInteger('--limit', 1, SEARCH_LIMITS.maxLimit))
    .option('-f, --formats <list>', 'scrape each result in these formats, comma-separated (markdown, html, links...); without it nothing is scraped', parseFormats)
    .addOption(new Option('--engine <engine>', 'with --formats: how pages are read, as batch (default: auto)').choices([...ENGINES]))
    .option('--max-age <duration>', 'with --formats: reuse a stored result up to this old (30m, 12h, 7d), as batch', parseDuration('--max-age', { unit: 's', bare: 's', min: 1, max: LIMITS.maxMaxAgeMs / 1000 }))
    .option('--timeout <duration>', 'with --formats: time allowed to load each page (default: 30s)', parseDuration('--timeout', { unit: 'ms', bare: 'ms', min: 1, max: LIMITS.maxTimeoutMs }))
    .option('--no-only-main-content', 'with --formats: keep the whole page, not only its main content')
    .option('--include-domains <domains>', 'only results on these domains or their subdomains, comma-separated', parseList)
    .option('--exclude-domains <domains>', 'never results on these domains or their subdomains, comma-separated', parseList)
    .addOption(new Option('--time-range <range>', 'only results of the past day, week, month or year').choices([...TIME_RANGES]))
    .option('--lang <code>', "the results' language: en, de, fr-CH")
    .option('--country <CC>', 'the country results are for, two letters (Brave; SearXNG with --lang)', (value: string) => {
      if (!/^[A-Za-z]{2}$/.test(value)) throw new InvalidArgumentError('give two letters, such as us or de.');
      return value.toLowerCase();
    })
    .addOption(new Option('--search-backend <name>', 'the engine to ask (default: the one configured, SearXNG first)').choices([...SEARCH_BACKENDS]))
    .option('--json', 'print Firecrawl v2\'s shape: {"success": true, "data": {"web": [{url, title, description, position, ...}]}}')
    .option('--jsonl', 'print one result a line, as JSON')
    .option('-o, --output <file>', 'write the results to a file instead of stdout')
    .option('--remote <url>', 'ask a webjobs service (POST /api/search) instead of this machine (env: WEBJOBS_REMOTE)')
    .option('--api-key <key>', 'API key for --remote (env: WEBJOBS_API_KEY)')
    .option('-q, --quiet', 'nothing on stderr but errors')
    .addHelpText(
      'after',
      `
Examples:
  $ export ${SEARCH_ENV.searxngUrl}=http://localhost:8080
  $ webjobs search lantern festival
  $ webjobs search "rust async runtime" --limit 30 --jsonl | jq -r .url
  $ webjobs search lantern --formats markdown --limit 5 --json > lanterns.json
  $ webjobs search "release notes" --include-domains nodejs.org --time-range month

Exit codes: 0 done (no results too: nothing on stdout), 2 bad usage (an empty query, --limit out of range,
no search engine configured, SearXNG without its json format, a Brave key refused), 3 some results could not
be scraped (each says why), 7 the search engine or the remote service failed or did not answer,
130/143 Ctrl-C/SIGTERM: the search and its scraping are stopped.`,
    )
    .action(async (words: string[], flags: SearchFlags) => {
      if (flags.json && flags.jsonl) throw new UsageError('--json and --jsonl: choose one');
      const scrapeFlag = flags.engine ? '--engine' : flags.maxAge !== undefined ? '--max-age' : flags.timeout !== undefined ? '--timeout' : flags.onlyMainContent === false ? '--no-only-main-content' : undefined;
      if (scrapeFlag && !flags.formats) throw new UsageError(`${scrapeFlag} goes with --formats: without it no result is scraped`);
      const request = validateSearchRequest({
        query: words.join(' '),
        ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
        ...(flags.formats ? { scrapeOptions: scrapeOptionsOf(flags, flags.formats) } : {}),
        ...(flags.includeDomains ? { includeDomains: flags.includeDomains } : {}),
        ...(flags.excludeDomains ? { excludeDomains: flags.excludeDomains } : {}),
        ...(flags.timeRange ? { timeRange: flags.timeRange } : {}),
        ...(flags.lang ? { lang: flags.lang } : {}),
        ...(flags.country ? { country: flags.country } : {}),
        ...(flags.searchBackend ? { searchBackend: flags.searchBackend } : {}),
      });
      const progress = await startProgress(flags.formats ? `Searching and scraping: ${request.query}` : `Searching: ${request.query}`, flags);
      const signals = watchSignals();
      const stop = new AbortController();
      signals.setStop((reason) => stop.abort(new InterruptedError(`search stopped (${reason}); nothing was printed`, exitCodeOf(reason))));
      let web: SearchHit[];
      try {
        web = (
          await withBackend({ remote: flags.remote, apiKey: flags.apiKey }, async (backend) => {
            if (!backend.search) throw UnsupportedError.of('search', 'this back end');
            // Stopped: the scraping batch is cancelled here, or, with --remote, the request closed (serve cancels it then).
            return backend.search(request, { signal: stop.signal });
          })
        ).web;
      } catch (err) {
        throw stop.signal.aborted ? (stop.signal.reason as Error) : err;
      } finally {
        signals.dispose();
        progress.stop();
      }
      if (web.length === 0) {
        if (!flags.quiet && stderrIsTerminal()) process.stderr.write(`${colors.dim(`webjobs: no results for "${printable(request.query)}"`)}\n`);
        return;
      }
      await writeOutput(render(web, flags), flags.output);
      const failed = request.scrapeOptions ? web.filter((hit) => hit.error).length : 0;
      if (failed > 0) {
        if (!flags.quiet) process.stderr.write(`webjobs: ${failed} of ${web.length} results could not be scraped (each says why)\n`);
        process.exitCode = ExitCode.partial;
      }
    });
}
