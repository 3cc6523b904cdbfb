/**
 * A job's result as an MCP tool result: Markdown text for the model, the job
 * record beside it as structuredContent, both cut to one window of at most
 * RESULT_CHARS characters of page content. A cursor names where the next window
 * starts (an entry and a character offset in it), so a 1,000-page crawl or one
 * huge page is read in pieces instead of flooding the client's context.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JobBackend } from '../api/backend.js';
import { UsageError } from '../api/errors.js';
import { FORMATS, isTruncated, type ExtractJob, type Format, type JobKind, type PageData, type PageEntry } from '../api/types.js';
import { imageContent, type WindowOptions } from './window.js';
import { renderPage } from '../api/renderPage.js';
import { thousands } from '../api/thousands.js';

/** Characters of result text one tool call returns at most (about 5,000 tokens); docs/mcp.md documents it. */
export const RESULT_CHARS = 20_000;
/** Entries read from the back end per request while filling a window. */
const READ_BATCH = 50;

/** Where a window starts: entry `index` of the job's result, `offset` characters into that entry's content. */
interface Position {
  index: number;
  offset: number;
}

interface CursorData extends Position {
  jobId: string;
}

export function encodeCursor(cursor: CursorData): string {
  return Buffer.from(JSON.stringify([cursor.jobId, cursor.index, cursor.offset])).toString('base64url');
}

/** The position a cursor names; refused when it is not one of ours or belongs to another job. */
export function decodeCursor(cursor: string, jobId: string): Position {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || typeof parsed[0] !== 'string' || ![parsed[1], parsed[2]].every((n) => Number.isSafeInteger(n) && n >= 0)) {
    throw new UsageError('cursor is not one job_result gave; pass the cursor of the previous answer as it was');
  }
  if (parsed[0].toLowerCase() !== jobId.toLowerCase()) throw new UsageError(`cursor belongs to job ${parsed[0]}, not ${jobId}`);
  return { index: parsed[1], offset: parsed[2] };
}

/** A page's content as one string per format, in the order FORMATS lists them: what a window cuts. */
interface Parts {
  formats: Format[];
  texts: string[];
  length: number;
}

function partsOf(data: PageData): Parts {
  const formats = FORMATS.filter((format) => data[format] !== undefined);
  const texts = formats.map((format) =>
    format === 'links'
      ? (data.links ?? []).join('\n')
      : format === 'structuredData' || format === 'changeTracking' || format === 'json' || format === 'chunks'
        ? JSON.stringify(data[format], null, 2)
        : (data[format] ?? ''),
  );
  return { formats, texts, length: texts.reduce((sum, t) => sum + t.length, 0) };
}

/**
 * Where a window of at most `budget` characters from `from` ends: at a line
 * break when there is one in its second half (a cut line is hard to read and a
 * cut link is no link), else at the budget.
 */
function cutAt(content: string, from: number, budget: number): number {
  const end = from + Math.max(0, budget);
  if (end >= content.length) return content.length;
  const lineEnd = content.lastIndexOf('\n', end - 1);
  return lineEnd >= from + budget / 2 ? lineEnd + 1 : end;
}

/** The page's data with each format cut to the characters [from, to) of its parts. */
function slice(data: PageData, parts: Parts, from: number, to: number): PageData {
  const out: PageData = { metadata: data.metadata };
  let start = 0;
  parts.formats.forEach((format, i) => {
    const text = parts.texts[i]!;
    const a = Math.max(from, start) - start;
    const b = Math.min(to, start + text.length) - start;
    start += text.length;
    // A format the page has but left empty (no links) shows as empty in the first window; other formats only where they overlap it.
    if (b <= a && !(text === '' && from === 0)) return;
    const piece = text.slice(a, Math.max(a, b));
    // JSON cut in two is no JSON: the structured data shows whole, in the window where it starts.
    if (format === 'structuredData') {
      if (a === 0) out.structuredData = data.structuredData;
    } else if (format === 'changeTracking') {
      if (a === 0) out.changeTracking = data.changeTracking;
    } else if (format === 'json') {
      if (a === 0) out.json = data.json;
    } else if (format === 'chunks') {
      if (a === 0) out.chunks = data.chunks;
    } else if (format === 'links') out.links = piece.split('\n').filter((link) => link !== '');
    else out[format] = piece;
  });
  return out;
}

/** The part of one page a window shows, with the text for it. */
interface Piece<T extends PageData> {
  index: number;
  shown: T;
  text: string;
}

/**
 * What the structured content says of a page a window shows: its record without the content, which the text
 * carries (page content is sent once), and `chars`, the characters of its content the window shows, when not all.
 */
