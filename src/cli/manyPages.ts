/**
 * Output of the many-page commands (batch, crawl): --json, --jsonl, --output-dir
 * or Markdown with a header per page, and the exit code that tells cron whether
 * every page made it. Records are read back from the back end one result batch at
 * a time (jobPages.ts), so a 1,000-page job never sits in memory as one string.
 */
import { count } from './plural.js';
import { Command } from 'commander';
import type { JobBackend, JobProgress } from '../api/backend.js';
import { ExitCode, JobFailedError, UsageError } from '../api/errors.js';
import { LIMITS } from '../api/limits.js';
import type { Format, JobRecordByKind, JobRequestByKind, PageEntry } from '../api/types.js';
import { entriesOf, headOf, writeMergedRecord, type ManyKind } from './jobPages.js';
import { OutputDir, type KeptFile } from './outputDir.js';
import { writeTextPages, type KeptSection } from './textPages.js';
import { failHttpError, PageNotes, type FailFlags } from './pageChecks.js';
import { changedPage, parseDuration, parseInteger, type RunFlags } from './options.js';
import { checkOutputFormats, openOutput, type OutputStream } from './output.js';
import { runJob, type FinishedJob, type RunJobOptions } from './runJob.js';
import { keepRunOptions } from './runOptions.js';
import { colors, showProgress } from './terminal.js';

export type { ManyKind };

export interface ManyPagesFlags extends RunFlags, FailFlags {
  jsonl?: boolean;
  outputDir?: string;
  formats?: Format[];
  frontMatter?: boolean;
  /** With changeTracking: exit 10 when a page is new or changed. */
  exitCode?: boolean;
}

export function addManyPagesOptions(cmd: Command): Command {
  return cmd
    .option('--jsonl', 'print one JSON page entry per line, as each page finishes; "index" is its place in the list (0-based)')
    .option('--output-dir <dir>', 'write one file per page and format (.md, .html, .links.txt) as pages finish, and an index.json, into this folder')
    .option('--front-matter', 'with --output-dir: start each Markdown file with YAML front matter (title, url, sourceURL, statusCode, scrapedAt)');
}

export function addConcurrencyOption(cmd: Command): Command {
  return cmd.option('--concurrency <n>', 'pages loaded at once (browser tabs); default: tuned to this machine', parseInteger('--concurrency', 1));
}

export interface PolitenessFlags {
  delay?: number;
}

/** --delay: the request's `delay` extension; a robots.txt Crawl-delay longer than it wins in a crawl. */
export function addDelayOption(cmd: Command): Command {
  return cmd.option(
    '--delay <duration>',
    `time between two requests to one host, one at a time: 500ms, 2s (a bare number is ms; at most ${LIMITS.maxDelayMs / 1000}s); default: none, at most ${LIMITS.perHostConcurrency} at once per host`,
    parseDuration('--delay', { unit: 'ms', bare: 'ms', max: LIMITS.maxDelayMs }),
  );
}

/** The request fields --delay sets. */
export function delayFrom(flags: PolitenessFlags): { delay?: number } {
  return flags.delay !== undefined ? { delay: flags.delay } : {};
}

function checkFlags(flags: ManyPagesFlags): void {
  const modes = [flags.json && '--json', flags.jsonl && '--jsonl', flags.outputDir && '--output-dir'].filter(Boolean);
  if (modes.length > 1) throw new UsageError(`choose one of ${modes.join(' and ')}`);
  if (flags.outputDir && flags.output) throw new UsageError('--output-dir writes files itself; drop -o/--output');
  checkOutputFormats(flags.output, flags.formats, Boolean(flags.json || flags.jsonl), true);
  if (flags.frontMatter && !flags.outputDir) throw new UsageError('--front-matter goes with --output-dir');
  if (!flags.wait && (flags.outputDir || flags.jsonl)) {
    throw new UsageError(`--no-wait returns before any page is done, so ${flags.outputDir ? '--output-dir' : '--jsonl'} would get nothing: drop --no-wait, or read the job later with webjobs result`);
  }
}

