/**
 * Output of the many-page commands (batch, crawl): --json, --jsonl, --output-dir
 * or Markdown with a header per page, and the exit code that tells cron whether
 * every page made it. Records are read back from the back end one result batch at
 * a time, so a 1,000-page job never sits in memory as one string.
 */
import { Command } from 'commander';
import type { JobBackend, JobProgress, PagedEntries } from '../api/backend.js';
import { ExitCode, JobFailedError, UsageError } from '../api/errors.js';
import { LIMITS } from '../api/limits.js';
import type { Format, JobRecordByKind, JobRequestByKind, PageEntry, PageQuery } from '../api/types.js';
import { validatePageQuery } from '../api/validate.js';
import { OutputDir } from './outputDir.js';
import { renderPage } from './pageText.js';
import { parseInteger, type RunFlags } from './options.js';
import { openOutput, type OutputStream } from './output.js';
import { runJob, type FinishedJob } from './runJob.js';
import { colors, showProgress } from './terminal.js';

export type ManyKind = 'batch' | 'crawl';

export interface ManyPagesFlags extends RunFlags {
  jsonl?: boolean;
  outputDir?: string;
  formats?: Format[];
  frontMatter?: boolean;
}

/** Entries read per round trip to the store; small enough to keep memory flat. */
const READ_BATCH = 100;

export function addManyPagesOptions(cmd: Command): Command {
  return cmd
    .option('--jsonl', 'print one JSON page entry per line, as each page finishes')
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
    '--delay <ms>',
    `milliseconds between two requests to one host, one at a time (at most ${LIMITS.maxDelayMs}); default: none, at most ${LIMITS.perHostConcurrency} at once per host`,
    parseInteger('--delay', 0, LIMITS.maxDelayMs),
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
  if (flags.frontMatter && !flags.outputDir) throw new UsageError('--front-matter goes with --output-dir');
  if (!flags.wait && (flags.outputDir || flags.jsonl)) {
    throw new UsageError(`--no-wait returns before any page is done, so ${flags.outputDir ? '--output-dir' : '--jsonl'} would get nothing: drop --no-wait, or read the job later with webjobs result`);
  }
}

/** Result batch `query`: its fields, and its entries read a part at a time where the back end can (resultEntries). */
async function readBatch(backend: JobBackend, kind: ManyKind, jobId: string, query: Required<PageQuery>): Promise<PagedEntries> {
  if (backend.resultEntries) return backend.resultEntries(kind, jobId, query);
  const { data, ...record } = await backend.result(kind, jobId, query);
  return { record, entries: data };
}

/** Every entry of a finished job, in order, one result batch at a time. */
async function* entriesOf(backend: JobBackend, kind: ManyKind, jobId: string): AsyncGenerator<PageEntry> {
  for (let page = 1; ; page++) {
    const { record, entries } = await readBatch(backend, kind, jobId, { page, batchSize: READ_BATCH });
    let read = 0;
    for await (const entry of entries) {
      read++;
      yield entry;
    }
    if (page >= record.totalPageBatches || read === 0) return;
  }
}

/**
 * `webjobs result` of a batch or crawl: result batch `query` as the JSON record, written
 * entry by entry (a batch of 19 MB pages never becomes one string).
 */
export async function writeResultBatch(kind: ManyKind, backend: JobBackend, jobId: string, query: PageQuery, output?: string): Promise<void> {
  const { record, entries } = await readBatch(backend, kind, jobId, validatePageQuery(query));
  const out = await openOutput(output);
  try {
    await out.write(JSON.stringify(record, null, 2).replace(/\n}$/, ',\n  "data": ['));
    let first = true;
    for await (const entry of entries) {
      await out.write(`${first ? '\n' : ',\n'}    ${JSON.stringify(entry, null, 2).replace(/\n/g, '\n    ')}`);
      first = false;
    }
    await out.write(`${first ? '' : '\n  '}]\n}\n`);
  } finally {
    await out.close();
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
      return `${p.done} page${p.done === 1 ? '' : 's'} crawled${failed}${found} · ${rate}`;
    }
    const eta = p.done > 0 && p.done < total && perSecond > 0 ? ` · about ${duration((total - p.done) / perSecond)} left` : '';
    return `${p.done}/${total} pages done${failed} · ${rate}${eta}`;
  };
}

/** The record as one JSON document with every result batch merged into `data`, written entry by entry. */
async function writeJson(out: OutputStream, backend: JobBackend, kind: ManyKind, jobId: string, head: JobRecordByKind[ManyKind]): Promise<void> {
  const { data: _data, ...fields } = head;
  const total = entryTotal(kind, head);
  const merged = { ...fields, totalPageBatches: 1, currentPageBatch: 1, batchSize: Math.max(1, total) };
  const opening = JSON.stringify(merged, null, 2).replace(/\n}$/, ',\n  "data": [');
  await out.write(opening);
  let first = true;
  for await (const entry of entriesOf(backend, kind, jobId)) {
    await out.write(`${first ? '\n' : ',\n'}    ${JSON.stringify(entry)}`);
    first = false;
  }
  await out.write(`${first ? '' : '\n  '}]\n}\n`);
}

function pageHeader(entry: PageEntry, n: number, total: number): string {
  const failed = entry.status === 'failed' ? ` (failed: ${entry.error})` : '';
  return `==> [${n}/${total}] ${entry.url}${failed} <==`;
}

/**
 * Markdown (or the asked formats) of every page, each under a `==> [n/total] URL <==`
 * header; pages a stopped job never did (pending) are left out.
 */