function described<T extends PageData>(shown: T, from: number, to: number, length: number): Omit<T, Exclude<Format, 'screenshot'>> & { chars?: [number, number, number] } {
  const { markdown: _m, html: _h, rawHtml: _r, links: _l, structuredData: _s, json: _j, chunks: _c, changeTracking: _t, ...rest } = shown;
  return { ...rest, ...(from === 0 && to === length ? {} : { chars: [from, to, length] as [number, number, number] }) };
}

/** "HTTP 500": the error status a page was answered with, if any. */
function httpError(data: Pick<PageData, 'metadata'>): string | undefined {
  const status = Number(data.metadata?.statusCode);
  return Number.isInteger(status) && status >= 400 ? `HTTP ${status}` : undefined;
}

function rangeNote(from: number, to: number, length: number): string {
  return from === 0 && to === length ? '' : `_(characters ${thousands(from)}–${thousands(to)} of ${thousands(length)})_\n\n`;
}

/**
 * Cuts one page from `offset` to what `budget` allows. `heading` is its Markdown
 * heading line(s); a window's first page always shows something, so every call
 * moves on.
 */
function cutPage<T extends PageData>(entry: T, index: number, offset: number, budget: number, heading: string): { piece: Piece<T>; end: number; length: number; from: number } {
  const parts = partsOf(entry);
  const end = cutAt(parts.texts.join(''), offset, Math.max(budget, 1));
  const { markdown: _m, html: _h, links: _l, structuredData: _s, json: _j, chunks: _c, ...rest } = entry;
  const shown = { ...rest, ...slice(entry, parts, offset, end) } as T;
  const visible = parts.formats.filter((format) => shown[format] !== undefined);
  const body = visible.length > 0 ? renderPage(shown, visible) : '';
  return { piece: { index, shown, text: `${heading}${rangeNote(offset, end, parts.length)}${body}` }, end, length: parts.length, from: offset };
}

function next(jobId: string, position: Position | undefined): { nextCursor?: string; footer: string } {
  if (!position) return { footer: '' };
  const nextCursor = encodeCursor({ jobId, ...position });
  return { nextCursor, footer: `\n\n---\nMore of this result: call job_result with {"jobId": "${jobId}", "cursor": "${nextCursor}"}` };
}

