/**
 * `matches` and `closest` on linkedom's elements with each selector compiled once per thread. linkedom
 * compiles the selector (css-select) anew on every call, and the main-content passes ask the same few
 * selectors of every element of a page (FURNITURE_TAGS, NOT_TEXT, the hidden mark...): on the 181
 * benchmark pages that compiling was 15% of the extraction's CPU. The compiled query is css-select's,
 * the library linkedom bundles, over an adapter that reads linkedom's nodes as linkedom's own does;
 * `:scope` depends on the element asked, and keeps linkedom's own path.
 */
import { compile, type Options } from 'css-select';

type Adapter = NonNullable<Options<Node, Element>['adapter']>;

type Test = (element: Element) => boolean;

const isTag = (node: Node): node is Element => node.nodeType === 1;
const childrenOf = (node: Node): Node[] => Array.from(node.childNodes);

function textOf(node: Node | Node[]): string {
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (isTag(node)) return textOf(childrenOf(node));
  return node.nodeType === 3 ? ((node as Text).data ?? '') : '';
}

function findAll(test: Test, nodes: Node[]): Element[] {
  const found: Element[] = [];
  for (const node of nodes) {
    if (!isTag(node)) continue;
    if (test(node)) found.push(node);
    found.push(...findAll(test, childrenOf(node)));
  }
  return found;
}

function findOne(test: Test, nodes: Node[]): Element | null {
  for (const node of nodes) {
    if (!isTag(node)) continue;
    if (test(node)) return node;
    const inside = findOne(test, childrenOf(node));
    if (inside) return inside;
  }
  return null;
}

/** linkedom's nodes as css-select reads them: an HTML document's names are lower case, a class is its classList's value. */
const ADAPTER: Adapter = {
  isTag,
  existsOne: (test, elements) => findOne(test, elements) !== null,
  getAttributeValue: (element, name) => (name === 'class' ? element.classList.value : (element.getAttribute(name) ?? undefined)),
  getChildren: childrenOf,
  getName: (element) => element.localName.toLowerCase(),
  getParent: (node) => node.parentNode as Element | null,
  getSiblings: (node) => (node.parentNode ? childrenOf(node.parentNode) : [node]),
  getText: (node) => textOf(node),
  hasAttrib: (element, name) => element.hasAttribute(name),
  removeSubsets: (nodes) => nodes.filter((node, i) => nodes.indexOf(node) === i && !nodes.some((other) => other !== node && other.contains(node))),
  findAll,
  findOne,
};

const compiled = new Map<string, Test>();

/** The compiled query for `selectors` (linkedom passes css-select a `strict` flag too, which its version reads not). */
function queryOf(selectors: string): Test {
  let test = compiled.get(selectors);
  if (!test) {
    test = compile<Node, Element>(selectors, { xmlMode: false, adapter: ADAPTER }) as Test;
    compiled.set(selectors, test);
  }
  return test;
}

/** Puts the cached matches and closest on linkedom's Element prototype (once per thread). */
export function cacheSelectors(proto: { matches(selectors: string): boolean; closest(selectors: string): Element | null }): void {
  const ownMatches = proto.matches;
  const ownClosest = proto.closest;
  Object.defineProperty(proto, 'matches', {
    configurable: true,
    value(this: Element, selectors: string): boolean {
      if (selectors.includes(':scope')) return ownMatches.call(this, selectors);
      return queryOf(selectors)(this);
    },
  });
  Object.defineProperty(proto, 'closest', {
    configurable: true,
    value(this: Element, selectors: string): Element | null {
      if (selectors.includes(':scope')) return ownClosest.call(this, selectors);
      const test = queryOf(selectors);
      let element: Element | null = this;
      while (element && !test(element)) element = element.parentElement;
      return element;
    },
  });
}
