/** Turndown's rules for inline elements: code spans, emphasis and strong emphasis. */

export function codeSpan(_content: string, node: Element): string {
  const text = (node.textContent || '').replace(/\r\n|\r|\n/g, ' ');
  if (text === '') return ''; // CommonMark has no empty code span
  const runs: string[] = text.match(/`+/g) ?? [];
  let delimiter = '`';
  while (runs.includes(delimiter)) delimiter += '`';
  // A parser strips one space from each end when both ends have one (and not all is space),
  // and a backtick next to the delimiter would lengthen it: a space of padding keeps both.
  const pad = /^`|`$/.test(text) || (/^ [^]*[^ ][^]* $/.test(text)) ? ' ' : '';
  return delimiter + pad + text + pad + delimiter;
}

const EMPHASIS = ['EM', 'I', 'STRONG', 'B'];

/**
 * `*`, not `_`: CommonMark reads `_` inside a word ("foo_bar_") as text. But emphasis
 * that is the whole of another emphasis would merge with it (`**x**` is strong, and
 * `***x***` is emphasis around strong): there the inner one takes the other delimiter.
 */
function emphasisDelimiter(node: Element): string {
  const parent = node.parentNode as Element | null;
  const whole = parent !== null && EMPHASIS.includes(parent.nodeName) && parent.firstChild === node && parent.lastChild === node;
  if (!whole) return '*';
  if (parent.nodeName === 'EM' || parent.nodeName === 'I') return emphasisDelimiter(parent) === '*' ? '_' : '*';
  return '_';
}

/** Emphasis cannot span blocks: `**\n\ntext\n\n**` reads back as stray asterisks. Such emphasis is dropped. */
const spansBlocks = (content: string) => /\n[ \t]*\n/.test(content);

export function emphasis(content: string, node: Element): string {
  if (!content.trim()) return '';
  if (spansBlocks(content)) return content;
  const delimiter = emphasisDelimiter(node);
  return delimiter + content + delimiter;
}

/** Always `**`: strong inside strong is `****x****`, which CommonMark reads back as such. */
export function strong(content: string): string {
  if (spansBlocks(content)) return content;
  return content.trim() ? `**${content}**` : '';
}
