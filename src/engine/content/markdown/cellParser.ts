/**
 * How a table cell's HTML is parsed when tables.ts converts the cell on its own: as turndown parses a
 * string (its RootNode), with the page's DOMParser. In Node there is none: nodeDom.ts sets the parser
 * turndown's Node build uses (domino), loaded by the first table rather than with turndown, which is
 * imported in its browser build everywhere (markdown.ts): its Node build loads domino (52 modules,
 * ~80 ms of CPU) in every extraction worker at start, for pages that have no table.
 */

/** A parser of an HTML string into a document of its own. */
export type HtmlParser = (html: string) => Document;

/** The page's DOMParser as the bundle found it (turndown's browser build reads it once, at load). */
const PageParser: typeof DOMParser | undefined = typeof DOMParser === 'undefined' ? undefined : DOMParser;
let parser: HtmlParser | undefined;

/** Sets the parser of cells where the global scope has no DOMParser (nodeDom.ts, in Node). */
export function setCellParser(parse: HtmlParser): void {
  parser = parse;
}

/** `html` parsed into a root element, as turndown parses a string it is given: the element it then converts. */
export function cellRoot(html: string): HTMLElement {
  const parse = parser ?? (PageParser && ((text: string) => new PageParser().parseFromString(text, 'text/html')));
  if (!parse) throw new Error('no HTML parser for table cells (in Node, import content/nodeDom.ts)');
  // DOM parsers arrange elements in the <head> and <body>: wrapped in an element of its own, the HTML stays in one.
  return parse(`<x-turndown id="turndown-root">${html}</x-turndown>`).getElementById('turndown-root') as HTMLElement;
}
