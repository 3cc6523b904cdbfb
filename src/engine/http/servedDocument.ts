/**
 * A document as the server sent it, handed to an extraction worker undecoded
 * (extractPool.ts): its bytes are moved to the worker, not copied, and decoded
 * there, so that the event loop never holds the page's text.
 */
import { decodeAs, type Encoding } from './charset.js';

export interface ServedDocument {
  /** The body; its memory is moved to the worker when the view spans all of it. */
  bytes: Uint8Array;
  encoding: Encoding;
  /** Plain text or JSON, shown as Chromium shows them: in a `pre`. */
  plainText: boolean;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The document to read from a body's text: HTML as served; plain text and JSON as Chromium shows them, in a `pre`. */
export function documentHtml(text: string, plainText: boolean): string {
  return plainText ? `<!doctype html><html><head></head><body><pre>${escapeHtml(text)}</pre></body></html>` : text;
}

/** The HTML of a served document (in the worker). */
export function servedHtml(served: ServedDocument): string {
  return documentHtml(decodeAs(served.bytes, served.encoding), served.plainText);
}

/** What to list in postMessage's transfer list to move the bytes rather than copy them: nothing for a view on shared memory. */
export function transferable(served: ServedDocument): ArrayBuffer[] {
  const { buffer, byteOffset, byteLength } = served.bytes;
  return buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength ? [buffer] : [];
}