function textResult(text: string, structured: Record<string, unknown>, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

/** "cut at maxTokens" notes: a page whose Markdown the job's maxTokens cut says so in its window. */
function truncatedNote(data: PageData): string {
  return isTruncated(data) ? '_(cut at scrapeOptions.maxTokens: metadata.truncated)_\n\n' : '';
}

/** How a job stands, on one line: "scrape job ID: running", "scrape job ID failed: <its error>". */
function standing(kind: JobKind, jobId: string, status: string, error: string | undefined): string {
  return status === 'failed' ? `${kind} job ${jobId} failed: ${error ?? 'no reason given'}` : `${kind} job ${jobId}: ${status}`;
}

async function scrapeResult(backend: JobBackend, jobId: string, at: Position, options: WindowOptions): Promise<CallToolResult> {
  const record = await backend.result('scrape', jobId);
  const { data, ...rest } = record;
  // A failed job is a tool error; one still running or stopped before its page was read simply says so.
  if (!data) return textResult(standing('scrape', jobId, record.status, record.error), { kind: 'scrape', ...rest }, record.status === 'failed');
  const title = data.metadata.title ? `# ${data.metadata.title}\n` : '';
  // A page the server answered with an HTTP error is an error the agent sees at once, its content still shown.
  const failed = httpError(data);
  const warning = failed ? `The page answered ${failed}: this is its error page, not the content asked for.\n\n` : '';
  const cut = cutPage(data, 0, at.offset, options.chars, `${warning}${title}Source: ${data.metadata.url ?? data.metadata.sourceURL ?? ''}\n\n${truncatedNote(data)}`);
  const { nextCursor, footer } = next(jobId, cut.end < cut.length ? { index: 0, offset: cut.end } : undefined);
  const result = textResult(`${cut.piece.text}${footer}`, { kind: 'scrape', ...rest, data: described(cut.piece.shown, cut.from, cut.end, cut.length), ...(nextCursor ? { nextCursor } : {}) }, failed !== undefined);
  // A screenshot is shown to the agent as an image (in the first window), within the size cap.
  if (data.screenshot && at.offset === 0) result.content.push(await imageContent(data.screenshot, options));
  return result;
}

async function extractResult(backend: JobBackend, jobId: string, at: Position, options: WindowOptions): Promise<CallToolResult> {
  const record: ExtractJob = await backend.result('extract', jobId);
  const { data, ...rest } = record;
  if (record.status !== 'completed') {
    return textResult(standing('extract', jobId, record.status, record.error), { kind: 'extract', ...rest }, record.status === 'failed');
  }
  const json = JSON.stringify(data ?? null, null, 2);
  const end = cutAt(json, at.offset, options.chars);
  const whole = at.offset === 0 && end === json.length;
  const { nextCursor, footer } = next(jobId, end < json.length ? { index: 0, offset: end } : undefined);
  const text = `Extracted data (job ${jobId}):\n\n${rangeNote(at.offset, end, json.length)}\`\`\`json\n${json.slice(at.offset, end)}\n\`\`\`${footer}`;
  // Cut JSON is no value: a window of a large result carries its text, the whole one the data itself.
  const structured = whole ? { kind: 'extract', ...record } : { kind: 'extract', ...rest, dataJson: json.slice(at.offset, end), nextCursor };
  return textResult(text, structured);
}

function entryHeading(entry: PageEntry, index: number): string {
  const title = entry.metadata.title ? ` ${entry.metadata.title}` : '';
  // A page answered with an HTTP error failed for the agent: "(failed: HTTP 500)", its error page below.
  const failed = entry.status === 'completed' ? httpError(entry) : undefined;
  const status = failed ? `failed: ${failed}` : `${entry.status}${entry.error ? `: ${entry.error}` : ''}`;
  return `## ${index + 1}.${title}\n${entry.url} (${status})\n\n${truncatedNote(entry)}`;
}

/** Pages of a batch or crawl from `at`, as many as the window holds. */
async function pagedResult(backend: JobBackend, kind: 'batch' | 'crawl', jobId: string, at: Position, options: WindowOptions): Promise<CallToolResult> {
  const pieces: (Piece<PageEntry> & { from: number; end: number; length: number })[] = [];
  let budget = options.chars;
  let resume: Position | undefined;
  let summary: Record<string, unknown> = {};
  let done = 0;
  let status = 'pending';
  let error: string | undefined;
  let index = at.index;
  let offset = at.offset;
  fill: for (;;) {
    const page = Math.floor(index / READ_BATCH) + 1;
    const { data, ...rest } = await backend.result(kind, jobId, { page, batchSize: READ_BATCH });
    summary = rest;
    ({ status, error } = rest);
    done = 'totalScrapedPages' in rest ? rest.totalScrapedPages : rest.totalCrawledPages;
    for (const entry of data.slice(index - (page - 1) * READ_BATCH)) {
      const heading = entryHeading(entry, index);
      if (pieces.length > 0 && budget < heading.length + Math.min(200, options.chars / 10)) {
        resume = { index, offset };
        break fill;
      }
      const cut = cutPage(entry, index, offset, budget - heading.length, heading);
      pieces.push({ ...cut.piece, from: cut.from, end: cut.end, length: cut.length });
      budget -= cut.piece.text.length;
      if (cut.end < cut.length) {
        resume = { index, offset: cut.end };
        break fill;
      }
      index++;
      offset = 0;
    }
    if (page >= rest.totalPageBatches || data.length < READ_BATCH) break;
  }
  const verb = kind === 'batch' ? 'scraped' : 'crawled';
  const shown = pieces.length > 0 ? `entries ${pieces[0]!.index + 1}–${pieces.at(-1)!.index + 1}` : `no entries from ${at.index + 1}`;
  const header = `${standing(kind, jobId, status, error)}; ${done} page(s) ${verb}; showing ${shown}.\n\n`;
  const { nextCursor, footer } = next(jobId, resume);
  const { totalPageBatches: _t, currentPageBatch: _c, batchSize: _b, ...fields } = summary;
  return textResult(`${header}${pieces.map((p) => p.text).join('\n\n')}${footer}`, {
    kind,
    ...fields,
    data: pieces.map((p) => ({ index: p.index, ...described(p.shown, p.from, p.end, p.length) })),
    ...(nextCursor ? { nextCursor } : {}),
  }, status === 'failed');
}

/** One window of a job's result, from the cursor's position or the start, of at most `options.chars` characters of content. */
export function jobResult(backend: JobBackend, kind: JobKind, jobId: string, cursor?: string, options: WindowOptions = { chars: RESULT_CHARS }): Promise<CallToolResult> {
  const at = cursor ? decodeCursor(cursor, jobId) : { index: 0, offset: 0 };
  if (kind === 'scrape') return scrapeResult(backend, jobId, at, options);
  if (kind === 'extract') return extractResult(backend, jobId, at, options);
  return pagedResult(backend, kind, jobId, at, options);
}
