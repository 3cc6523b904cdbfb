/**
 * What a completed page may still hide from a person or a script: the server's
 * HTTP error status (a 404 or 500 page is a page, as the spec says, unless
 * --fail), and a warning in its metadata (read over HTTP though it needs a
 * browser, an empty body, a load that did not finish). Said on stderr, never
 * only in the metadata.
 */
import { count } from './plural.js';
import type { Command } from 'commander';
import { JobFailedError } from '../api/errors.js';
import { isTruncated, type PageData, type PageEntry } from '../api/types.js';

// Not an ES import of node:http: that loads undici, ~15 ms of every CLI run's start (session/directFetch.ts).
const { STATUS_CODES } = process.getBuiltinModule('node:http');

export interface FailFlags {
  /** curl's --fail: a page answered with 4xx or 5xx fails. */
  fail?: boolean;
  quiet?: boolean;
}

export function addFailOption(cmd: Command): Command {
  return cmd.option(
    '--fail',
    "a page the server answered with an HTTP error (4xx, 5xx) fails, as curl's --fail: scrape writes nothing and exits 1 (-o keeps its file); batch and crawl count it as failed (exit 3)",
  );
}

/** The HTTP error status (400 or more) the page was answered with, if any. */
export function httpErrorStatus(data: Pick<PageData, 'metadata'>): number | undefined {
  const status = Number(data.metadata?.statusCode);
  return Number.isInteger(status) && status >= 400 ? status : undefined;
}

/**
 * The one rule of every file webjobs writes pages into (issue 56): a page that
 * failed, or answered with an HTTP error, never replaces a good copy of it. What
 * went wrong ("failed: ...", "HTTP 500 Internal Server Error"); undefined for a
 * good page, and for one not done yet (pending).
 */
export function pageTrouble(entry: PageEntry): string | undefined {
  if (entry.status === 'failed') return `failed: ${entry.error ?? 'no reason given'}`;
  const status = entry.status === 'completed' ? httpErrorStatus(entry) : undefined;
  return status === undefined ? undefined : statusText(status);
}

/** "HTTP 500 Internal Server Error". */
export function statusText(status: number): string {
  const reason = STATUS_CODES[status];
  return `HTTP ${status}${reason ? ` ${reason}` : ''}`;
}

/** The URL that answered: where redirects landed, else the one asked. */
function answeredBy(data: Pick<PageData, 'metadata'>, asked: string): string {
  return data.metadata?.url || asked;
}

function warn(text: string): void {
  process.stderr.write(`webjobs: warning: ${text}\n`);
}

/** --explain: the trace main-content selection left in the page's metadata, on stderr (even with -q: it was asked for). */
export function tellExplain(data: Pick<PageData, 'metadata'>, url: string): void {
  const trace = data.metadata?.explain;
  if (trace === undefined) return;
  process.stderr.write(`webjobs: explain ${answeredBy(data, url)}\n${trace.replace(/^/gm, '  ')}\n`);
}

/**
 * scrape: with --fail, an HTTP error page fails the command before anything is
 * written; otherwise its status and the page's warning are said on stderr (not with -q).
 * `output`: an existing regular file -o would replace; an error page leaves it as it is ('keep').
 */
export function checkPage(data: PageData, url: string, flags: FailFlags, output?: string): void | 'keep' {
  tellExplain(data, url);
  const status = httpErrorStatus(data);
  if (status !== undefined && flags.fail) {
    throw new JobFailedError(`${answeredBy(data, url)} answered ${statusText(status)}; nothing was written (--fail)`);
  }
  if (status !== undefined && output !== undefined) {
    // An error page never replaces -o's file: the last good page stays (issue 56). Said even with -q.
    warn(`${answeredBy(data, url)} answered ${statusText(status)}; ${output} is the last good page, kept (--fail fails instead)`);
    return 'keep';
  }
  if (flags.quiet) return;
  if (status !== undefined) warn(`${answeredBy(data, url)} answered ${statusText(status)}; the page is written as it is (--fail fails instead)`);
  if (data.metadata?.warning) warn(`${answeredBy(data, url)}: ${data.metadata.warning}`);
  if (isTruncated(data)) warn(`${answeredBy(data, url)}: its Markdown was cut at --max-tokens (metadata.truncated)`);
}

/** --fail in batch and crawl: a completed entry answered with an HTTP error is a failed one (its metadata kept, no content). */
export function failHttpError(entry: PageEntry): PageEntry {
  const status = entry.status === 'completed' ? httpErrorStatus(entry) : undefined;
  if (status === undefined) return entry;
  return { url: entry.url, status: 'failed', error: `${statusText(status)} (--fail)`, metadata: entry.metadata, ...('markdown' in entry ? { markdown: '' } : {}) };
}

/** What the pages of a batch or crawl hid, told in a line or two at the end (not with -q). */
export class PageNotes {
  private readonly statuses = new Map<number, number>();
  private httpErrors = 0;
  private warned = 0;
  private firstWarning: string | undefined;
  private truncated = 0;

  add(entry: PageEntry): void {
    if (entry.status !== 'completed') return;
    tellExplain(entry, entry.url);
    const status = httpErrorStatus(entry);
    if (status !== undefined) {
      this.httpErrors++;
      this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    }
    if (isTruncated(entry)) this.truncated++;
    if (entry.metadata?.warning) {
      this.warned++;
      this.firstWarning ??= `${answeredBy(entry, entry.url)}: ${entry.metadata.warning}`;
    }
  }

  /** `pages`: entries done (completed or failed). */
  tell(pages: number): void {
    if (this.httpErrors > 0) {
      const statuses = [...this.statuses.keys()].sort((a, b) => a - b).join(', ');
      const one = this.httpErrors === 1;
      const kept = one ? 'it is kept as a page (--fail counts it as failed)' : 'they are kept as pages (--fail counts them as failed)';
      warn(`${this.httpErrors} of ${count(pages, 'page')} answered ${one ? 'an HTTP error' : 'HTTP errors'} (${statuses}); ${kept}`);
    }
    if (this.warned === 1) warn(this.firstWarning!);
    else if (this.warned > 1) warn(`${this.warned} pages came with a warning (metadata.warning), the first: ${this.firstWarning}`);
    if (this.truncated > 0) warn(`${this.truncated} of ${pages} pages had their Markdown cut at --max-tokens (metadata.truncated)`);
  }
}
