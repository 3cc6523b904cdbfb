/**
 * HTML to Markdown: turndown with GFM and our rules (markdown/). The rules aim at
 * Markdown that a CommonMark parser reads back as the page (test/commonmark.test.ts
 * measures it against CommonMark's examples): text that would read as syntax is escaped,
 * blocks the page shows stay even when empty, and lists keep their shape.
 *
 * Runs in Node on linkedom (inNode.ts) and in the page, bundled by
 * scripts/build-page-script.mjs: it reaches nothing but the DOM it is given. Both import turndown's
 * browser build, which parses no HTML at load (its Node build loads domino): the one string it is
 * given, a table cell's HTML, is parsed by markdown/cellParser.ts.
 */
import TurndownService from 'turndown/lib/turndown.browser.es.js';
import { gfm } from 'turndown-plugin-gfm';
import { BlockRules } from './markdown/blocks.js';
import { escapeText, isolateBangsBeforeLinks } from './markdown/escape.js';
import { codeSpan, emphasis, strong } from './markdown/inline.js';
import { normaliseTables, pushLinksIntoBlocks, removeSilentElements } from './markdown/prepare.js';
import { gfmTableRule } from './markdown/tables.js';

/** Turndown marks each node it converts as a block or not. */
const isBlock = (node: HTMLElement): boolean => Boolean((node as HTMLElement & { isBlock?: boolean }).isBlock);

/** Elements the page shows even when empty: an empty list item, quote, code block or heading is still there. */
const KEPT_WHEN_BLANK = /^(PRE|CODE|BLOCKQUOTE|UL|OL|LI|H[1-6])$/;

function addRules(service: TurndownService, rules: BlockRules): void {
  const add = (name: string, filter: TurndownService.Filter, replacement: TurndownService.ReplacementFunction) =>
    service.addRule(name, { filter, replacement });
  add('paragraph', 'p', rules.paragraph);
  add('heading', ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'], rules.heading);
  add('blockquote', 'blockquote', rules.blockquote);
  add('list', ['ul', 'ol'], rules.list);
  add('listItem', 'li', rules.listItem);
  add('horizontalRule', 'hr', rules.horizontalRule);
  add('codeBlock', 'pre', rules.codeBlock);
  add('codeSpan', (node) => node.nodeName === 'CODE' && node.parentNode?.nodeName !== 'PRE', codeSpan);
  add('emphasis', ['em', 'i'], emphasis);
  add('strong', ['strong', 'b'], strong);
}

/** A converter for one conversion (a page, and the cells of its tables): nothing in it outlives it. */
function newService(): TurndownService {
  const rules = new BlockRules();
  function blankReplacement(content: string, node: HTMLElement): string {
    const name = node.nodeName;
    if (!KEPT_WHEN_BLANK.test(name)) {
      // Blank text, but holding what is kept when blank (a code span of spaces): converted as usual.
      if (content.trim()) return isBlock(node) ? rules.otherBlock(content, node) : content;
      return isBlock(node) ? rules.blank(node) : '';
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
    defaultReplacement: (content, node) => (isBlock(node) ? rules.otherBlock(content, node) : content),
  });
  service.use(gfm);
  addRules(service, rules);
  service.escape = escapeText;
  return service;
}

/** The Markdown of `root`, which it changes (silent elements removed, links moved into blocks): give it a copy. */
export function toMarkdown(root: Element): string {
  const service = newService();
  service.addRule('gfmTable', gfmTableRule(service));
  // One text node per run of text, as a browser's parser makes it: linkedom ends a text node at each
  // character reference ("&amp;ouml;" as "&", "ouml;"), and escapes read one node at a time.
  root.normalize();
  removeSilentElements(root);
  normaliseTables(root);
  pushLinksIntoBlocks(root);
  isolateBangsBeforeLinks(root);
  // Only line breaks and ASCII spaces are trimmed: a leading no-break space is text the page shows.
  return service.turndown(root as HTMLElement).replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
}
