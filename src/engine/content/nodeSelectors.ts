/**
 * `matches`, `closest`, `querySelector` and `querySelectorAll` on linkedom's nodes with each selector
 * compiled once per thread. linkedom compiles the selector (css-select) anew on every call, and the
 * main-content passes ask the same few selectors of every element of a page (FURNITURE_TAGS, NOT_TEXT,
 * the hidden mark...): on the 181 benchmark pages that compiling was 15% of the extraction's CPU, and
 * then 6% in the queries. The compiled query is css-select's, the library linkedom bundles, over an
 * adapter that reads linkedom's nodes as linkedom's own does; `:scope` depends on the element asked,
 * and keeps linkedom's own path. Pages are read as HTML (parseHTML): names match in any case.
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

/**
 * A name in lower (or upper) case, remembered: the selectors ask every element's name, often many times, and
 * V8 builds a new string for each toLowerCase() (on the 181 benchmark pages, 6% of what the extraction
 * allocated). The names are the few a page's tags use; the memory is dropped should it grow past 10,000 of them.
 */
function caseCache(change: (name: string) => string): (name: string) => string {
  const known = new Map<string, string>();
  return (name) => {
    let changed = known.get(name);
    if (changed === undefined) {
      if (known.size >= 10_000) known.clear();
      changed = change(name);
      known.set(name, changed);
    }
    return changed;
  };
}

const lowerCase = caseCache((name) => name.toLowerCase());

/** `name` in upper case, remembered (see caseCache): linkedom's tagName and nodeName of an HTML document's element. */
export const upperCase = caseCache((name) => name.toUpperCase());

/** linkedom's nodes as css-select reads them: an HTML document's names are lower case, a class is its classList's value (see classFromAttribute). */
const ADAPTER: Adapter = {
  isTag,
  existsOne: (test, elements) => findOne(test, elements) !== null,
  getAttributeValue: (element, name) => element.getAttribute(name) ?? undefined,
  getChildren: childrenOf,
  getName: (element) => lowerCase(element.localName),
  getParent: (node) => node.parentNode as Element | null,
  getSiblings: (node) => (node.parentNode ? childrenOf(node.parentNode) : [node]),
  getText: (node) => textOf(node),
  hasAttrib: (element, name) => element.hasAttribute(name),
  removeSubsets: (nodes) => nodes.filter((node, i) => nodes.indexOf(node) === i && !nodes.some((other) => other !== node && other.contains(node))),
  findAll,
  findOne,
};

const compiled = new Map<string, Test>();

/** A list of tag names only ("script, style, template"), as css-select reads it: names in any case. */
const TAG_LIST = /^\s*[a-z][a-z0-9-]*(?:\s*,\s*[a-z][a-z0-9-]*)*\s*$/i;
const tagLists = new Map<string, ReadonlySet<string> | null>();

/** The names of `selectors` in lower case when it is a list of tag names only ("script, style, template"); null for any other selector. */
export function tagNames(selectors: string): ReadonlySet<string> | null {
  let names = tagLists.get(selectors);
  if (names === undefined) {
    names = TAG_LIST.test(selectors) ? new Set(selectors.split(',').map((name) => name.trim().toLowerCase())) : null;
    tagLists.set(selectors, names);
  }
  return names;
}

/**
 * The compiled query for `selectors` (linkedom passes css-select a `strict` flag too, which its version
 * reads not). A list of tag names is one look-up of the element's name, where css-select's query asks
 * the name once per tag listed.
 */
