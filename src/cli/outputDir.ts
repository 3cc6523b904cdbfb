/**
 * --output-dir: the pages of a batch or crawl as files, one per page and format,
 * and an index.json that a script reads with jq.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { OutputWriteError, UsageError, WebjobsError } from '../api/errors.js';
import type { Format, PageEntry } from '../api/types.js';
import { makeDirs } from './output.js';
import { httpErrorStatus, pageTrouble, statusText } from './pageChecks.js';
import { readScreenshot } from './screenshot.js';
import { FORMAT_EXTENSIONS, formatsOrDefault, renderFormat, withNewline } from '../api/renderPage.js';

/** A file name from the URL, without extension: host and path, made safe; duplicates get -2, -3... */
export function baseNameFor(url: string, taken: Set<string>): string {
  let base: string;
  try {
    const u = new URL(url);
    const tail = `${u.pathname}${u.search}`.replace(/\/+$/, '') || '/index';
    base = `${u.host}${tail}`;
  } catch {
    base = url;
  }
  base = base.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[_.]+|_+$/g, '').slice(0, 150) || 'page';
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}

/** The page's front matter fields, in this order; absent ones are left out. */
const FRONT_MATTER_FIELDS = ['title', 'url', 'sourceURL', 'statusCode', 'scrapedAt'] as const;

/**
 * A YAML block for the head of a Markdown file (static site generators and note
 * apps read it). Each value is a JSON string, which is a valid YAML double-quoted
 * scalar whatever the title holds (colons, quotes, line breaks).
 */
export function frontMatterOf(entry: Pick<PageEntry, 'metadata'>): string {
  const metadata = (entry.metadata ?? {}) as Record<string, string | undefined>;
  const lines = FRONT_MATTER_FIELDS.filter((field) => metadata[field] !== undefined).map((field) => `${field}: ${JSON.stringify(metadata[field])}`);
  return `---\n${lines.join('\n')}\n---\n\n`;
}

/**
 * Files written side by side (libuv's 4 threads each open, write and close one), and written files queued at most
 * while finish() reads a job's entries: it read 100,000 pages faster than one write at a time stored them, so their
 * contents piled up (465 MiB for a crawl of 100,000 pages, issue 59).
 */
const WRITE_LANES = 4;
export const WRITES_QUEUED = 256;

interface IndexRow {
  /** The file of the first format asked (the Markdown one by default); null for a page not completed. */
  file: string | null;
  /** Every file of the page, by format. */
  files: Partial<Record<Format, string>>;
  url: string;
  status: string;
  statusCode: number | null;
  error: string | null;
  /** With the changeTracking format: new, same, changed or removed since the last run (a same page's files are not written again). */
  changeStatus?: string;
}

/** A page of changes.json: one new, changed or removed since the last run. */
interface ChangeRow {
  url: string;
  changeStatus: string;
  previousScrapeAt: string | null;
  /** Its Markdown file, written by this run. */
  file: string | null;
  /** The unified diff of its Markdown, when changed. */
  diff?: string;
}

/**
 * --output-dir: one file per completed page and format asked (.md, .html,
 * .links.txt), written as soon as the page finishes, so an interrupted job leaves
 * what it did; and index.json, written at the end in the job's order, listing
 * every page. With the changeTracking format (a cron job run again into the same
 * directory), a page the same as last time keeps its files as they are, and
 * changes.json lists the pages new, changed or removed, with their diffs.
 */
export class OutputDir {
  private readonly taken = new Set<string>();
  private readonly formats: Format[];
  /** Files of each entry written so far, by its index in the job. */
  private readonly files = new Map<number, Partial<Record<Format, string>>>();
  /** Writes under way, each lane one after another (WRITE_LANES side by side); the first that failed stops the rest. */
  private readonly lanes: Promise<void>[] = Array.from({ length: WRITE_LANES }, () => Promise.resolve());
  private nextLane = 0;
  /** Writes queued and not yet done: finish() reads no further entries while WRITES_QUEUED are. */
  private queued = 0;
  private failed: { err: unknown } | undefined;

