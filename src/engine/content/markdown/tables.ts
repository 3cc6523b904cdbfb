/** Every data table a GFM table, the first row as its header when it has none (layout tables are blocks by then: prepare.ts). */
import type TurndownService from 'turndown';
import { cellRoot } from './cellParser.js';

/** The rule for `service`: a cell is converted by `service` itself, on one line. */
export function gfmTableRule(service: TurndownService): TurndownService.Rule {
  const cellText = (cell: Element) =>
    service
      .turndown(cellRoot(cell.innerHTML))
      .replace(/\s*\n+\s*/g, ' ')
      .replace(/\|/g, '\\|')
      .trim();
  return {
    filter: 'table',
    replacement: (_content, element) => {
      const node = element as HTMLTableElement;
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
  };
}
