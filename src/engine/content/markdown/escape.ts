/**
 * Text that CommonMark would read as syntax, and its escape. Turndown hands us one
 * text node at a time, with its whitespace collapsed: a node never holds a line
 * break, so `^` is the start of the node, which may be the start of a line.
 */
const ESCAPES: Array<[RegExp, string]> = [
  [/\\/g, '\\\\'],
  [/[*_`[\]]/g, '\\$&'], // emphasis, code spans and links, anywhere in a line
  [/&(?=#?[a-z0-9]+;)/gi, '\\&'], // a character reference: "&ouml;" as text must not become "ö"
  [/<(?=[a-z/!?])/gi, '\\<'], // a tag, an autolink or a comment
  [/^(#{1,6})(?= |$)/, '\\$1'], // an ATX heading
  [/^([-+>=]|~~~)/, '\\$1'], // a bullet, a block quote, a setext underline, a fence
  [/^(\d+)([.)])(?= |$)/, '$1\\$2'], // an ordered list item
];

/** Turndown's escape: a text node as Markdown that reads back as that text. */
export function escapeText(text: string): string {
  // A "!" on its own (see isolateBangsBeforeLinks) would make the link after it an image.
  if (text === '!') return '\\!';
  return ESCAPES.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}

/** "!" right before a link would turn `[text](url)` into an image: it becomes a text node of its own, escaped. */
export function isolateBangsBeforeLinks(root: Element): void {
  for (const link of Array.from(root.querySelectorAll('a[href]'))) {
    const before = link.previousSibling;
    if (before?.nodeType !== 3 || !/.!$/.test(before.nodeValue || '')) continue;
    // What Text.splitText does, with the calls every DOM has (linkedom's Text has no splitText).
    before.nodeValue = before.nodeValue!.slice(0, -1);
    link.before(link.ownerDocument.createTextNode('!'));
  }
}
