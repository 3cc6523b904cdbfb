/**
 * Answers that hold a batch's or crawl's entries, written as they are read: the
 * record's fields, then one entry after another, each copied from its stored text
 * (never one JSON.stringify of the whole answer: 40 entries of 19 MB made a string
 * longer than V8 allows, and six such reads took 4.5 GB; issue 43). An answer is
 * bounded by bytes as well as by entries: it holds entries up to `maxBytes` (always
 * at least one, however large) and says where the rest is.
 */
import { Readable } from 'node:stream';
import type { EntryText, PagedText } from '../api/backend.js';
import type { JobRecordByKind, PageEntry } from '../api/types.js';

/** The entries from `from` on that fit in `maxBytes` (at least one, when there is one). */
export function fitting(entries: readonly EntryText[], from: number, maxBytes: number): EntryText[] {
  const chosen: EntryText[] = [];
  let bytes = 0;
  for (let i = from; i < entries.length; i++) {
    const entry = entries[i]!;
    if (chosen.length > 0 && bytes + entry.bytes > maxBytes) break;
    chosen.push(entry);
    bytes += entry.bytes;
  }
  return chosen;
}

/** An entry's text, whole: for an answer that must parse it. */
export async function entryJson(entry: EntryText): Promise<string> {
  const text = await entry.text();
  if (typeof text === 'string') return text;
  const chunks: Buffer[] = [];
  for await (const chunk of text) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `head` (a JSON object) with `field` holding `items`, as a stream: the head's
 * fields first, then each item's text as it is read. Each item is a function that
 * gives its JSON (a string, its bytes, or a stream of them), or undefined to leave it out.
 */
export function streamObject(head: object, field: string, items: readonly (() => Promise<string | Buffer | NodeJS.ReadableStream | undefined>)[]): Readable {
  const opening = JSON.stringify(head);
  async function* chunks(): AsyncGenerator<string | Buffer> {
    yield `${opening.slice(0, -1)}${opening.length > 2 ? ',' : ''}${JSON.stringify(field)}:[`;
    let written = 0;
    for (const item of items) {
      // Between two entries, whatever else waits on the event loop (a /healthz) goes first.
      await new Promise((resolve) => setImmediate(resolve));
      const text = await item();
      if (text === undefined) continue;
      if (written++ > 0) yield ',';
      if (typeof text === 'string' || Buffer.isBuffer(text)) yield text;
      else for await (const chunk of text) yield chunk as Buffer;
    }
    yield ']}';
  }
  return Readable.from(chunks(), { objectMode: false });
}

/**
 * The answer of GET /api/<batch or crawl>/{id}: result batch `record` from its
 * entry `offset` on, as many entries as fit in `maxBytes`; when the bound leaves
 * some of the batch out, `next` is given by `nextOf(offset of the first one left out)`.
 */
export function pagedAnswer(paged: PagedText, offset: number, maxBytes: number, nextOf: (offset: number) => string): Readable {
  const chosen = fitting(paged.entries, offset, maxBytes);
  const after = offset + chosen.length;
  const head = { ...paged.record, ...(after < paged.entries.length ? { next: nextOf(after) } : {}) };
  return streamObject(
    head,
    'data',
    chosen.map((entry) => () => entry.text()),
  );
}

/** A result batch read whole (a back end without resultText) as texts, each entry stringified on its own. */
export function textOf(record: JobRecordByKind['batch'] | JobRecordByKind['crawl'], link?: (entry: PageEntry) => PageEntry): PagedText {
  const { data, ...fields } = record;
  return {
    record: fields,
    entries: data.map((entry) => {
      const json = JSON.stringify(link ? link(entry) : entry);
      return { bytes: Buffer.byteLength(json), text: async () => json };
    }),
  };
}