  constructor(
    private readonly dir: string,
    formats: Format[] | undefined,
    /** Markdown files start with YAML front matter: title, url, sourceURL, statusCode, scrapedAt. */
    private readonly frontMatter = false,
    /** The API key that downloads a remote job's screenshots from the service. */
    private readonly apiKey?: string,
  ) {
    this.formats = formatsOrDefault(formats);
  }

  async create(): Promise<void> {
    await makeDirs(path.resolve(this.dir)).catch((err: Error) => {
      throw new UsageError(`cannot create ${this.dir}: ${err.message}`);
    });
  }

  /** File names chosen ahead, by the entry's index: a batch's, in the order of its list (nameInOrder). */
  private readonly names = new Map<number, string>();

  /**
   * Names the files of `urls` (a batch's list) in that order before any page
   * finishes, so that when two URLs map to one name, the first in the list gets
   * it and the second `-2`, however the pages race.
   */
  nameInOrder(urls: readonly string[]): void {
    urls.forEach((url, index) => this.names.set(index, baseNameFor(url, this.taken)));
  }

  /**
   * Queues the page's files; a write error surfaces in finish(). A page answered
   * with an HTTP error never replaces a file (the last good page stays; it is
   * written only where there is no file yet), and a page the same as last run
   * rewrites only a file that no longer holds it (deleted, or replaced by hand).
   */
  add(entry: PageEntry, index: number): void {
    if (entry.status !== 'completed' || this.files.has(index)) return;
    // A page of the last crawl this one did not reach (or that answered 404 or 410): no content; its old files stay.
    if (entry.changeTracking?.changeStatus === 'removed') {
      this.files.set(index, {});
      return;
    }
    const base = this.names.get(index) ?? baseNameFor(entry.url, this.taken);
    const files: Partial<Record<Format, string>> = {};
    // Answered with an HTTP error (failed pages write nothing): never written over a file (pageChecks.ts, the one rule).
    const trouble = pageTrouble(entry);
    // The same as last run: its files stand as that run wrote them, unless they are gone or changed.
    const unchanged = entry.changeTracking?.changeStatus === 'same';
    for (const format of this.formats) {
      if (format === 'changeTracking') continue; // in changes.json
      if (format === 'screenshot') {
        if (entry.screenshot && trouble === undefined && !unchanged) files.screenshot = this.copy(entry.screenshot, base);
        continue;
      }
      const file = `${base}${FORMAT_EXTENSIONS[format]}`;
      const target = path.join(this.dir, file);
      const content = (this.frontMatter && format === 'markdown' ? frontMatterOf(entry) : '') + withNewline(renderFormat(entry, format));
      if (trouble !== undefined) {
        this.queue(async () => {
          files[format] = file;
          if (await exists(target)) this.kept.set(index, { url: entry.metadata?.url || entry.url, trouble, file });
          else await fs.writeFile(target, content);
        });
        continue;
      }
      files[format] = file;
      if (unchanged) this.queue(async () => ((await fs.readFile(target, 'utf8').catch(() => undefined)) === content ? undefined : fs.writeFile(target, content)));
      else this.queue(() => fs.writeFile(target, content));
    }
    this.files.set(index, files);
  }

  /** Pages answered with an HTTP error whose file was kept from an earlier run, by index. */
  private readonly kept = new Map<number, KeptFile>();

  /** The good files kept over error pages by this run, as finish() found them. */
  keptFiles(): KeptFile[] {
    return [...this.kept.values()];
  }

  private queue(write: () => Promise<unknown>): void {
    const lane = this.nextLane;
    this.nextLane = (lane + 1) % WRITE_LANES;
    this.queued++;
    this.lanes[lane] = this.lanes[lane]!.then(async () => {
      try {
        if (this.failed) return;
        await write();
      } catch (err) {
        this.failed ??= { err };
      } finally {
        this.queued--;
      }
    });
  }

  /** Files queued to be written and not written yet (what a test bounds while finish() reads). */
  get queuedWrites(): number {
    return this.queued;
  }

  /** Every write queued so far done; the first failure thrown. */
  private async written(): Promise<void> {
    await Promise.all(this.lanes);
    if (this.failed) throw this.failed.err;
  }

