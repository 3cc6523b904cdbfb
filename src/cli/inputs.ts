/**
 * What the user hands the job commands besides flags: a list of URLs (a file, or
 * stdin) and the pages themselves (a URL, a saved page's path, or HTML on stdin).
 * Every read is capped: `--file /dev/zero` or an endless stdin fail in one line
 * naming the cap, they are never read whole.
 */
import { createReadStream, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LimitError, UsageError } from '../api/errors.js';
import { LIMITS } from '../api/limits.js';
import { thousands } from '../api/thousands.js';

/** A URL and where the user wrote it, so errors can point at the line. */
export interface Sourced {
  url: string;
  where: string;
  /** Why the line cannot be read, when it names a saved page that is not there. */
  problem?: string;
}

/** A URL list is read up to this many bytes: 1,000 URLs of 10 KB each. */
export const MAX_URL_LIST_BYTES = 10 * 1024 * 1024;
/** HTML on stdin is read up to this many bytes, what the engine reads of a page (http/fetchPage.ts MAX_HTML_BYTES). */
export const MAX_STDIN_PAGE_BYTES = 20 * 1024 * 1024;

const MB = (bytes: number) => `${bytes / 1024 / 1024} MB`;

function chunksOf(file: string): AsyncIterable<Buffer> {
  return file === '-' ? (process.stdin as AsyncIterable<Buffer>) : createReadStream(file);
}

function nameOf(file: string): string {
  return file === '-' ? 'stdin' : file;
}

function readError(file: string, err: unknown): UsageError {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (err as Error).message;
  return new UsageError(`cannot read ${file}: ${why}`);
}

/**
 * One URL a line from a file or stdin ('-'); blank lines and lines starting with
 * # are skipped but still counted for line numbers. A list of more than
 * LIMITS.maxBatchUrls URLs is refused once read (only its count is kept past the
 * limit); reading stops, and the list is refused, past MAX_URL_LIST_BYTES bytes.
 */
export async function readUrlList(file: string): Promise<Sourced[]> {
  const name = nameOf(file);
  const found: Sourced[] = [];
  let bytes = 0;
  let line = 0;
  let rest = '';
  let count = 0;
  const take = (text: string): void => {
    line++;
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    if (++count <= LIMITS.maxBatchUrls) found.push({ url: trimmed, where: `${name} line ${line}` });
  };
  try {
    // Leaving the loop early (a cap) destroys the stream: stdin's writer gets EPIPE, a file is closed.
    for await (const chunk of chunksOf(file)) {
      bytes += chunk.length;
      if (bytes > MAX_URL_LIST_BYTES) {
        throw new LimitError(`${name} holds more than ${MB(MAX_URL_LIST_BYTES)}; a URL list is read up to ${MB(MAX_URL_LIST_BYTES)} (a batch takes at most ${thousands(LIMITS.maxBatchUrls)} URLs)`);
      }
      const lines = (rest + chunk.toString('utf8')).split(/\r?\n/);
      rest = lines.pop()!;
      lines.forEach(take);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw readError(name, err);
  }
  if (rest !== '') take(rest);
  if (count > LIMITS.maxBatchUrls) {
    throw new LimitError(`${count} URLs given; a batch takes at most ${thousands(LIMITS.maxBatchUrls)}. Split the list into several batches.`);
  }
  return found;
}

/** Looks like a path the user meant as a file (./page.html, /tmp/x, saved.htm), not a host name. */
function looksLikePath(arg: string): boolean {
  return /^(\.{0,2}\/|~\/)/.test(arg) || /\.(html?|xhtml|shtml|txt)$/i.test(arg);
}

/**
 * The page an argument names: an http(s) URL as written; a path to an existing
 * file, as the file:// URL of that saved page (read on this machine, never sent
 * to a service: refused with --remote). Anything else is returned as written, for
 * the URL check to explain.
 */
export async function pageInput(arg: string, options: { remote: boolean }): Promise<string> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(arg) && !/^[a-z]:[\\/]/i.test(arg)) return arg;
  const stat = await fs.stat(arg).catch(() => undefined);
  if (!stat) {
    if (looksLikePath(arg)) throw new UsageError(`cannot read ${arg}: no such file (a saved page is named by its path; a site by its URL, https://...)`);
    return arg;
  }
  if (stat.isDirectory()) throw new UsageError(`cannot read ${arg}: it is a folder (name a saved page, e.g. ${path.join(arg, 'index.html')})`);
  if (options.remote) throw new UsageError(`${arg} is a saved page on this machine: --remote reads http(s) URLs only; drop --remote to read it here`);
  return pathToFileURL(path.resolve(arg)).href;
}

/** A saved page on stdin (`webjobs scrape -`), written to a temporary file the job reads. */
export interface StdinPage {
  url: string;
  remove(): Promise<void>;
}

/** Reads HTML from stdin, up to MAX_STDIN_PAGE_BYTES, into a file of its own that remove() deletes. */
export async function readStdinPage(): Promise<StdinPage> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_STDIN_PAGE_BYTES) throw new LimitError(`the page on stdin is over ${MB(MAX_STDIN_PAGE_BYTES)}; a page is read up to ${MB(MAX_STDIN_PAGE_BYTES)}`);
    chunks.push(chunk);
  }
  if (bytes === 0) throw new UsageError('nothing on stdin: pipe a page into webjobs scrape -, e.g. curl -s URL | webjobs scrape -');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'webjobs-stdin-'));
  const file = path.join(dir, 'stdin.html');
  await fs.writeFile(file, Buffer.concat(chunks));
  return { url: pathToFileURL(file).href, remove: () => fs.rm(dir, { recursive: true, force: true }) };
}
