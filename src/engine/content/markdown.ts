/**
 * HTML to Markdown, in the page: turndown with GFM and our rules. The rules aim at
 * Markdown that a CommonMark parser reads back as the page (test/commonmark.test.ts
 * measures it against the spec's examples): text that would read as syntax is escaped,
 * blocks the page shows stay even when empty, and lists keep their shape.
 *
 * Like extractInPage, this function is serialised with toString() and evaluated in the
 * page, so it references nothing outside itself but the libraries passed in. It returns
 * the converter, built once per page.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
export function markdownConverter(TurndownService: any, gfm: any): (root: Element) => string {
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

  function escapeText(text: string): string {
    // A "!" on its own (see isolateBangsBeforeLinks) would make the link after it an image.
    if (text === '!') return '\\!';
    return ESCAPES.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
  }

  /** "!" right before a link would turn `[text](url)` into an image: it becomes a text node of its own, escaped. */
  function isolateBangsBeforeLinks(root: Element): void {
    for (const link of Array.from(root.querySelectorAll('a[href]'))) {
      const before = link.previousSibling;
      if (before?.nodeType !== 3 || !/.!$/.test(before.nodeValue || '')) continue;
      // What Text.splitText does, with the calls every DOM has (linkedom's Text has no splitText).
      before.nodeValue = before.nodeValue!.slice(0, -1);
      link.before(link.ownerDocument.createTextNode('!'));
    }
  }

  /**
   * Elements that start a block of their own: a link cannot span them in Markdown. Every
   * element turndown writes as a block is here (IGN wraps each article image in an <output>).
   */
  const BLOCK_ELEMENTS =
    'address, article, aside, audio, blockquote, canvas, center, dd, details, dialog, dir, div, dl, dt, fieldset, figcaption, figure, footer, form, ' +
    'h1, h2, h3, h4, h5, h6, header, hgroup, hr, li, main, menu, nav, noframes, noscript, ol, output, p, pre, section, summary, table, ul';

  /**
   * A card is often one link around a picture, a heading and a line of text. Markdown
   * has no link around blocks (`[\n\n## Title\n\n](url)` reads back as text and a
   * stray "](url)"), so the link moves into the blocks: each run of text or images
   * inside it becomes a link of its own, and the blocks stay blocks.
   */
  function pushLinksIntoBlocks(root: Element): void {
    for (const link of Array.from(root.querySelectorAll('a[href]'))) {
      if (!link.querySelector(BLOCK_ELEMENTS) || link.parentElement?.closest('a[href]')) continue;
      linkInlineRuns(link, link);
      link.replaceWith(...Array.from(link.childNodes));
    }
  }

  /** Wraps each run of inline content in `container` in a copy of `link`, descending into its blocks. */
  function linkInlineRuns(container: Element, link: Element): void {
    let run: Node[] = [];
    const flush = () => {
      const shown = run.some((node) => (node.textContent || '').trim() !== '' || (node as Element).querySelector?.('img') || node.nodeName === 'IMG');
      const linked = run.some((node) => node.nodeName === 'A' || (node as Element).querySelector?.('a'));
      if (shown && !linked) {
        const copy = link.cloneNode(false) as Element;
        run[0]!.parentNode!.insertBefore(copy, run[0]!);
        for (const node of run) copy.appendChild(node);
      }
      run = [];
    };
    for (const child of Array.from(container.childNodes)) {
      // An inline element holding a block (Amazon's <span><div>title</div></span>) is descended into like a block.
      const holdsBlock = child.nodeType === 1 && ((child as Element).matches(BLOCK_ELEMENTS) || (child as Element).querySelector(BLOCK_ELEMENTS));
      if (!holdsBlock) {
        run.push(child);
        continue;
      }
      flush();
      // A table, a code block or a rule keeps its own structure: a link inside would break it.
      if (!(child as Element).matches('table, pre, hr')) linkInlineRuns(child as Element, link);
    }
    flush();
  }

  /**
   * Elements that write nothing: controls, and void elements such as <source> and
   * microdata's <meta>. They go before turndown sees them, because turndown keeps the
   * space after a void element: a <picture> with four <source>s, or a form's hidden
   * inputs, would otherwise start the next line with four spaces, an indented code block.
   */
  function removeSilentElements(root: Element): void {
    // An accordion's question is a button: in a heading (WAI-ARIA's pattern, Bootstrap's), or asking its question
    // outside any (Alpine's and many shop themes' FAQs). Its text is content: without it, the answers come alone.
    // Not every button that opens a panel (aria-expanded): a size guide's or a language menu's label is no content.
    for (const button of Array.from(root.querySelectorAll('button'))) {
      if (button.closest('h1, h2, h3, h4, h5, h6') || /\?$/.test((button.textContent || '').trim())) button.replaceWith(...Array.from(button.childNodes));
    }
    for (const element of Array.from(root.querySelectorAll('button, input, select, textarea, source, track, meta, link, param'))) element.remove();
  }

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

  /**
   * Tables used for layout (nested tables, one column, one row) become plain blocks;
   * the others stay tables for the GFM rule below.
   */
  function normaliseTables(root: Element): void {
    const tables = Array.from(root.querySelectorAll('table')).reverse();
    for (const table of tables) {
      const rows = Array.from((table as HTMLTableElement).rows);
      const widest = rows.reduce((max, row) => Math.max(max, row.cells.length), 0);
      const layout =
        rows.length < 2 ||
        widest < 2 ||
        table.querySelector('table') !== null ||
        /^(presentation|none)$/i.test(table.getAttribute('role') || '');
      if (!layout) continue;
      const block = table.ownerDocument.createElement('div');
      for (const row of rows) {
        for (const cell of Array.from(row.cells)) {
          const part = table.ownerDocument.createElement('div');
          while (cell.firstChild) part.appendChild(cell.firstChild);
          block.appendChild(part);
        }
      }
      table.replaceWith(block);
    }
  }

  /** Elements that are blocks for turndown (and for a browser). */
  const BLOCK = /^(ADDRESS|ARTICLE|ASIDE|BLOCKQUOTE|BODY|CENTER|DD|DIR|DIV|DL|DT|FIELDSET|FIGCAPTION|FIGURE|FOOTER|FORM|H[1-6]|HEADER|HGROUP|HR|LI|MAIN|MENU|NAV|OL|P|PRE|SECTION|TABLE|UL)$/;

  /**
   * A block's content without the line breaks at its edges, nor the spaces it starts
   * with: four of them would make an indented code block. Turndown leaves such spaces
   * where whitespace sat beside images or inline elements at a block's start.
   */
  const trimBlock = (text: string) => text.replace(/^[ \t\n]*\n/, '').replace(/^[ \t]+/, '').replace(/\n+$/, '');

  /** Block rules, by element. Built per conversion: the looseness cache must not outlive it. */
  function blockRules() {
    const looseness = new WeakMap<Element, boolean>();

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

    /** CommonMark writes a tight list's items without <p>; a loose one's items are apart by blank lines. */
    function isLoose(list: Element): boolean {
      let loose = looseness.get(list);
      if (loose === undefined) {
        loose = Array.from(list.children).some(itemNeedsBlankLines);
        looseness.set(list, loose);
      }
      return loose;
    }

    /** Blocks are apart by a blank line, but right inside a tight list's item a blank line would make the list loose. */
    function block(node: Node, body: string): string {
      const parent = node.parentNode as Element | null;
      const tight = parent?.nodeName === 'LI' && parent.parentNode !== null && !isLoose(parent.parentNode as Element);
      const gap = tight ? '\n' : '\n\n';
      return gap + body + gap;
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

    return {
      // No-break spaces at a paragraph's edges stay characters, not "&nbsp;": pages end many
      // paragraphs with one, and a reference there is noise in the text. (commonmark.js trims
      // them with String.prototype.trim, which the spec does not: example 25 fails for that.)
      paragraph: (content: string, node: Element) => block(node, trimBlock(content)),

      heading(content: string, node: Element): string {
        // One line; a closing run of "#" in the text would read as the optional closing sequence.
        const text = content.replace(/\s*\n\s*/g, ' ').trim().replace(/(^|\s)(#+)$/, '$1\\$2');
        return block(node, '#'.repeat(Number(node.nodeName.charAt(1))) + (text ? ` ${text}` : ''));
      },

      blockquote(content: string, node: Element): string {
        const body = trimBlock(content);
        return block(node, body.split('\n').map((line) => (line ? `> ${line}` : '>')).join('\n'));
      },

      list: (content: string, node: Element) => block(node, trimBlock(content)),

      listItem(content: string, node: Element): string {
        const list = node.parentNode as Element;
        const prefix = `${marker(node)} `;
        const indent = ' '.repeat(prefix.length);
        // Continuation lines, code blocks and nested lists included, sit under the item's content.
        const body = trimBlock(content)
          .split('\n')
          .map((line, i) => (i === 0 || line === '' ? line : indent + line))
          .join('\n');
        const gap = isLoose(list) ? '\n\n' : '\n';
        return gap + (body ? prefix + body : prefix.trimEnd()) + gap;
      },

      codeBlock(_content: string, node: Element): string {
        const code = codeText(node);
        const info = codeLanguage(node);
        // A backtick fence cannot carry an info string with a backtick; the fence outruns any run in the code.
        const char = info.includes('`') ? '~' : '`';
        const runs: string[] = code.match(char === '`' ? /`+/g : /~+/g) ?? [];
        const fence = char.repeat(runs.reduce((longest, run) => Math.max(longest, run.length + 1), 3));
        const body = code === '' || code.endsWith('\n') ? code : `${code}\n`;
        return block(node, `${fence}${info}\n${body}${fence}`);
      },

      horizontalRule: (_content: string, node: Element) => block(node, '* * *'),

      otherBlock: (content: string, node: Element) => block(node, trimBlock(content)),

      /** A blank block of no other kind (an empty <div>, <p>) leaves only its gap. */
      blank: (node: Element) => block(node, ''),
    };
  }

  function codeSpan(_content: string, node: Element): string {
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

  function emphasis(content: string, node: Element): string {
    if (!content.trim()) return '';
    if (spansBlocks(content)) return content;
    const delimiter = emphasisDelimiter(node);
    return delimiter + content + delimiter;
  }

  /** Always `**`: strong inside strong is `****x****`, which CommonMark reads back as such. */
  function strong(content: string): string {
    if (spansBlocks(content)) return content;
    return content.trim() ? `**${content}**` : '';
  }

  function addRules(service: any, rules: ReturnType<typeof blockRules>): void {
    const add = (name: string, filter: unknown, replacement: (content: string, node: Element) => string) =>
      service.addRule(name, { filter, replacement });
    add('paragraph', 'p', rules.paragraph);
    add('heading', ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'], rules.heading);
    add('blockquote', 'blockquote', rules.blockquote);
    add('list', ['ul', 'ol'], rules.list);
    add('listItem', 'li', rules.listItem);
    add('horizontalRule', 'hr', rules.horizontalRule);
    add('codeBlock', 'pre', rules.codeBlock);
    add('codeSpan', (node: Element) => node.nodeName === 'CODE' && node.parentNode?.nodeName !== 'PRE', codeSpan);
    add('emphasis', ['em', 'i'], emphasis);
    add('strong', ['strong', 'b'], strong);
  }

  /** Elements the page shows even when empty: an empty list item, quote, code block or heading is still there. */
  const KEPT_WHEN_BLANK = /^(PRE|CODE|BLOCKQUOTE|UL|OL|LI|H[1-6])$/;

  function newService(): any {
    // Per conversion (a page, and the cells of its tables): nothing here outlives it.
    const rules = blockRules();
    function blankReplacement(content: string, node: any): string {
      const name = node.nodeName as string;
      if (!KEPT_WHEN_BLANK.test(name)) {
        // Blank text, but holding what is kept when blank (a code span of spaces): converted as usual.
        if (content.trim()) return node.isBlock ? rules.otherBlock(content, node) : content;
        return node.isBlock ? rules.blank(node) : '';
      }
      if (name === 'PRE') return rules.codeBlock('', node);
      if (name === 'CODE') return node.parentNode?.nodeName === 'PRE' ? '' : codeSpan('', node);
      if (name === 'BLOCKQUOTE') return rules.blockquote(content, node);
      if (name === 'LI') return rules.listItem(content, node);
      if (name === 'UL' || name === 'OL') return rules.list(content, node);
      return rules.heading('', node);
    }
    const service = new TurndownService({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
      emDelimiter: '*',
      strongDelimiter: '**',
      // Code keeps its own spaces: leading and trailing ones are part of a code span.
      preformattedCode: true,
      blankReplacement,
      defaultReplacement: (content: string, node: any) => (node.isBlock ? rules.otherBlock(content, node) : content),
    });
    service.use(gfm.gfm);
    addRules(service, rules);
    service.escape = escapeText;
    return service;
  }

  return function toMarkdown(root: Element): string {
    const service = newService();
    // Every data table becomes a GFM table, the first row as its header when it has none.
    const cellText = (cell: Element) =>
      service
        .turndown(cell.innerHTML)
        .replace(/\s*\n+\s*/g, ' ')
        .replace(/\|/g, '\\|')
        .trim();
    service.addRule('gfmTable', {
      filter: 'table',
      replacement: (_content: string, node: HTMLTableElement) => {
        const rows = Array.from(node.rows).map((row) =>
          Array.from(row.cells).flatMap((cell) => {
            const span = Math.min(Math.max(Number(cell.getAttribute('colspan')) || 1, 1), 50);
            return [cellText(cell), ...Array<string>(span - 1).fill('')];
          }),
        );
        const width = rows.reduce((max, row) => Math.max(max, row.length), 0);
        if (width === 0) return '';
        const line = (cells: string[]) => `| ${[...cells, ...Array<string>(width - cells.length).fill('')].join(' | ')} |`;
        const caption = node.caption ? `${cellText(node.caption)}\n\n` : '';
        const lines = [line(rows[0]!), line(Array<string>(width).fill('---')), ...rows.slice(1).map(line)];
        return `\n\n${caption}${lines.join('\n')}\n\n`;
      },
    });
    removeSilentElements(root);
    normaliseTables(root);
    pushLinksIntoBlocks(root);
    isolateBangsBeforeLinks(root);
    // Only line breaks and ASCII spaces are trimmed: a leading no-break space is text the page shows.
    return service.turndown(root).replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  };
}
