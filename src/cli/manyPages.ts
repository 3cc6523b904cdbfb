/**
 * Output of the many-page commands (batch, crawl): --json, --jsonl, --output-dir
 * or Markdown with a header per page, and the exit code that tells cron whether
 * every page made it. Records are read back from the back end one result batch at
 * a time, so a 1,000-page job never sits in memory as one string.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import type { JobBackend, JobProgress } from '../api/backend.js';
import { ExitCode, JobFailedError, UsageError } from '../api/errors.js';
import type { Format, JobRecordByKind, PageEntry } from '../api/types.js';
import { renderPage } from './commands/scrape.js';
import { parseInteger, type RunFlags } from './options.js';
import { openOutput, type OutputStream } from './output.js';
import { runJob, type FinishedJob } from './runJob.js';
import { colors, stderrIsTerminal } from './terminal.js';

export type ManyKind = 'batch' | 'crawl';

export interface ManyPagesFlags extends RunFlags {
  jsonl?: boolean;
  outputDir?: string;
  formats?: Format[];
}

/** Entries read per round trip to the store; small enough to keep memory flat. */
const READ_BATCH = 100;

export function addManyPagesOptions(cmd: Command): Command {
  return cmd
    .option('--jsonl', 'print one JSON page entry per line, as each page finishes')
    .option('--output-dir <dir>', 'write one Markdown file per page and an index.json into this folder');
}

export function addConcurrencyOption(cmd: Command): Command {
  return cmd.option('--concurrency <n>', 'pages loaded at once (browser tabs); default: tuned to this machine', parseInteger('--concurrency', 1));
}

function checkFlags(flags: ManyPagesFlags): void {
  const modes = [flags.json && '--json', flags.jsonl && '--jsonl', flags.outputDir && '--output-dir'].filter(Boolean);
  if (modes.length > 1) throw new UsageError(`choose one of ${modes.join(' and ')}`);
  if (flags.outputDir && flags.output) throw new UsageError('--output-dir writes files itself; drop -o/--output');
}

/** Every entry of a finished job, in order, one result batch at a time. */
async function* entriesOf(backend: JobBackend, kind: ManyKind, jobId: string): AsyncGenerator<PageEntry> {
  for (let page = 1; ; page++) {
    const record = await backend.result(kind, jobId, { page, batchSize: READ_BATCH });
    yield* record.data;
    if (page >= record.totalPageBatches || record.data.length === 0) return;
  }
}

