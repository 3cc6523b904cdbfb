/**
 * What the content's tree needs before turndown reads it: links moved into the blocks
 * they wrap, silent elements removed, layout tables made plain blocks.
 */

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
export function pushLinksIntoBlocks(root: Element): void {
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
export function removeSilentElements(root: Element): void {
  // An accordion's question is a button: in a heading (WAI-ARIA's pattern, Bootstrap's), or asking its question
  // outside any (Alpine's and many shop themes' FAQs). Its text is content: without it, the answers come alone.
  // Not every button that opens a panel (aria-expanded): a size guide's or a language menu's label is no content.
  for (const button of Array.from(root.querySelectorAll('button'))) {
    if (button.closest('h1, h2, h3, h4, h5, h6') || /\?$/.test((button.textContent || '').trim())) button.replaceWith(...Array.from(button.childNodes));
  }
  for (const element of Array.from(root.querySelectorAll('button, input, select, textarea, source, track, meta, link, param'))) element.remove();
}

/**
 * Tables used for layout (nested tables, one column, one row) become plain blocks;
 * the others stay tables for the GFM rule (tables.ts).
 */
export function normaliseTables(root: Element): void {
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
