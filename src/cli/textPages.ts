/**
 * The pages of a batch or crawl as text, to stdout or -o FILE: each page's Markdown
 * (or the asked format) under a `==> [n/total] URL <==` header. A page that failed
 * or answered with an HTTP error never puts its content there (issue 56): where -o's
 * file held a good copy of that page (a cron job writing the same file every day),
 * its section is kept as it was; elsewhere the header names the error, with no body.
 */
import { createReadStream, promises as fs } from 'node:fs';
import type { Format, PageEntry } from '../api/types.js';
import { renderPage } from '../api/renderPage.js';
import { openOutput, resolveOutput } from './output.js';
import { pageTrouble } from './pageChecks.js';

/** A page whose good section of the file -o replaced was kept, with what went wrong this time. */
export interface KeptSection {
  url: string;
  trouble: string;
}

/** `==> [n/total] URL <==` of a good page; `==> [n/total] URL (what went wrong) <==` of a bad one. */
function pageHeader(url: string, n: number, total: number, trouble?: string): string {
  return `==> [${n}/${total}] ${url}${trouble ? ` (${trouble})` : ''} <==`;
}

/** A header line as pageHeader writes it: the URL, and whether the page was good (no parenthesis after it). */
const HEADER = /^==> \[\d+\/\d+\] (\S+)( \(.*\))? <==$/;

/** The file's lines, split on \n alone (each line's \r, if any, stays), read a chunk at a time. */
async function* linesOf(file: string): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of createReadStream(file, { encoding: 'utf8' }) as AsyncIterable<string>) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    yield* parts;
  }
  yield rest;
}

/**
 * The bodies of good pages' sections in an earlier output of writeText, for the
 * URLs asked only (the rest is not kept in memory), byte for byte as written.
 */
async function goodSections(file: string, urls: ReadonlySet<string>): Promise<Map<string, string>> {
  const sections = new Map<string, string>();
  let current: { url: string; lines: string[] } | undefined;
  const close = () => {
    if (!current) return;
    // After its header: a blank line, the body's lines (it ends with a newline), then the blank line before the next
    // header, or what follows the file's last newline (nothing).
    const body = current.lines.slice(1, -1).map((line) => `${line}\n`).join('');
    if (!sections.has(current.url)) sections.set(current.url, body);
    current = undefined;
  };
  for await (const line of linesOf(file)) {
    const header = HEADER.exec(line);
    if (header) {
      close();
      if (header[2] === undefined && urls.has(header[1]!)) current = { url: header[1]!, lines: [] };
      continue;
    }
    current?.lines.push(line);
  }
  close();
  return sections;
}

/** The bad pages' URLs, when -o names a regular file that exists (whose good sections they keep). */
async function badPagesOf(outFile: string | undefined, entries: AsyncIterable<PageEntry>): Promise<{ file: string; urls: Set<string> } | undefined> {
  const target = await resolveOutput(outFile);
  if (target.kind !== 'file' || !(await fs.stat(target.path).then((s) => s.size > 0, () => false))) return undefined;
  const urls = new Set<string>();
  for await (const entry of entries) if (pageTrouble(entry) !== undefined) urls.add(entry.url);
  return urls.size > 0 ? { file: target.path, urls } : undefined;
}

/**
 * Writes every page (pages a stopped job never did, pending, are left out) to
 * stdout or `outFile`. `read` gives the job's entries in order, each call from the
 * start: once more first when -o's file exists and some page is bad. Returns the
 * sections kept from the file's last good copy.
 */
export async function writeTextPages(
  outFile: string | undefined,
  read: () => AsyncIterable<PageEntry>,
  formats: Format[] | undefined,
  total: number,
): Promise<KeptSection[]> {
  const bad = await badPagesOf(outFile, read());
  const good = bad ? await goodSections(bad.file, bad.urls) : new Map<string, string>();
  const kept: KeptSection[] = [];
  const out = await openOutput(outFile);
  try {
    let n = 0;
    let written = 0;
    for await (const entry of read()) {
      n++;
      if (entry.status === 'pending') continue;
      const trouble = pageTrouble(entry);
      const last = trouble === undefined ? undefined : good.get(entry.url);
      if (last !== undefined) kept.push({ url: entry.url, trouble: trouble! });
      const body = last ?? (trouble === undefined ? renderPage(entry, formats) : '');
      const header = pageHeader(entry.url, n, total, last === undefined ? trouble : undefined);
      await out.write(`${written++ > 0 ? '\n' : ''}${header}\n\n${body}${body.endsWith('\n') || body === '' ? '' : '\n'}`);
    }
  } finally {
    await out.close();
  }
  return kept;
}