  /** Queues the copy of a screenshot (a path here, or a URL on the service) into `<base>.<ext>`; returns the file's name. */
  private copy(ref: string, base: string): string {
    const file = `${base}.${/\.(png|jpeg|webp)$/.exec(ref)?.[1] ?? 'png'}`;
    this.queue(async () => fs.writeFile(path.join(this.dir, file), await readScreenshot(ref, this.apiKey)));
    return file;
  }

  /** Writes the pages not written yet (a job waited for by polling) and index.json: `entries` are all the job's, in order. */
  async finish(jobId: string, entries: AsyncIterable<PageEntry>): Promise<void> {
    const rows: Omit<IndexRow, 'file' | 'files'>[] = [];
    const changes: (ChangeRow & { index: number })[] = [];
    let i = 0;
    for await (const entry of entries) {
      this.add(entry, i);
      const statusCode = Number(entry.metadata?.statusCode);
      const tracked = entry.changeTracking;
      const errorStatus = entry.status === 'completed' ? httpErrorStatus(entry) : undefined;
      rows.push({
        url: entry.url,
        status: entry.status,
        statusCode: Number.isInteger(statusCode) && statusCode > 0 ? statusCode : null,
        error: entry.error ?? (errorStatus !== undefined ? statusText(errorStatus) : null),
        ...(tracked ? { changeStatus: tracked.changeStatus } : {}),
      });
      if (tracked && tracked.changeStatus !== 'same') {
        changes.push({
          index: i,
          url: entry.url,
          changeStatus: tracked.changeStatus,
          previousScrapeAt: tracked.previousScrapeAt,
          file: null,
          ...(tracked.diff ? { diff: tracked.diff.text } : {}),
        });
      }
      i++;
      // Read ahead of the writes by WRITES_QUEUED at most: the pages' contents wait in memory until written.
      if (this.queued >= WRITES_QUEUED) await Promise.all(this.lanes);
    }
    const indexFile = path.join(this.dir, 'index.json');
    const changesFile = path.join(this.dir, 'changes.json');
    const first = this.formats.find((format) => format !== 'changeTracking')!;
    await this.written()
      .then(() => {
        const index: IndexRow[] = rows.map((row, n) => {
          const files = this.files.get(n) ?? {};
          const kept = this.kept.get(n);
          return { file: files[first] ?? null, files, ...row, ...(kept ? { error: `${row.error}; ${kept.file} is the last good page, kept` } : {}) };
        });
        const pages = changes.map(({ index: n, ...change }) => ({ ...change, file: this.files.get(n)?.markdown ?? null }));
        return (this.formats.includes('changeTracking') ? fs.writeFile(changesFile, `${JSON.stringify({ jobId, pages }, null, 2)}\n`) : Promise.resolve()).then(() =>
          writeIndex(indexFile, jobId, index),
        );
      })
      .catch((err: NodeJS.ErrnoException) => {
        throw err instanceof WebjobsError ? err : OutputWriteError.of(err.path ?? indexFile, err);
      });
  }
}

/**
 * index.json as JSON.stringify({ jobId, pages }, null, 2) writes it, a page at a time: a crawl of 100,000 pages
 * is never one string of them all.
 */
async function writeIndex(file: string, jobId: string, pages: readonly IndexRow[]): Promise<void> {
  const handle = await fs.open(file, 'w');
  try {
    let text = `{\n  "jobId": ${JSON.stringify(jobId)},\n  "pages": [`;
    for (const [i, page] of pages.entries()) {
      text += `${i === 0 ? '\n' : ',\n'}    ${JSON.stringify(page, null, 2).replace(/\n/g, '\n    ')}`;
      if (text.length >= 1 << 20) {
        await handle.writeFile(text);
        text = '';
      }
    }
    await handle.writeFile(`${text}${pages.length > 0 ? '\n  ' : ''}]\n}\n`);
  } finally {
    await handle.close();
  }
}

/** A good file an error page did not replace. */
export interface KeptFile {
  url: string;
  /** What went wrong (pageTrouble): "HTTP 500 Internal Server Error". */
  trouble: string;
  file: string;
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}