/** "1m05s", "42s": a duration as a person reads it on a progress line. */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/**
 * The progress line. A batch knows its size: done/total, rate, and the time left
 * at that rate. A crawl does not (it finds pages as it goes; --max-pages is a
 * ceiling, not a goal): pages done, the pages it knows of so far (when the job
 * runs in this process), and rate.
 */
export function describeProgress(kind: ManyKind, total: number) {
  return (p: JobProgress, elapsedMs: number): string => {
    const perSecond = elapsedMs > 0 ? p.done / (elapsedMs / 1000) : 0;
    const failed = p.failed > 0 ? colors.red(`, ${p.failed} failed`) : '';
    const rate = `${perSecond.toFixed(1)} pages/s`;
    if (kind === 'crawl') {
      const found = p.discovered !== undefined ? ` · ${p.discovered} found` : '';
      return `${count(p.done, 'page')} crawled${failed}${found} · ${rate}`;
    }
    const eta = p.done > 0 && p.done < total && perSecond > 0 ? ` · about ${duration((total - p.done) / perSecond)} left` : '';
    return `${p.done}/${count(total, 'page')} done${failed} · ${rate}${eta}`;
  };
}

/**
 * The pages of a stored batch or crawl, finished or stopped, as the job command
 * writes them: into an --output-dir, or as text to stdout or -o. For `webjobs result`.
 */
export async function writeStoredPages(
  kind: ManyKind,
  backend: JobBackend,
  jobId: string,
  options: { outputDir?: string; formats?: Format[]; frontMatter?: boolean; output?: string; apiKey?: string },
): Promise<void> {
  if (options.outputDir) {
    const dir = new OutputDir(options.outputDir, options.formats, options.frontMatter, options.apiKey ?? process.env.WEBJOBS_API_KEY);
    await dir.create();
    return dir.finish(jobId, entriesOf(backend, kind, jobId));
  }
  const { entries } = await headOf(backend, kind, jobId);
  const kept = await writeTextPages(options.output, () => entriesOf(backend, kind, jobId, undefined, entries), options.formats, entries);
  // `webjobs result` takes no --fail: no hint at it.
  tellKept(kept, options.output, false, false);
}

/** Entries finished (completed or failed) and failed; a stopped batch still has `pending` placeholders. */
interface Tally {
  done: number;
  failed: number;
  total: number;
  /** Pages new or changed since the last run (the changeTracking format): with --exit-code, exit 10. */
  changed: number;
  /** HTTP error statuses and warnings of completed pages, told on stderr. */
  notes: PageNotes;
}

export async function countEntries(entries: AsyncIterable<PageEntry> | Iterable<PageEntry>): Promise<Tally> {
  const tally: Tally = { done: 0, failed: 0, total: 0, changed: 0, notes: new PageNotes() };
  for await (const entry of entries) {
    tally.total++;
    if (changedPage(entry)) tally.changed++;
    if (entry.status !== 'pending') tally.done++;
    if (entry.status === 'failed') tally.failed++;
    tally.notes.add(entry);
  }
  return tally;
}

/** "stopped at --max-pages 10; 37 more URLs were found and not crawled": a crawl that --max-pages cut. */
function crawlCut(kind: ManyKind, head: JobRecordByKind[ManyKind], maxPages: number): string | undefined {
  const left = kind === 'crawl' ? (head as JobRecordByKind['crawl']).urlsNotCrawled : undefined;
  if (!left) return undefined;
  return `stopped at --max-pages ${maxPages}; ${left} more URL${left === 1 ? ' was' : 's were'} found and not crawled`;
}

/**
 * What a finished job says on stderr: on a terminal a summary line; elsewhere
 * (cron) one line for failed pages and one for a crawl --max-pages cut. Then
 * the pages' HTTP errors and warnings. Nothing with -q.
 */
