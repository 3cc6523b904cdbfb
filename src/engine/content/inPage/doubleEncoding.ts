/**
 * UTF-8 text that the site's own software read as Latin-1 or windows-1252 before
 * sending it on, so that the page itself says "letâ\u0080\u0099s" or "letâ€™s" for
 * "let’s" and "cafÃ©" for "café". A browser shows it so; no reader wants it. A run
 * that holds a C1 control or one of windows-1252's characters for the bytes 0x80-0x9F,
 * and reads back as one UTF-8 character, is proof: on a page with one, every run that
 * reads back so is repaired ("Ã©" too). A page without one keeps its "SÃO PAULO".
 */
import { textHolds } from '../main/dom.js';
import { WINDOWS_1252_HIGH } from '../windows1252.js';

const CONTINUATION = `[\\u0080-\\u00bf${WINDOWS_1252_HIGH}]`;
const DOUBLE_ENCODED = new RegExp(`[\\u00c2-\\u00df]${CONTINUATION}|[\\u00e0-\\u00ef]${CONTINUATION}{2}|[\\u00f0-\\u00f4]${CONTINUATION}{3}`, 'g');
const PROOF = new RegExp(`[\\u0080-\\u009f${WINDOWS_1252_HIGH}]`);
// A run needs its first character (Â to ô): a page without one (most English pages) is read no further.
const LEAD = /[\u00c2-\u00f4]/;

export type Repair = (text: string) => string;

/** The character whose UTF-8 bytes `run` spells, or null when they are not one (nor a C1 control). */
function readBack(run: string): string | null {
  const bytes = Array.from(run, (c) => {
    const high = WINDOWS_1252_HIGH.indexOf(c);
    return high >= 0 ? 0x80 + high : c.charCodeAt(0);
  });
  try {
    const character = new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
    return character >= '\u00a0' ? character : null;
  } catch {
    return null;
  }
}

/** A function that repairs double-encoded text, when `text` proves the page has some. */
function doubleEncodingRepair(text: string): Repair | null {
  const proven = (text.match(DOUBLE_ENCODED) ?? []).some((run) => PROOF.test(run) && readBack(run) !== null);
  if (!proven) return null;
  return (value) => value.replace(DOUBLE_ENCODED, (run) => readBack(run) ?? run);
}

/** The repair `page` needs, or null when its title and text prove no double encoding. */
export function pageRepair(page: Document): Repair | null {
  const mayBeDoubleEncoded = LEAD.test(page.title) || (page.body !== null && textHolds(page.body, LEAD));
  return mayBeDoubleEncoded ? doubleEncodingRepair(`${page.title} ${page.body?.textContent || ''}`) : null;
}

export function repairTextNodes(node: Node, repair: Repair): void {
  if (node.nodeType === 3) node.nodeValue = repair(node.nodeValue || '');
  for (const child of Array.from(node.childNodes)) repairTextNodes(child, repair);
}
