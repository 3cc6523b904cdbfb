/**
 * What nodeDom.ts fills in of a browser's DOM for the Node path (linkedom), checked against what a browser
 * does: a TreeWalker's whatToShow, a table's caption. Each failed before its fix, the Node path then reading
 * pages otherwise than Chromium (the corpus's parity test shows the caption's effect on a whole page).
 */
import { describe, expect, it } from 'vitest';
import { withNodeDocument } from '../../src/engine/content/nodeDom.js';
import { lengthOutside, readableLength, textHolds, textLength } from '../../src/engine/content/main/dom.js';
import { longestLine } from '../../src/engine/content/main/passes/visibility.js';
import { freezeTree } from '../../src/engine/content/nodeSelectors.js';
import { toMarkdown } from '../../src/engine/content/markdown.js';

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

describe('event listeners (their registry made on the first addEventListener, nodeListeners.ts)', () => {
  it('are called, bubble to the parent, run once when asked, and are removed', () => {
    const calls = onPage('<div id="outer"><p id="inner">x</p></div>', (doc) => {
      const seen: string[] = [];
      const outer = doc.getElementById('outer')!;
      const inner = doc.getElementById('inner')!;
      const onOuter = (event: Event) => seen.push(`outer:${(event.target as Element).id}`);
      outer.addEventListener('ping', onOuter);
      inner.addEventListener('ping', () => seen.push('inner:once'), { once: true });
      const ping = () => new (doc.defaultView as unknown as { Event: typeof Event }).Event('ping', { bubbles: true });
      inner.dispatchEvent(ping());
      inner.dispatchEvent(ping());
      outer.removeEventListener('ping', onOuter);
      inner.removeEventListener('ping', onOuter);
      inner.dispatchEvent(ping());
      return seen;
    });
    expect(calls).toEqual(['inner:once', 'outer:inner', 'outer:inner']);
  });
});

describe('className (read from the class attribute, nodeSelectors.ts classFromAttribute)', () => {
  it("is linkedom's classList joined: as parsed, set, changed through the classList and removed; class selectors match it", () => {
    const seen = onPage('<p id="a" class="  one\ttwo one  ">x</p><p id="b">y</p>', (doc) => {
      const a = doc.getElementById('a')!;
      const b = doc.getElementById('b')!;
      const read = (el: Element) => [el.className, el.getAttribute('class'), el.classList.value].join('|');
      const found = [read(a), read(b), String(a.matches('.two')), String(a.matches('[class="one two"]'))];
      b.setAttribute('class', ' three  four ');
      b.classList.add('five');
      found.push(read(b), String(b.matches('.five')));
      b.removeAttribute('class');
      found.push(read(b), String(b.matches('[class]')));
      const copy = a.cloneNode(true) as Element;
      found.push(read(copy));
      return found;
    });
    expect(seen).toEqual(['one two|one two|one two', '||', 'true', 'true', 'three four five|three four five|three four five', 'true', '||', 'false', 'one two|one two|one two']);
  });
});

describe('queries of a frozen page (read from an index of its elements, nodeSelectors.ts freezeTree)', () => {
  it('find what the walk finds: in document order, a template passed over, every kind of selector', () => {
    const page =
      '<meta name="a" content="1"><div id="root" class="x y"><p>one</p><template><p>inside</p><meta name="t"></template>' +
      '<section><p class="y">two</p><a href="#">l</a><meta property="b" content="2"></section></div><main><p>three</p></main>';
    const selectors = ['p', 'meta[name], meta[property]', 'p, a, main', '.y', '#root, main', 'div p', 'section > *', '*', 'template', 'meta[name="t"]', 'h1'];
    const describe = (found: Element[]) => found.map((el) => `${el.tagName}:${el.textContent}`).join(' ');
    const read = (doc: Document) => selectors.map((selector) => `${describe(Array.from(doc.querySelectorAll(selector)))} / ${describe([doc.querySelector(selector)].filter((el) => el !== null))}`);
    const [walked, indexed] = onPage(page, (doc) => {
      const walked = read(doc);
      const thaw = freezeTree(doc);
      try {
        return [walked, read(doc)];
      } finally {
        thaw();
      }
    });
    expect(indexed).toEqual(walked);
    expect(walked[0]).toBe('P:one P:two P:three / P:one');
    expect(walked[1]).toBe('META: META: / META:');
  });

  it('stop reading the index when thawed: the tree may change again', () => {
    const counts = onPage('<p>a</p>', (doc) => {
      const thaw = freezeTree(doc);
      const frozen = doc.querySelectorAll('p').length;
      thaw();
      doc.body.append(doc.createElement('p'));
      return [frozen, doc.querySelectorAll('p').length];
    });
    expect(counts).toEqual([1, 2]);
  });
});