function describeProgress(total: number) {
  return (p: JobProgress, elapsedMs: number): string => {
    const rate = elapsedMs > 0 ? (p.done / (elapsedMs / 1000)).toFixed(1) : '0.0';
    const failed = p.failed > 0 ? colors.red(`, ${p.failed} failed`) : '';
    return `${p.done}/${total} pages done${failed} · ${rate} pages/s`;
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

/** Markdown (or the asked format) of every page, each under a `==> [n/total] URL <==` header. */
async function writeText(out: OutputStream, backend: JobBackend, kind: ManyKind, jobId: string, flags: ManyPagesFlags, total: number): Promise<void> {
  let n = 0;
  for await (const entry of entriesOf(backend, kind, jobId)) {
    n++;
    const body = entry.status === 'completed' ? renderPage(entry, flags.formats) : '';
    await out.write(`${n > 1 ? '\n' : ''}${pageHeader(entry, n, total)}\n\n${body}${body.endsWith('\n') || body === '' ? '' : '\n'}`);
  }
}

/** Entries of the job, from its record read with batchSize 1 (a batch has one result batch per entry then). */
function entryTotal(kind: ManyKind, head: JobRecordByKind[ManyKind]): number {
  if (kind === 'crawl') return (head as JobRecordByKind['crawl']).totalCrawledPages;
  return head.data.length === 0 ? 0 : head.totalPageBatches;
}

/** A file name from the URL: host and path, made safe, ".md"; duplicates get -2, -3... */
export function fileNameFor(url: string, taken: Set<string>): string {
  let base: string;
  try {
    const u = new URL(url);
    const tail = `${u.pathname}${u.search}`.replace(/\/+$/, '') || '/index';
    base = `${u.host}${tail}`;
  } catch {
    base = url;
  }
  base = base.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[_.]+|_+$/g, '').slice(0, 150) || 'page';
  let name = `${base}.md`;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}.md`;
  taken.add(name);
  return name;
}

async function writeDir(dir: string, backend: JobBackend, kind: ManyKind, jobId: string, flags: ManyPagesFlags): Promise<void> {
  await fs.mkdir(dir, { recursive: true }).catch((err: Error) => {
    throw new UsageError(`cannot create ${dir}: ${err.message}`);
  });
  const taken = new Set<string>();
  const index: { file: string | null; url: string; status: string; error: string | null }[] = [];
  for await (const entry of entriesOf(backend, kind, jobId)) {
    let file: string | null = null;
    if (entry.status === 'completed') {
      file = fileNameFor(entry.url, taken);
      await fs.writeFile(path.join(dir, file), renderPage(entry, flags.formats));
    }
    index.push({ file, url: entry.url, status: entry.status, error: entry.error });
  }
  await fs.writeFile(path.join(dir, 'index.json'), `${JSON.stringify({ jobId, pages: index }, null, 2)}\n`);
}

async function countFailed(backend: JobBackend, kind: ManyKind, jobId: string): Promise<{ done: number; failed: number }> {
  let done = 0;
  let failed = 0;
  for await (const entry of entriesOf(backend, kind, jobId)) {
    done++;
    if (entry.status !== 'completed') failed++;
  }
  return { done, failed };
}

function summary(kind: ManyKind, done: number, failed: number, elapsedMs: number): void {
  const rate = (done / Math.max(elapsedMs / 1000, 0.001)).toFixed(1);
  const what = kind === 'batch' ? 'scraped' : 'crawled';
  const failedText = failed > 0 ? colors.red(`, ${failed} failed`) : '';
  if (stderrIsTerminal()) process.stderr.write(`${colors.green('✔')} ${done} pages ${what}${failedText} in ${(elapsedMs / 1000).toFixed(1)}s (${rate} pages/s)\n`);
  else if (failed > 0) process.stderr.write(`webjobs: ${failed} of ${done} pages failed (exit code 3)\n`);
}

/**
 * Runs a batch or crawl job and writes its pages. Exit code: 0 every page
 * completed, 3 the job completed with failed pages; a failed job throws (1).
 */
export async function runManyPages<K extends ManyKind>(
  kind: K,
  request: Parameters<JobBackend['start']>[1] & object,
  flags: ManyPagesFlags,
  label: string,
  total: number,
): Promise<number> {
  checkFlags(flags);
  const started = Date.now();
  let jsonl: OutputStream | undefined;
  let writes: Promise<void> = Promise.resolve();
  if (flags.jsonl && flags.wait) jsonl = await openOutput(flags.output);
  const onPage = jsonl
    ? (entry: PageEntry) => {
        const line = `${JSON.stringify(entry)}\n`;
        writes = writes.then(() => jsonl!.write(line));
      }
    : undefined;
  try {
    return await runJob(kind, request as never, flags, { label, describeProgress: describeProgress(total), onPage }, async (job) =>
      finish(kind, job, flags, started, async () => {
        await writes;
      }),
    );
  } finally {
    await writes.catch(() => undefined);
    await jsonl?.close();
  }
}

async function finish(kind: ManyKind, { backend, jobId }: FinishedJob, flags: ManyPagesFlags, started: number, drain: () => Promise<void>): Promise<number> {
  const head = await backend.result(kind, jobId, { page: 1, batchSize: 1 });
  if (!flags.jsonl) {
    if (flags.outputDir) await writeDir(flags.outputDir, backend, kind, jobId, flags);
    else {
      const out = await openOutput(flags.output);
      try {
        if (flags.json) await writeJson(out, backend, kind, jobId, head);
        else if (head.status === 'completed') await writeText(out, backend, kind, jobId, flags, entryTotal(kind, head));
      } finally {
        await out.close();
      }
    }
  }
  await drain();
  if (head.status !== 'completed') {
    throw new JobFailedError(`${kind} job ${jobId} ${head.status}: ${head.error ?? 'no reason given'}`);
  }
  const { done, failed } = await countFailed(backend, kind, jobId);
  summary(kind, done, failed, Date.now() - started);
  return failed > 0 ? ExitCode.partial : ExitCode.ok;
}
