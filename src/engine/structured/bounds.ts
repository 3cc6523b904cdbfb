/**
 * How much structured data one page may make: a depth bound (items or JSON values
 * nested in one another) and a node budget (values read, and elements walked to
 * find them), shared by the three readers of a page. A hostile page (JSON-LD nested
 * 50,000 deep, microdata whose itemrefs fan out over 20 levels) is read up to the
 * bound, with a warning, in linear time and without recursion on the call stack:
 * never a timeout, never a stack overflow. Items are null-prototype objects, so
 * that any property name (`constructor`, `toString`, `__proto__`) is plain data.
 */
import type { StructuredItem } from './types.js';

/** Levels of nesting kept: items inside items, JSON values inside JSON values. Real pages nest a handful. */
export const MAX_DEPTH = 64;

/** Values and elements one page's readers may visit (a large shop page's JSON-LD holds a few thousand values; a page whose body is one item, its elements). */
export const MAX_NODES = 100_000;

export class Budget {
  private nodes = 0;
  /** Something nested deeper than MAX_DEPTH was left out. */
  deepCut = false;
  /** The node budget ran out: what follows was not read. */
  spent = false;

  constructor(private readonly max = MAX_NODES) {}

  /** Counts one more node; false (for good) once the budget is spent. */
  take(): boolean {
    if (this.nodes >= this.max) this.spent = true;
    if (this.spent) return false;
    this.nodes++;
    return true;
  }

  /** Whether `depth` is past the bound (remembered for the warning). */
  tooDeep(depth: number): boolean {
    if (depth <= MAX_DEPTH) return false;
    this.deepCut = true;
    return true;
  }

  /** What was left out, for the page's warning. */
  warning(): string | undefined {
    const cuts = [
      this.deepCut ? `what nests more than ${MAX_DEPTH} levels deep` : '',
      this.spent ? `what lies past the first ${MAX_NODES.toLocaleString('en-US')} values and elements` : '',
    ].filter(Boolean);
    return cuts.length === 0 ? undefined : `the page's structured data was cut: ${cuts.join(' and ')} was left out of structuredData`;
  }
}

/** An item whose property names are data: no prototype to shadow. */
export const newItem = (): StructuredItem => Object.create(null) as StructuredItem;

/**
 * A copy of a parsed JSON value within the budget, objects as null-prototype items:
 * containers nested past MAX_DEPTH are left out, and the copy stops where the budget
 * ends. Walked with a stack of its own.
 */
export function boundedCopy(value: unknown, budget: Budget): unknown {
  const holder = newItem();
  const stack: { from: unknown; into: StructuredItem | unknown[]; key: string; depth: number }[] = [{ from: value, into: holder, key: 'value', depth: 0 }];
  while (stack.length > 0) {
    const { from, into, key, depth } = stack.pop()!;
    if (!budget.take()) break;
    let copy: unknown = from;
    if (typeof from === 'object' && from !== null) {
      if (budget.tooDeep(depth + 1)) continue;
      const children: [string, unknown][] = Array.isArray(from) ? from.map((v, i) => [String(i), v]) : Object.entries(from);
      copy = Array.isArray(from) ? [] : newItem();
      for (let i = children.length - 1; i >= 0; i--) stack.push({ from: children[i]![1], into: copy as StructuredItem | unknown[], key: children[i]![0], depth: depth + 1 });
    }
    if (Array.isArray(into)) into.push(copy);
    else into[key] = copy;
  }
  return holder.value;
}