async function writeText(out: OutputStream, backend: JobBackend, kind: ManyKind, jobId: string, formats: Format[] | undefined, total: number): Promise<void> {
  let n = 0;
  let written = 0;
  for await (const entry of entriesOf(backend, kind, jobId)) {
    n++;
    if (entry.status === 'pending') continue;
    const body = entry.status === 'completed' ? renderPage(entry, formats) : '';
    await out.write(`${written++ > 0 ? '\n' : ''}${pageHeader(entry, n, total)}\n\n${body}${body.endsWith('\n') || body === '' ? '' : '\n'}`);
  }
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
  const head = await backend.result(kind, jobId, { page: 1, batchSize: 1 });
  const out = await openOutput(options.output);
  try {
    await writeText(out, backend, kind, jobId, options.formats, entryTotal(kind, head));
  } finally {
    await out.close();
  }
}

/** Entries of the job, from its record read with batchSize 1 (a batch has one result batch per entry then). */
function entryTotal(kind: ManyKind, head: JobRecordByKind[ManyKind]): number {
  if (kind === 'crawl') return (head as JobRecordByKind['crawl']).totalCrawledPages;
  return head.data.length === 0 ? 0 : head.totalPageBatches;
}

/** Entries finished (completed or failed) and failed; a stopped batch still has `pending` placeholders. */
async function countEntries(backend: JobBackend, kind: ManyKind, jobId: string): Promise<{ done: number; failed: number; total: number }> {
  let done = 0;
  let failed = 0;
  let total = 0;
  for await (const entry of entriesOf(backend, kind, jobId)) {
    total++;
    if (entry.status !== 'pending') done++;
    if (entry.status === 'failed') failed++;
  }
  return { done, failed, total };
}

function summary(kind: ManyKind, done: number, failed: number, elapsedMs: number, flags: ManyPagesFlags): void {
  const rate = (done / Math.max(elapsedMs / 1000, 0.001)).toFixed(1);
  const what = kind === 'batch' ? 'scraped' : 'crawled';
  const failedText = failed > 0 ? colors.red(`, ${failed} failed`) : '';
  if (flags.quiet) return;
  if (showProgress(flags)) process.stderr.write(`${colors.green('✔')} ${done} pages ${what}${failedText} in ${(elapsedMs / 1000).toFixed(1)}s (${rate} pages/s)\n`);
  else if (failed > 0) process.stderr.write(`webjobs: ${failed} of ${done} pages failed (exit code 3)\n`);
}

/** "43 of 200 pages done" for a stopped batch, "43 pages done" for a stopped crawl. */
async function describeStopped(kind: ManyKind, backend: JobBackend, jobId: string): Promise<string> {
  const { done, total } = await countEntries(backend, kind, jobId);
  return kind === 'batch' ? `${done} of ${total} pages done` : `${done} page${done === 1 ? '' : 's'} done`;
}

/**
 * Runs a batch or crawl job and writes its pages. Exit code: 0 every page
 * completed, 3 the job completed with failed pages; a failed job throws (1).
 * --jsonl lines and --output-dir files are written as pages finish.
 */
export async function runManyPages<K extends ManyKind>(
  kind: K,
  request: JobRequestByKind[K],
  flags: ManyPagesFlags,
  label: string,
  total: number,
): Promise<number> {
  checkFlags(flags);
  const started = Date.now();
  let jsonl: OutputStream | undefined;
  let writes: Promise<void> = Promise.resolve();
  const dir = flags.outputDir ? new OutputDir(flags.outputDir, flags.formats, flags.frontMatter, flags.apiKey ?? process.env.WEBJOBS_API_KEY) : undefined;
  await dir?.create();
  if (flags.jsonl) jsonl = await openOutput(flags.output);
  const onPage = (entry: PageEntry, index: number) => {
    dir?.add(entry, index);
    if (jsonl) {
      const line = `${JSON.stringify(entry)}\n`;
      writes = writes.then(() => jsonl!.write(line));
      writes.catch(() => undefined); // handled where the command awaits it; no unhandled rejection before
    }
  };
  const options = {
    label,
    describeProgress: describeProgress(kind, total),
    onPage: dir || jsonl ? onPage : undefined,
    describeStopped: (backend: JobBackend, jobId: string) => describeStopped(kind, backend, jobId),
    onStopped: async ({ backend, jobId }: FinishedJob) => {
      await writes;
      await dir?.finish(jobId, entriesOf(backend, kind, jobId));
    },
  };
  try {
    return await runJob(kind, request, flags, options, async (job) => {
      await writes;
      return finish(kind, job, flags, started, dir);
    });
  } finally {
    await writes.catch(() => undefined);
    await jsonl?.close();
  }
}

async function finish(kind: ManyKind, { backend, jobId }: FinishedJob, flags: ManyPagesFlags, started: number, dir: OutputDir | undefined): Promise<number> {
  const head = await backend.result(kind, jobId, { page: 1, batchSize: 1 });
  if (dir) await dir.finish(jobId, entriesOf(backend, kind, jobId));
  else if (!flags.jsonl) {
    const out = await openOutput(flags.output);
    try {
      if (flags.json) await writeJson(out, backend, kind, jobId, head);
      else if (head.status === 'completed') await writeText(out, backend, kind, jobId, flags.formats, entryTotal(kind, head));
    } finally {
      await out.close();
    }
  }
  if (head.status !== 'completed') {
    throw new JobFailedError(`${kind} job ${jobId} ${head.status}: ${head.error ?? 'no reason given'}`);
  }
  const { done, failed } = await countEntries(backend, kind, jobId);
  summary(kind, done, failed, Date.now() - started, flags);
  return failed > 0 ? ExitCode.partial : ExitCode.ok;
}