function queryOf(selectors: string): Test {
  let test = compiled.get(selectors);
  if (!test) {
    const names = tagNames(selectors);
    if (names) {
      test = (element) => names.has(ADAPTER.getName(element));
    } else {
      test = compile<Node, Element>(selectors, { xmlMode: false, adapter: ADAPTER }) as Test;
    }
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

/**
 * linkedom's className (and getAttribute('class'), which reads it) joins its classList's tokens again on
 * every call, and builds that list first on an element that had none (a copy's elements). The class
 * attribute's own value is the same string: linkedom writes the attribute through the classList whenever
 * it is set (the parser, setAttribute, className, classList), as the tokens joined by single spaces, and
 * an element without one reads ''. The selectors ask every element's class, Readability its className.
 */
export function classFromAttribute(proto: object): void {
  const own = Object.getOwnPropertyDescriptor(proto, 'className');
  // Should linkedom change how it keeps classes, its own getter stays.
  if (!own?.get || !own.set) return;
  Object.defineProperty(proto, 'className', {
    configurable: true,
    get(this: Element): string {
      return this.getAttributeNode('class')?.value ?? '';
    },
    set: own.set,
  });
}

/** linkedom's links between nodes in document order: a node's next, and the node after an element's last descendant. */
export interface NodeLinks {
  next: symbol;
  end: symbol;
}

interface Linked {
  [link: symbol]: Linked | undefined;
  nodeType: number;
  localName: string;
}

/**
 * The elements of a document whose tree no longer changes, in document order, and by name: what a query
 * of the whole document, or of one of its elements, walks. The extraction asks some thirty whole-document
 * queries of the page it parsed (its metadata, links, JSON-LD, language, signals...), and more of its
 * elements (the text lengths of visibility's blocks), and each walked every node linkedom keeps
 * (attributes, text, ends of elements): on the 181 benchmark pages one walk of a page was 1-2% of the
 * CPU. Built at the first such query, by the same walk. A document is indexed only between freezeTree and the function
 * it returns, and its tree must not change between them (its attributes may: the queries still test each
 * element).
 */
interface TreeIndex {
  all: Element[];
  byName: Map<string, Element[]>;
  /** Each element's place in `all`; its descendants are the elements after it up to `ends` at that place. */
  places: Map<Element, number>;
  ends: number[];
}

const frozen = new WeakMap<object, TreeIndex | null>();

/** Queries of `doc` and its elements read an index of its elements until the returned function is called; its tree must not change until then. */
export function freezeTree(doc: Document): () => void {
  frozen.set(doc, null);
  return () => frozen.delete(doc);
}

/**
 * The element names a selector list can match, when each of its selectors is one compound that starts
 * with a name ("meta[name], meta[property]", "script[type=\"application/ld+json\"]", "a[href]"); null
 * when any of them could match any element.
 */
const COMPOUND_WITH_NAME = /^\s*([a-z][a-z0-9-]*)(?:\[[^\]]*\]|\.[\w-]+|#[\w-]+)*\s*$/i;
const namesAsked = new Map<string, ReadonlySet<string> | null>();

function namesOf(selectors: string): ReadonlySet<string> | null {
  let names = namesAsked.get(selectors);
  if (names === undefined) {
    const found = new Set<string>();
    for (const part of selectors.split(',')) {
      const name = COMPOUND_WITH_NAME.exec(part)?.[1];
      if (!name) {
        namesAsked.set(selectors, null);
        return null;
      }
      found.add(name.toLowerCase());
    }
    names = found;
    namesAsked.set(selectors, names);
  }
  return names;
}

/**
 * Puts querySelector and querySelectorAll with the cached selectors on linkedom's ParentNode prototype
 * (once per thread): the same walk as linkedom's, along its links from the node to its end, a template's
 * content passed over; a frozen document's elements from its index (see freezeTree). `NodeList` is
 * linkedom's, which querySelectorAll returns.
 */
export function cacheQueries(
  proto: { querySelector(selectors: string): Element | null; querySelectorAll(selectors: string): NodeListOf<Element> },
  links: NodeLinks,
  NodeList: new () => Element[],
): void {
  const ownQuery = proto.querySelector;
  const ownQueryAll = proto.querySelectorAll;
  const { next: NEXT, end: END } = links;
  const after = (node: Linked) => (node.nodeType === 1 && node.localName === 'template' ? node[END] : node[NEXT]);

  function indexOf(doc: Linked): TreeIndex {
    const all: Element[] = [];
    const byName = new Map<string, Element[]>();
    const places = new Map<Element, number>();
    const ends: number[] = [];
    const open: Linked[] = [];
    const end = doc[END];
    for (let node = doc[NEXT]; node !== end && node; node = after(node)) {
      // An element's end (a template's too, which `after` jumps to): its descendants are counted.
      if (node.nodeType === -1) {
        while (open.length > 0 && open[open.length - 1]![END] !== node) open.pop();
        const closed = open.pop();
        if (closed) ends[places.get(closed as unknown as Element)!] = all.length;
        continue;
      }
      if (node.nodeType !== 1) continue;
      const element = node as unknown as Element;
      places.set(element, all.length);
      ends.push(all.length + 1);
      open.push(node);
      all.push(element);
      const name = ADAPTER.getName(element);
      const named = byName.get(name);
      if (named) named.push(element);
      else byName.set(name, [element]);
    }
    return { all, byName, places, ends };
  }

  /** The first place in `list` (elements in document order) at or after `place` in the index. */
  function firstAt(list: Element[], places: Map<Element, number>, place: number): number {
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (places.get(list[middle]!)! < place) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /**
   * The elements to test for a query of a frozen document, or of one of its elements, in document order;
   * undefined for any other. linkedom's document queries walk from a stand-in that carries the document's links.
   */
  function candidates(from: Linked & { ownerDocument?: Linked }, selectors: string): Element[] | undefined {
    const doc = from.ownerDocument;
    if (!doc) return undefined;
    let index = frozen.get(doc);
    if (index === undefined) return undefined;
    let first = 0;
    let last: number;
    if (from.nodeType === undefined) {
      if (from[NEXT] !== doc[NEXT] || from[END] !== doc[END]) return undefined;
    } else if (from.nodeType !== 1 || from.localName === 'template') return undefined;
    if (index === null) {
      index = indexOf(doc);
      frozen.set(doc, index);
    }
    if (from.nodeType === 1) {
      // An element in a template's content is not in the index, nor is that content (a query of the template walks it).
      const place = index.places.get(from as unknown as Element);
      if (place === undefined) return undefined;
      first = place + 1;
      last = index.ends[place]!;
    } else last = index.all.length;
    const names = namesOf(selectors);
    if (!names) return first === 0 && last === index.all.length ? index.all : index.all.slice(first, last);
    if (names.size === 1) {
      const named = index.byName.get(names.values().next().value!) ?? [];
      if (first === 0 && last === index.all.length) return named;
      return named.slice(firstAt(named, index.places, first), firstAt(named, index.places, last));
    }
    const found: Element[] = [];
    for (let at = first; at < last; at++) if (names.has(ADAPTER.getName(index.all[at]!))) found.push(index.all[at]!);
    return found;
  }

  Object.defineProperty(proto, 'querySelector', {
    configurable: true,
    writable: true,
    value(this: Linked, selectors: string): Element | null {
      if (selectors.includes(':scope')) return ownQuery.call(this as never, selectors);
      const test = queryOf(selectors);
      const indexed = candidates(this, selectors);
      if (indexed) {
        for (const element of indexed) if (test(element)) return element;
        return null;
      }
      const end = this[END];
      for (let node = this[NEXT]; node !== end && node; node = after(node)) {
        if (node.nodeType === 1 && test(node as unknown as Element)) return node as unknown as Element;
      }
      return null;
    },
  });
  Object.defineProperty(proto, 'querySelectorAll', {
    configurable: true,
    writable: true,
    value(this: Linked, selectors: string): Element[] {
      if (selectors.includes(':scope')) return ownQueryAll.call(this as never, selectors) as unknown as Element[];
      const test = queryOf(selectors);
      const found = new NodeList();
      const indexed = candidates(this, selectors);
      if (indexed) {
        for (const element of indexed) if (test(element)) found.push(element);
        return found;
      }
      const end = this[END];
      for (let node = this[NEXT]; node !== end && node; node = after(node)) {
        if (node.nodeType === 1 && test(node as unknown as Element)) found.push(node as unknown as Element);
      }
      return found;
    },
  });
}
