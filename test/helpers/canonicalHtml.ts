/**
 * A canonical text form of an HTML fragment, for comparing two fragments by what a
 * reader gets from them rather than by how they were written. Both sides are parsed
 * with jsdom (an HTML5 parser, the same tree Chromium builds), then serialised so that:
 *
 * - entities and character references are gone (text is decoded by the parser, then
 *   only `&`, `<`, `>` and `"` are escaped again): `&quot;` and `"` are the same text;
 * - attributes are sorted by name; `href` and `src` are resolved against `base`, so a
 *   relative link in the page and the absolute one in our Markdown compare equal;
 * - outside `<pre>`, runs of ASCII whitespace become one space, and spaces a browser
 *   would not show (next to a block boundary or a `<br>`, or doubled across an inline
 *   tag other than `<code>`) are dropped. Inside `<pre>` every character counts;
 * - comments are dropped: they are not shown.
 *
 * Everything else counts: element names and nesting (a tight list item is not a loose
 * one, `<em>` is not `<strong>`), non-breaking spaces, attribute values, text.
 */
import { JSDOM } from 'jsdom';

const BLOCK = new Set([
  'html', 'body', 'div', 'p', 'blockquote', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'pre', 'hr', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'dl', 'dt', 'dd',
]);
const VOID = new Set(['br', 'hr', 'img', 'input', 'wbr']);
const URL_ATTRIBUTES = new Set(['href', 'src']);

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (value: string) => escapeText(value).replace(/"/g, '&quot;');

function resolved(value: string, base: string): string {
  try {
    return new URL(value, base).href;
  } catch {
    return value;
  }
}

function openingTag(element: Element, base: string): string {
  const attributes = Array.from(element.attributes)
    .map((a) => [a.name, URL_ATTRIBUTES.has(a.name) ? resolved(a.value, base) : a.value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`);
  return `<${element.localName}${attributes.join('')}>`;
}

/**
 * Inline content as a browser shows it: no space at the edges, around `<br>`, or twice in
 * a row across tags. A space just inside `<code>` is shown (code has a background), so
 * the run of tags a doubled space is looked for across does not include code's.
 */
function tidyInlineRun(run: string): string {
  return run
    .replace(/ ((?:<(?!\/?code[ >])[^>]*>)+) /g, ' $1')
    .replace(/ ?(<br>) ?/g, '$1')
    .replace(/^ | $/g, '');
}

function serialise(node: Node, base: string, inPre: boolean): string {
  if (node.nodeType === TEXT_NODE) {
    const text = node.nodeValue ?? '';
    return escapeText(inPre ? text : text.replace(/[ \t\n\r\f]+/g, ' '));
  }
  if (node.nodeType !== ELEMENT_NODE) return '';
  const element = node as Element;
  const name = element.localName;
  if (VOID.has(name)) return openingTag(element, base);
  const pre = inPre || name === 'pre';
  return `${openingTag(element, base)}${serialiseChildren(element, base, pre)}</${name}>`;
}

/** Children, with the inline runs between block children tidied when the parent is a block. */
function serialiseChildren(element: Element, base: string, inPre: boolean): string {
  const parts = Array.from(element.childNodes).map((child) => ({
    block: child.nodeType === ELEMENT_NODE && BLOCK.has((child as Element).localName),
    text: serialise(child, base, inPre),
  }));
  if (inPre || !BLOCK.has(element.localName)) return parts.map((p) => p.text).join('');
  let out = '';
  let run = '';
  for (const part of parts) {
    if (part.block) {
      out += tidyInlineRun(run) + part.text;
      run = '';
    } else {
      run += part.text;
    }
  }
  return out + tidyInlineRun(run);
}

export interface Canonicaliser {
  /** The canonical form of `fragment`, parsed as the body of a page at `base`. */
  canonical(fragment: string, base: string): string;
  close(): void;
}

/** One jsdom window for many fragments: creating a window costs far more than parsing a fragment. */
export function createCanonicaliser(): Canonicaliser {
  const { window } = new JSDOM('');
  const parser = new window.DOMParser();
  return {
    canonical(fragment, base) {
      const doc = parser.parseFromString(
        `<!doctype html><html><head><meta charset="utf-8"></head><body>${fragment}</body></html>`,
        'text/html',
      );
      return serialiseChildren(doc.body, base, false);
    },
    close: () => window.close(),
  };
}