function summary(kind: ManyKind, tally: Tally, cut: string | undefined, elapsedMs: number, flags: ManyPagesFlags, code: number): void {
  const { done, failed } = tally;
  // Failed pages are errors: said even with -q (the data of cron runs is what -q is for, not silence on failure).
  const failedLine = failed > 0 ? `webjobs: ${failed} of ${count(done, 'page')} failed (exit code ${code}${code === ExitCode.changed ? ': a page changed too' : ''})\n` : '';
  if (flags.quiet) {
    process.stderr.write(failedLine);
    return;
  }
  const rate = (done / Math.max(elapsedMs / 1000, 0.001)).toFixed(1);
  const what = kind === 'batch' ? 'scraped' : 'crawled';
  const failedText = failed > 0 ? colors.red(`, ${failed} failed`) : '';
  if (showProgress(flags)) {
    process.stderr.write(`${colors.green('✔')} ${count(done, 'page')} ${what}${failedText} in ${(elapsedMs / 1000).toFixed(1)}s (${rate} pages/s)${cut ? `, ${cut}` : ''}\n`);
  } else {
    process.stderr.write(failedLine);
    if (cut) process.stderr.write(`webjobs: the crawl ${cut}\n`);
  }
  tally.notes.tell(done);
}

/**
 * Good copies that bad pages did not replace (--output-dir's files, -o's sections):
 * said even with -q, as the page's error. `where`: -o's file, when sections.
 */
function tellKept(kept: readonly (KeptFile | KeptSection)[], where: string | undefined, fail: boolean | undefined, hint = true): void {
  for (const page of kept) {
    const good = 'file' in page ? page.file : `its section in ${where}`;
    const failed = page.trouble.startsWith('failed: ');
    const how = fail || failed ? 'webjobs: ' : 'webjobs: warning: ';
    const what = failed ? page.trouble : `answered ${page.trouble}`;
    process.stderr.write(`${how}${page.url} ${what}; ${good} is the last good page, kept${fail || failed || !hint ? '' : ' (--fail counts the page as failed)'}\n`);
  }
}

/** "43 of 200 pages done" for a stopped batch, "43 pages done" for a stopped crawl. */
async function describeStopped(kind: ManyKind, backend: JobBackend, jobId: string): Promise<string> {
  const { done, total } = await countEntries(entriesOf(backend, kind, jobId));
  return kind === 'batch' ? `${done} of ${count(total, 'page')} done` : `${count(done, 'page')} done`;
}

/**
 * Runs a batch or crawl job and writes its pages. Exit code: 0 every page
 * completed, 3 the job completed with failed pages; a failed job throws (1).
 * --jsonl lines and --output-dir files are written as pages finish.
 */
