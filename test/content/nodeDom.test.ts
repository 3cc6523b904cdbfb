/**
 * What nodeDom.ts fills in of a browser's DOM for the Node path (linkedom), checked against what a browser
 * does: a TreeWalker's whatToShow, a table's caption. Each failed before its fix, the Node path then reading
 * pages otherwise than Chromium (the corpus's parity test shows the caption's effect on a whole page).
 */
import { describe, expect, it } from 'vitest';
import { withNodeDocument } from '../../src/engine/content/nodeDom.js';
import { longestLine } from '../../src/engine/content/main/passes/visibility.js';

const onPage = <T>(body: string, read: (doc: Document) => T): T =>
  withNodeDocument(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`, 'http://127.0.0.1/page', read);

describe('createTreeWalker', () => {
  it('with SHOW_TEXT walks text nodes, as a browser does (linkedom walked elements whatever it was asked)', () => {
    const texts = onPage('<div id="d"><p>One <b>two</b></p><p>three</p></div>', (doc) => {
      const walker = doc.createTreeWalker(doc.getElementById('d')!, NodeFilter.SHOW_TEXT);
      const found: string[] = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) found.push(`${node.nodeType}:${node.nodeValue}`);
      return found;
    });
    expect(texts).toEqual(['3:One ', '3:two', '3:three']);
  });

  it('with SHOW_ELEMENT and a filter, REJECT skips a subtree and SKIP only the node', () => {
    const names = onPage('<div id="d"><section><p>a</p></section><aside><p>b</p></aside></div>', (doc) => {
      const walker = doc.createTreeWalker(doc.getElementById('d')!, NodeFilter.SHOW_ELEMENT, {
        acceptNode: (node) => ((node as Element).tagName === 'ASIDE' ? NodeFilter.FILTER_REJECT : (node as Element).tagName === 'SECTION' ? NodeFilter.FILTER_SKIP : NodeFilter.FILTER_ACCEPT),
      });
      const found: string[] = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) found.push((node as Element).tagName);
      return found;
    });
    expect(names).toEqual(['P']);
  });

  it("longestLine reads the longest text node, as in Chromium (not an element's whole text)", () => {
    const line = onPage('<div id="d"><p>Short <b>bold</b> and a long tail of text that is the longest run</p><p>Next paragraph</p></div>', (doc) => longestLine(doc.getElementById('d')!));
    expect(line).toBe('and a long tail of text that is the longest run');
  });
});

describe('a table', () => {
  it('has its first <caption> child as caption, and none without one', () => {
    const captions = onPage('<table id="a"><caption>Chipset</caption><tr><td>x</td></tr></table><table id="b"><tr><td>y</td></tr></table>', (doc) => [
      doc.getElementById('a') as HTMLTableElement,
      doc.getElementById('b') as HTMLTableElement,
    ].map((table) => table.caption?.textContent ?? null));
    expect(captions).toEqual(['Chipset', null]);
  });
});
