/**
 * Turndown's rules for block elements: paragraphs, headings, quotes, lists, code
 * blocks, rules. A list is tight or loose as CommonMark reads it back, so a block
 * inside a tight list's item is written without the blank lines that would loosen it.
 */

/** A code block's text; highlighters (Prism) break lines with <br>, which has no text of its own. */
function codeText(pre: Element): string {
  if (!pre.querySelector('br')) return pre.textContent || '';
  const copy = pre.cloneNode(true) as Element;
  for (const br of Array.from(copy.querySelectorAll('br'))) br.replaceWith('\n');
  return copy.textContent || '';
}

function codeLanguage(node: Element): string {
  const classes = `${node.className || ''} ${(node.firstElementChild as Element | null)?.className || ''}`;
  // Any letters: an info string is whatever follows the fence ("föö", "c++", ";").
  const match = /(?:^|\s)(?:lang(?:uage)?-|highlight-(?:text|source)-)(\S+)/.exec(classes);
  return match ? match[1]! : node.getAttribute('data-lang') || '';
}

/** Elements that are blocks for turndown (and for a browser). */
const BLOCK = /^(ADDRESS|ARTICLE|ASIDE|BLOCKQUOTE|BODY|CENTER|DD|DIR|DIV|DL|DT|FIELDSET|FIGCAPTION|FIGURE|FOOTER|FORM|H[1-6]|HEADER|HGROUP|HR|LI|MAIN|MENU|NAV|OL|P|PRE|SECTION|TABLE|UL)$/;

/**
 * A block's content without the line breaks at its edges, nor the spaces it starts
 * with: four of them would make an indented code block. Turndown leaves such spaces
 * where whitespace sat beside images or inline elements at a block's start.
 */
const trimBlock = (text: string) => text.replace(/^[ \t\n]*\n/, '').replace(/^[ \t]+/, '').replace(/\n+$/, '');

/** What a child of a list item becomes, for deciding whether the item needs blank lines. */
function partKind(node: Node): 'inline' | 'block' | 'closed' | 'open' {
  if (node.nodeType !== 1 || !BLOCK.test(node.nodeName)) return 'inline'; // text, <a>, <em>...
  if (/^(H[1-6]|PRE|HR)$/.test(node.nodeName)) return 'closed'; // nothing runs on into the next line
  if (/^(UL|OL|BLOCKQUOTE|TABLE)$/.test(node.nodeName)) return 'open'; // a next line would run on into it
  return 'block'; // <div> and the like: a paragraph of its own
}

/**
 * An item needs blank lines (and so its list is loose) when it holds a <p>, or a
 * paragraph right after another paragraph, a list or a quote: written on the next
 * line, it would run on into them. Text and inline elements side by side are one paragraph.
 */
function itemNeedsBlankLines(item: Element): boolean {
  const paragraph = (kind: string | undefined) => kind === 'inline' || kind === 'block';
  let previous: string | undefined;
  for (const child of Array.from(item.childNodes)) {
    if (child.nodeType !== 1 && !(child.nodeType === 3 && (child.nodeValue || '').trim())) continue;
    if (child.nodeName === 'P') return true;
    const kind = partKind(child);
    if (paragraph(kind) && previous === 'open') return true;
    if (paragraph(kind) && paragraph(previous) && !(kind === 'inline' && previous === 'inline')) return true;
    previous = kind;
  }
  return false;
}

/** The sibling before `node`, over blank text: what decides whether two blocks touch. */
function previousMeaningful(node: Node): Node | null {
  let before = node.previousSibling;
  while (before && before.nodeType !== 1 && !(before.nodeType === 3 && (before.nodeValue || '').trim())) before = before.previousSibling;
  return before;
}

/** Lists of one kind right after each other: CommonMark would merge them unless their markers differ. */
function listsRightBefore(list: Element): number {
  let count = 0;
  for (let before = previousMeaningful(list); before?.nodeName === list.nodeName; before = previousMeaningful(before)) count++;
  return count;
}