export async function runManyPages<K extends ManyKind>(
  kind: K,
  request: JobRequestByKind[K] | undefined,
  flags: ManyPagesFlags,
  label: string,
  total: number,
  start?: RunJobOptions['start'],
): Promise<number> {
  checkFlags(flags);
  const started = Date.now();
  // --fail: pages answered with an HTTP error are failed ones, in every output and in the exit code.
  const read = (backend: JobBackend, jobId: string) => entriesOf(backend, kind, jobId, flags.fail ? failHttpError : undefined);
  let jsonl: OutputStream | undefined;
  let writes: Promise<void> = Promise.resolve();
  const dir = flags.outputDir ? new OutputDir(flags.outputDir, flags.formats, flags.frontMatter, flags.apiKey ?? process.env.WEBJOBS_API_KEY) : undefined;
  await dir?.create();
  // A batch's files are named in the order of its list, not as pages finish: two runs name them alike.
  if (kind === 'batch' && request) dir?.nameInOrder((request as JobRequestByKind['batch']).urls);
  if (flags.jsonl) jsonl = await openOutput(flags.output);
  /** What the tally reads of each entry told as the job ran, by index: with every one of them, none is read back. */
  const told = new Map<number, PageEntry>();
  const onPage = (page: PageEntry, index: number) => {
    const entry = flags.fail ? failHttpError(page) : page;
    told.set(index, tallied(entry));
    dir?.add(entry, index);
    if (jsonl) {
      // `index`: the page's place in the submitted list (0-based), as lines come in the order pages finish.
      const line = `${JSON.stringify({ index, ...entry })}\n`;
      // Handed to the stream at once, which keeps their order and writes the lines waiting in one call.
      const written = jsonl.write(line);
      writes = Promise.all([writes, written]).then(() => undefined);
      writes.catch(() => undefined); // handled where the command awaits it; no unhandled rejection before
    }
  };
  const options: RunJobOptions = {
    start,
    label,
    describeProgress: describeProgress(kind, total),
    onPage: dir || jsonl ? onPage : undefined,
    onStarted: (jobId) => keepRunOptions(jobId, flags),
    describeStopped: (backend: JobBackend, jobId: string) => describeStopped(kind, backend, jobId),
    onStopped: async ({ backend, jobId }: FinishedJob) => {
      await writes;
      await dir?.finish(jobId, read(backend, jobId));
    },
  };
  try {
    return await runJob(kind, request!, flags, options, async (job) => {
      await writes;
      return finish(kind, job, flags, { started, total, dir, read, told });
    });
  } finally {
    await writes.catch(() => undefined);
    await jsonl?.close();
  }
}

interface Finishing {
  started: number;
  /** Batch: the URL count; crawl: --max-pages. */
  total: number;
  dir: OutputDir | undefined;
  read: (backend: JobBackend, jobId: string) => AsyncGenerator<PageEntry>;
  told: ReadonlyMap<number, PageEntry>;
}

/** What countEntries reads of an entry: not its content, which a 10,000-page crawl must not keep. */
function tallied({ url, status, error, metadata, changeTracking }: PageEntry): PageEntry {
  return { url, status, error, metadata, ...(changeTracking ? { changeTracking: { ...changeTracking, diff: undefined } } : {}) };
}

/** Every entry of the job as it was told while it ran, in order; undefined when some were not (an earlier run's). */
function allTold(told: ReadonlyMap<number, PageEntry>, entries: number): PageEntry[] | undefined {
  if (told.size !== entries) return undefined;
  const all = Array.from({ length: entries }, (_, i) => told.get(i));
  return all.every((entry) => entry !== undefined) ? (all as PageEntry[]) : undefined;
}

async function finish(kind: ManyKind, { backend, jobId }: FinishedJob, flags: ManyPagesFlags, { started, total, dir, read, told }: Finishing): Promise<number> {
  const { head, entries } = await headOf(backend, kind, jobId);
  let kept: readonly (KeptFile | KeptSection)[] = [];
  if (dir) {
    await dir.finish(jobId, read(backend, jobId));
    kept = dir.keptFiles();
  } else if (flags.json) {
    const out = await openOutput(flags.output);
    try {
      await writeMergedRecord(out, backend, kind, jobId, flags.fail ? failHttpError : undefined);
    } finally {
      await out.close();
    }
  } else if (!flags.jsonl && head.status === 'completed') {
    kept = await writeTextPages(flags.output, () => read(backend, jobId), flags.formats, entries);
  }
  if (head.status !== 'completed') {
    throw new JobFailedError(`${kind} job ${jobId} ${head.status}: ${head.error ?? 'no reason given'}`);
  }
  const tally = await countEntries(allTold(told, entries) ?? read(backend, jobId));
  // A change is the alert --exit-code asked for: it wins over failed pages, which stderr and index.json name.
  const code = flags.exitCode && tally.changed > 0 ? ExitCode.changed : tally.failed > 0 ? ExitCode.partial : ExitCode.ok;
  tellKept(kept, flags.output, flags.fail);
  summary(kind, tally, crawlCut(kind, head, total), Date.now() - started, flags, code);
  return code;
}
