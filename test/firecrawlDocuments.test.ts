/**
 * Firecrawl documents of stored entries (documentPool.ts): a large entry is turned
 * into its document in a worker thread, off serve's main thread (issue 43: 19 MB
 * entries parsed there held /healthz ~90 ms). Its JSON must be that of the entry
 * parsed, renamed (toDocument) and stringified in place, byte for byte: escapes,
 * unicode (also split between two read chunks), nested metadata, errors, pending URLs.
 */
import { createReadStream, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EntryText } from '../src/api/backend.js';
import type { PageEntry } from '../src/api/types.js';
import { documentInWorker, entryDocument, LARGE_ENTRY_BYTES } from '../src/server/firecrawl/documentPool.js';
import { toDocument } from '../src/server/firecrawl/response.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-documents-'));

/** What the status routes answered before the workers: the entry parsed, renamed and stringified on the spot. */
const inPlace = (json: string) => JSON.stringify(toDocument(JSON.parse(json) as PageEntry));

const tricky = `"quoted" \\ back\\slash \n\t\r \u0000 \u001f \u2028 \u2029 </script> é 漢字 😀 \ud800 lone`;

function entries(size: number): PageEntry[] {
  const filler = `${tricky} ${'ü漢😀<a href="x">'.repeat(Math.ceil(size / 32))}`;
  return [
    {
      url: 'http://127.0.0.1:9/a?q="x"&é',
      status: 'completed',
      error: null,
      metadata: { title: tricky, statusCode: 200, nested: { deep: [1, 2.5, { 'ключ': 'значение', empty: '' }], flag: true, none: null } },
      rawHtml: filler,
      markdown: `# ${tricky}`,
      links: ['http://127.0.0.1:9/😀', 'http://127.0.0.1:9/"q"'],
    } as unknown as PageEntry,
    { url: 'http://127.0.0.1:9/failed', status: 'failed', error: `timed out: ${tricky}`, metadata: { statusCode: '504', sourceURL: 'ignored?' }, html: filler } as unknown as PageEntry,
    { url: 'http://127.0.0.1:9/order', status: 'completed', error: null, html: filler, metadata: {}, markdown: 'm', rawHtml: 'r', extra: { a: [] } } as unknown as PageEntry,
  ];
}

/** An entry read from its file in chunks of `chunk` bytes (a multibyte character falls between two). */
function fromFile(json: string, name: string, chunk: number): EntryText {
  const file = path.join(dir, name);
  writeFileSync(file, json);
  return { bytes: Buffer.byteLength(json), text: async () => createReadStream(file, { highWaterMark: chunk }) };
}

const text = (json: string | Buffer | undefined) => (json === undefined ? undefined : Buffer.isBuffer(json) ? json.toString('utf8') : json);

describe('Firecrawl documents of stored entries', () => {
  it('a large entry converted in a worker is the in-place conversion, byte for byte', async () => {
    for (const [i, entry] of entries(LARGE_ENTRY_BYTES * 2).entries()) {
      const json = JSON.stringify(entry);
      expect(Buffer.byteLength(json)).toBeGreaterThan(LARGE_ENTRY_BYTES);
      // Read as a stream of odd-sized chunks, as the file store gives it, and as one string, as other back ends do.
      const streamed = await entryDocument(fromFile(json, `entry-${i}.json`, 65_537));
      expect(Buffer.isBuffer(streamed)).toBe(true);
      expect(text(streamed)).toBe(inPlace(json));
      expect(text(await entryDocument({ bytes: Buffer.byteLength(json), text: async () => json }))).toBe(inPlace(json));
    }
  });

  it('small entries, in place or in a worker, and bytes that split a character between chunks', async () => {
    for (const [i, entry] of entries(64).entries()) {
      const json = JSON.stringify(entry);
      expect(text(await entryDocument(fromFile(json, `small-${i}.json`, 7)))).toBe(inPlace(json));
      expect(text(await documentInWorker(Buffer.from(json)))).toBe(inPlace(json));
      expect(text(await documentInWorker(json))).toBe(inPlace(json));
    }
  });

  it('several at once, each its own; a pending URL is no document; a damaged entry fails', async () => {
    const all = entries(LARGE_ENTRY_BYTES).map((entry) => JSON.stringify(entry));
    const converted = await Promise.all(all.map((json) => documentInWorker(Buffer.from(json))));
    expect(converted.map(text)).toEqual(all.map(inPlace));
    expect(await documentInWorker(JSON.stringify({ url: 'http://127.0.0.1:9/p', status: 'pending', error: null, metadata: {} }))).toBeUndefined();
    await expect(documentInWorker(Buffer.from('{"url": "cut sh'))).rejects.toThrow(/stored entry/);
    // The pool still works after a failure.
    expect(text(await documentInWorker(all[0]!))).toBe(inPlace(all[0]!));
  });
});