describe('text measures along linkedom\'s links (nodeText.ts), and textHolds', () => {
  // The measures as written on textContent and queries, which the walk must equal.
  const spaced = (text: string) => text.replace(/\s+/g, ' ').trim().length;
  const outside = (el: Element, names: string) =>
    spaced(el.textContent || '') - Array.from(el.querySelectorAll(names)).reduce((sum, inner) => sum + spaced(inner.textContent || ''), 0);
  const LISTS = ['script, style, template, textarea', 'script, style, template, noscript'];

  it('equal textContent\'s on pages of words, white space and code in every arrangement', () => {
    // A small random generator with a fixed seed: the same pages every run.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const texts = ['', ' ', '\n  ', 'word', ' two words ', 'x\u00a0y', '\t', 'a ', ' b', 'café'];
    const wrappers = ['div', 'p', 'span', 'script', 'style', 'template', 'textarea', 'noscript', 'b'];
    const fragment = (depth: number): string => {
      let html = '';
      for (let i = random(4); i >= 0; i--) {
        const tag = wrappers[random(wrappers.length)]!;
        const raw = tag === 'script' || tag === 'style' || tag === 'textarea';
        const inside = raw || depth === 0 ? texts[random(texts.length)]! : fragment(depth - 1);
        html += texts[random(texts.length)]! + `<${tag}>${inside}</${tag}>`;
      }
      return html + texts[random(texts.length)]!;
    };
    let compared = 0;
    for (let page = 0; page < 400; page++) {
      const body = `<div id="root">${fragment(3)}</div>`;
      const [measured, written] = onPage(body, (doc) => {
        const measured: number[] = [];
        const written: number[] = [];
        for (const el of [doc.body, ...Array.from(doc.body.querySelectorAll('*'))]) {
          measured.push(textLength(el), ...LISTS.map((names) => lengthOutside(el, names)), Number(textHolds(el, /[\u00c2-\u00f4]/)));
          written.push(spaced(el.textContent || ''), ...LISTS.map((names) => outside(el, names)), Number(/[\u00c2-\u00f4]/.test(el.textContent || '')));
          if (!el.matches('script, style, template')) {
            measured.push(readableLength(el));
            written.push(outside(el, LISTS[0]!));
          }
        }
        return [measured, written];
      });
      expect(measured, body).toEqual(written);
      compared += measured.length;
    }
    expect(compared).toBeGreaterThan(5000);
  });

  it('fall back to the queries where a code element holds another outside a template', () => {
    const [measured, written] = onPage('<div id="d">a <textarea>b</textarea> c</div>', (doc) => {
      const textarea = doc.querySelector('textarea')!;
      const script = doc.createElement('script');
      script.textContent = ' inner ';
      textarea.append(script);
      const d = doc.getElementById('d')!;
      return [lengthOutside(d, LISTS[0]!), outside(d, LISTS[0]!)];
    });
    expect(measured).toBe(written);
  });
});

describe('tagName and nodeName (their upper case remembered per name)', () => {
  it('are the local name in upper case, as linkedom gives them in an HTML document', () => {
    const names = onPage('<div><my-El></my-El><svg><foreignObject></foreignObject></svg><P>x</P></div>', (doc) =>
      Array.from(doc.body.querySelectorAll('*')).map((el) => `${el.tagName}|${el.nodeName}|${el.localName.toUpperCase()}`),
    );
    expect(names).toEqual(['DIV|DIV|DIV', 'MY-EL|MY-EL|MY-EL', 'SVG|SVG|SVG', 'FOREIGNOBJECT|FOREIGNOBJECT|FOREIGNOBJECT', 'P|P|P']);
  });
});

describe('text beside a character reference', () => {
  it('is one text node to the Markdown escapes, as in a browser: "&amp;ouml;" stays text, not "ö" (CommonMark example 14 on the Node path)', () => {
    // linkedom ends a text node at each character reference; the escape of "&ouml;" needs the whole run.
    const markdown = onPage('<p id="p">x &amp;ouml; y &amp;#42; 1&amp;2</p>', (doc) => toMarkdown(doc.getElementById('p')!.cloneNode(true) as Element));
    expect(markdown).toBe('x \\&ouml; y \\&#42; 1&2');
  });
});
