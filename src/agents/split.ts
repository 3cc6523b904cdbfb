/**
 * A block too large for a budget on its own, in pieces that each fit: a paragraph,
 * list item or quote between sentences, a table between rows (each piece keeps the
 * table's header rows, so that it is still a table), a code block between lines
 * (each piece fenced again, so that it is still code). A sentence or line larger
 * than the budget by itself is cut between words, and a word between characters:
 * every piece fits, whatever the page.
 */
import type { Block } from './blocks.js';
import type { CountTokens } from './tokens.js';

const SENTENCE_END = /(?<=[.!?…。！？]["'”’)\]]*)[ \t]+|\n+/;

/** Greedy packing of `atoms` joined by `joiner` into pieces of at most `budget` tokens; `wrap` dresses a piece (fences, header rows). */
function pack(atoms: string[], joiner: string, budget: number, count: CountTokens, wrap: (body: string) => string = (body) => body): string[] {
  const pieces: string[] = [];
  let body: string | undefined;
  for (const atom of atoms) {
    const joined = body === undefined ? atom : `${body}${joiner}${atom}`;
    if (count(wrap(joined)) <= budget) {
      body = joined;
      continue;
    }
    if (body !== undefined) pieces.push(wrap(body));
    body = undefined;
    if (count(wrap(atom)) <= budget) body = atom;
    else {
      // One atom larger than the budget: between words, then between characters.
      const parts = cutAtom(atom, budget, count, wrap);
      pieces.push(...parts.slice(0, -1).map(wrap));
      body = parts.at(-1);
    }
  }
  if (body !== undefined) pieces.push(wrap(body));
  return pieces;
}

/** An atom cut between words, and a word too long between characters, each part fitting once wrapped. */
function cutAtom(atom: string, budget: number, count: CountTokens, wrap: (body: string) => string): string[] {
  const words = atom.split(/(?<=\s)(?=\S)/);
  // A list marker or a quote's > stays with the word after it.
  if (words.length > 1 && /^\s*(?:[-*+>]|\d{1,9}[.)])\s+$/.test(words[0]!)) words.splice(0, 2, words[0]! + words[1]!);
  if (words.length > 1) return pack(words.map((w) => w), '', budget, count, wrap).map((piece) => unwrapTrim(piece, wrap));
  const parts: string[] = [];
  let rest = atom;
  while (rest !== '') {
    // The longest prefix that fits (at least one character, so that the cut moves on).
    let low = 1;
    let high = rest.length;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (count(wrap(rest.slice(0, mid))) <= budget) low = mid;
      else high = mid - 1;
    }
    // Never between the two halves of a surrogate pair.
    const at = low < rest.length && /[\uDC00-\uDFFF]/.test(rest[low]!) && low > 1 ? low - 1 : low;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  return parts;
}

/** pack() wraps what it returns; cutAtom's parts are wrapped again by its caller, so they go back unwrapped. */
function unwrapTrim(piece: string, wrap: (body: string) => string): string {
  const probe = wrap('\u0000');
  const [before, after] = probe.split('\u0000') as [string, string];
  return piece.slice(before.length, piece.length - after.length);
}

function splitCode(text: string, budget: number, count: CountTokens): string[] {
  const lines = text.split('\n');
  const open = lines[0]!;
  const fence = /^ *(`{3,}|~{3,})/.exec(open)![1]!;
  const closed = lines.length > 1 && lines.at(-1)!.trim().startsWith(fence[0]!.repeat(fence.length));
  const body = lines.slice(1, closed ? -1 : undefined);
  return pack(body, '\n', budget, count, (inner) => `${open}\n${inner}\n${fence}`);
}

function splitTable(text: string, budget: number, count: CountTokens): string[] {
  const rows = text.split('\n');
  // The header row and the |---| line under it, when the table has them.
  const header = rows.length > 2 && /^\s*\|?\s*:?-{1,}/.test(rows[1]!) ? rows.slice(0, 2).join('\n') : undefined;
  // Header rows that would take half the budget or more are not repeated: the rows would hardly fit beside them.
  if (!header || count(header) * 2 > budget) return pack(rows, '\n', budget, count);
  return pack(rows.slice(2), '\n', budget, count, (inner) => `${header}\n${inner}`);
}

/** `block` in pieces of at most `budget` tokens each. */
export function splitBlock(block: Block, budget: number, count: CountTokens): string[] {
  if (block.kind === 'code') return splitCode(block.text, budget, count);
  if (block.kind === 'table') return splitTable(block.text, budget, count);
  return pack(block.text.split(SENTENCE_END).filter((s) => s !== ''), ' ', budget, count);
}
