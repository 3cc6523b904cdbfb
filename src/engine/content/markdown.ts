/**
 * HTML to Markdown, in the page: turndown with GFM and our rules for code, tables
 * and layout tables. Like extractInPage, this function is serialised with
 * toString() and evaluated in the page, so it references nothing outside itself
 * but the libraries passed in. It returns the converter, built once per page.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
export function markdownConverter(TurndownService: any, gfm: any): (root: Element) => string {
  function codeLanguage(node: Element): string {
    const classes = `${node.className || ''} ${(node.firstElementChild as Element | null)?.className || ''}`;
    const match = /(?:lang(?:uage)?-|highlight-(?:text|source)-)([\w+#-]+)/.exec(classes);
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

  return function toMarkdown(root: Element): string {
    const service = new TurndownService({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
      emDelimiter: '_',
    });
    service.use(gfm.gfm);
    service.addRule('fencedCodeWithLanguage', {
      filter: (node: Element) => node.nodeName === 'PRE',
      replacement: (_content: string, node: Element) => {
        const code = node.textContent || '';
        const fence = code.includes('```') ? '~~~~' : '```';
        return `\n\n${fence}${codeLanguage(node)}\n${code.replace(/\n$/, '')}\n${fence}\n\n`;
      },
    });
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
    service.remove(['button', 'input', 'select', 'textarea']);
    normaliseTables(root);
    return service.turndown(root.innerHTML).replace(/\n{3,}/g, '\n\n').trim();
  };
}