function marker(item: Element): string {
  const list = item.parentNode as Element;
  const alternate = listsRightBefore(list) % 2 === 1;
  if (list.nodeName !== 'OL') return alternate ? '*' : '-';
  const start = Number.parseInt(list.getAttribute('start') || '1', 10);
  const items = Array.from(list.children).filter((child) => child.nodeName === 'LI');
  return `${(Number.isFinite(start) && start >= 0 ? start : 1) + items.indexOf(item)}${alternate ? ')' : '.'}`;
}

/** Block rules, by element. One per conversion: the looseness it remembers must not outlive it. */
export class BlockRules {
  private readonly looseness = new WeakMap<Element, boolean>();

  /** CommonMark writes a tight list's items without <p>; a loose one's items are apart by blank lines. */
  private isLoose(list: Element): boolean {
    let loose = this.looseness.get(list);
    if (loose === undefined) {
      loose = Array.from(list.children).some(itemNeedsBlankLines);
      this.looseness.set(list, loose);
    }
    return loose;
  }

  /** Blocks are apart by a blank line, but right inside a tight list's item a blank line would make the list loose. */
  private block(node: Node, body: string): string {
    const parent = node.parentNode as Element | null;
    const tight = parent?.nodeName === 'LI' && parent.parentNode !== null && !this.isLoose(parent.parentNode as Element);
    const gap = tight ? '\n' : '\n\n';
    return gap + body + gap;
  }

  // No-break spaces at a paragraph's edges stay characters, not "&nbsp;": pages end many
  // paragraphs with one, and a reference there is noise in the text. (commonmark.js trims
  // them with String.prototype.trim, which the spec does not: example 25 fails for that.)
  readonly paragraph = (content: string, node: Element): string => this.block(node, trimBlock(content));

  readonly heading = (content: string, node: Element): string => {
    // One line; a closing run of "#" in the text would read as the optional closing sequence.
    const text = content.replace(/\s*\n\s*/g, ' ').trim().replace(/(^|\s)(#+)$/, '$1\\$2');
    return this.block(node, '#'.repeat(Number(node.nodeName.charAt(1))) + (text ? ` ${text}` : ''));
  };

  readonly blockquote = (content: string, node: Element): string => {
    const body = trimBlock(content);
    return this.block(node, body.split('\n').map((line) => (line ? `> ${line}` : '>')).join('\n'));
  };

  readonly list = (content: string, node: Element): string => this.block(node, trimBlock(content));

  readonly listItem = (content: string, node: Element): string => {
    const list = node.parentNode as Element;
    const prefix = `${marker(node)} `;
    const indent = ' '.repeat(prefix.length);
    // Continuation lines, code blocks and nested lists included, sit under the item's content.
    const body = trimBlock(content)
      .split('\n')
      .map((line, i) => (i === 0 || line === '' ? line : indent + line))
      .join('\n');
    const gap = this.isLoose(list) ? '\n\n' : '\n';
    return gap + (body ? prefix + body : prefix.trimEnd()) + gap;
  };

  readonly codeBlock = (_content: string, node: Element): string => {
    const code = codeText(node);
    const info = codeLanguage(node);
    // A backtick fence cannot carry an info string with a backtick; the fence outruns any run in the code.
    const char = info.includes('`') ? '~' : '`';
    const runs: string[] = code.match(char === '`' ? /`+/g : /~+/g) ?? [];
    const fence = char.repeat(runs.reduce((longest, run) => Math.max(longest, run.length + 1), 3));
    const body = code === '' || code.endsWith('\n') ? code : `${code}\n`;
    return this.block(node, `${fence}${info}\n${body}${fence}`);
  };

  readonly horizontalRule = (_content: string, node: Element): string => this.block(node, '* * *');

  readonly otherBlock = (content: string, node: Element): string => this.block(node, trimBlock(content));

  /** A blank block of no other kind (an empty <div>, <p>) leaves only its gap. */
  readonly blank = (node: Element): string => this.block(node, '');
}
