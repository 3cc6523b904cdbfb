/**
 * Text measures (main/dom.ts textLength, lengthOutside) on linkedom's nodes, along its links in document
 * order, without building their text: linkedom's textContent pushes every text node's data into an array
 * and joins it, and the passes measure the text of block after block (on the 181 benchmark pages, 3% of
 * the extraction's CPU went to those joins, and more to collecting the strings). The same numbers as
 * textContent's: its text is the data of the text nodes between an element and its end, in that order.
 */
import { isSpace, TextCount, type TextWalk } from './main/dom.js';
import { tagNames, type NodeLinks } from './nodeSelectors.js';

interface Linked {
  [link: symbol]: Linked | undefined;
  nodeType: number;
  localName: string;
  data: string;
}

/** The text measures along `links`, for the elements that have them (any other node: undefined). */
export function linkedTextWalk({ next: NEXT, end: END }: NodeLinks): TextWalk {
  /** The names of a list of tag names that holds `template` (whose content a query passes over, and so do we); null for any other selector. */
  function namesOf(selectors: string): ReadonlySet<string> | null {
    const names = tagNames(selectors);
    return names?.has('template') ? names : null;
  }

  function textLength(node: Node): number | undefined {
    const el = node as unknown as Linked;
    const end = el[END];
    if (el.nodeType !== 1 || !end) return undefined;
    const count = new TextCount();
    for (let at = el[NEXT]; at && at !== end; at = at[NEXT]) if (at.nodeType === 3) count.add(at.data);
    return count.length;
  }

  /**
   * textLength(el) less that of each element named in `names` inside it (as el.querySelectorAll(names) finds
   * them: not inside a template), in one walk that reads only the edges of those elements' text. Counted as
   * runs of white space between words, each such element's text weighs in its surroundings only by whether it
   * starts or ends with white space and holds a word: it is counted as " x " (or "x ", " x", "x", " ", ""),
   * and the one for its "x" taken off. Undefined (the measure by queries) when such an element holds
   * another outside a template, which the queries would take off twice.
   */
  function lengthOutside(element: Element, selectors: string): number | undefined {
    const el = element as unknown as Linked;
    const names = namesOf(selectors);
    const end = el[END];
    if (!names || el.nodeType !== 1 || !end) return undefined;
    const count = new TextCount();
    let taken = 0;
    for (let at = el[NEXT]; at && at !== end; at = at[NEXT]) {
      if (at.nodeType === 3) count.add(at.data);
      if (at.nodeType !== 1 || !names.has(at.localName.toLowerCase())) continue;
      const stop = at[END];
      const template = at.localName.toLowerCase() === 'template';
      let any = false;
      let word = false;
      let startsSpace = false;
      let endsSpace = false;
      for (let inner = at[NEXT]; inner && inner !== stop; inner = inner[NEXT]) {
        if (inner.nodeType === 1 && !template && names.has(inner.localName.toLowerCase())) return undefined;
        if (inner.nodeType !== 3 || inner.data.length === 0) continue;
        const text = inner.data;
        if (!any) startsSpace = isSpace(text.charCodeAt(0));
        any = true;
        endsSpace = isSpace(text.charCodeAt(text.length - 1));
        for (let i = 0; !word && i < text.length; i++) word = !isSpace(text.charCodeAt(i));
      }
      if (word) {
        count.add(`${startsSpace ? ' ' : ''}x${endsSpace ? ' ' : ''}`);
        taken++;
      } else if (any) count.add(' ');
      if (!stop) break;
      at = stop;
    }
    return count.length - taken;
  }

  function textHolds(element: Element, character: RegExp): boolean | undefined {
    const el = element as unknown as Linked;
    const end = el[END];
    if (el.nodeType !== 1 || !end || character.global || character.sticky) return undefined;
    for (let at = el[NEXT]; at && at !== end; at = at[NEXT]) if (at.nodeType === 3 && character.test(at.data)) return true;
    return false;
  }

  return { textLength, lengthOutside, textHolds };
}
