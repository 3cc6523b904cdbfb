/**
 * The character set of an HTML document fetched over HTTP, in the order a browser
 * decides it: a byte order mark, then the Content-Type header's charset, then a
 * `<meta charset>` / `<meta http-equiv="content-type">` in the document's head,
 * else UTF-8 when the bytes are valid UTF-8, else windows-1252 (what browsers
 * fall back to for Western pages).
 */
import { isUtf8 } from 'node:buffer';
import { WINDOWS_1252_HIGH } from '../content/windows1252.js';

const BOMS: Array<[number[], string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

/** How far into the document a meta charset is looked for: the spec's 1,024 bytes are often not enough for real heads. */
const META_SCAN_BYTES = 16_384;

function bomOf(bytes: Uint8Array): { charset: string; length: number } | undefined {
  for (const [mark, charset] of BOMS) {
    if (mark.every((byte, i) => bytes[i] === byte)) return { charset, length: mark.length };
  }
  return undefined;
}

/** The charset parameter of a Content-Type value, if any. */
export function headerCharset(contentType: string | null | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return match?.[1];
}

function metaCharset(bytes: Uint8Array): string | undefined {
  // ASCII-compatible bytes are enough to read the tags themselves.
  const head = Buffer.from(bytes.subarray(0, META_SCAN_BYTES)).toString('latin1');
  const end = head.search(/<body[\s>]/i);
  const scanned = (end === -1 ? head : head.slice(0, end)).replace(/<!--[\s\S]*?-->/g, '');
  for (const tag of scanned.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?\s*([^"'\s/>;]+)/i.exec(tag);
    if (direct && !/http-equiv/i.test(tag)) return direct[1];
    if (/http-equiv\s*=\s*["']?content-type/i.test(tag)) {
      const content = /\bcontent\s*=\s*(["'])(.*?)\1/i.exec(tag)?.[2];
      const charset = headerCharset(content);
      if (charset) return charset;
    }
  }
  return undefined;
}

/** Node 20's TextDecoder decodes windows-1252 as ISO-8859-1, giving C1 control characters for 0x80-0x9F. */
function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

function decodeWith(decoder: TextDecoder, bytes: Uint8Array): string {
  return decoder.encoding === 'windows-1252' ? decodeWindows1252(bytes) : decoder.decode(bytes);
}

/** A TextDecoder for `label`, or undefined for a label this Node does not know. */
function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    // As in browsers, a page declared ISO-8859-1 or US-ASCII is read as windows-1252 (the WHATWG label table does this).
    return new TextDecoder(label.trim().toLowerCase());
  } catch {
    return undefined;
  }
}

/** How a document's bytes are read: the charset's canonical name, and the length of a byte order mark to skip. */
export interface Encoding {
  charset: string;
  bom: number;
}

/**
 * The charset a browser would read these bytes with, without decoding them: cheap enough for the
 * event loop (a 16 KiB look at the head, and a UTF-8 check that builds no string).
 */
export function sniffEncoding(bytes: Uint8Array, contentType: string | null | undefined): Encoding {
  const bom = bomOf(bytes);
  if (bom) return { charset: bom.charset, bom: bom.length };
  for (const label of [headerCharset(contentType), metaCharset(bytes)]) {
    const decoder = decoderFor(label);
    // A page that declares UTF-16 in ASCII bytes is not UTF-16 (browsers read it as UTF-8).
    if (decoder && !decoder.encoding.startsWith('utf-16')) return { charset: decoder.encoding, bom: 0 };
  }
  return { charset: isUtf8(bytes) ? 'utf-8' : 'windows-1252', bom: 0 };
}

/** The text of `bytes` read as `encoding` says (sniffEncoding). */
export function decodeAs(bytes: Uint8Array, encoding: Encoding): string {
  const decoder = new TextDecoder(encoding.charset);
  return decodeWith(decoder, encoding.bom > 0 ? bytes.subarray(encoding.bom) : bytes);
}

/**
 * The first `units` UTF-16 code units of decodeAs(bytes, encoding), or all of it when shorter, decoding
 * no more bytes than they need: a stream decodes as the whole does, and each step decodes as many bytes
 * as code units are still missing (no byte makes more than one; a 4-byte character that a step completes
 * can make one too many, cut off).
 */
export function decodePrefix(bytes: Uint8Array, encoding: Encoding, units: number): string {
  const body = encoding.bom > 0 ? bytes.subarray(encoding.bom) : bytes;
  const decoder = new TextDecoder(encoding.charset);
  // One byte, one character.
  if (decoder.encoding === 'windows-1252') return decodeWindows1252(body.subarray(0, units));
  let text = '';
  for (let at = 0; at < body.length && text.length < units; ) {
    const end = at + units - text.length;
    text += decoder.decode(body.subarray(at, end), { stream: end < body.length });
    at = end;
  }
  return text.length > units ? text.slice(0, units) : text;
}
