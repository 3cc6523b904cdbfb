/**
 * Path globs of crawl include/exclude patterns, matched in time linear in the
 * path for a given pattern: the glob becomes a small automaton (one state per
 * pattern character) that is run over the path once, keeping the set of states
 * it may be in. A backtracking regular expression (ours before, or picomatch's)
 * takes exponential time on patterns such as "*a*a*a*a*a*a*a*a*a*a*a*ab"; this
 * takes at most (path length x pattern length) steps, and the state sets it
 * meets are remembered, so that matching the next path mostly costs one lookup
 * per character.
 *
 * Syntax, matched against the whole URL path (not the query):
 *   *   any characters within one path segment (no "/")
 *   **  any characters, across segments
 *   ?   one character other than "/"
 * "/a/**\/z" also matches "/a/z", and "/blog/**" also matches "/blog".
 * A pattern that does not start with "/" may match at any depth ("*.html" is "**\/*.html").
 */

const SLASH = 0x2f;

/** What a consuming state accepts: one given character, any character, or any but "/". */
type Accepts = { char: number } | 'any' | 'notSlash';

/** One automaton state: consume one character (`accepts`), or (no `accepts`) branch without consuming. */
interface State {
  accepts?: Accepts;
  /** Next states: one after a consumed character, one or two for a branch. */
  next: number[];
}

class Builder {
  readonly states: State[] = [];

  private add(state: State): number {
    this.states.push(state);
    return this.states.length - 1;
  }

  /** The next state to be added: where the previous piece continues. */
  private get here(): number {
    return this.states.length;
  }

  one(accepts: Accepts): void {
    this.add({ accepts, next: [this.here + 1] });
  }

  /** Zero or more characters that pass `accepts`. */
  many(accepts: Accepts): void {
    const branch = this.add({ next: [] });
    const consume = this.add({ accepts, next: [branch] });
    this.states[branch]!.next = [consume, this.here];
  }

  /** The pieces `build` adds, or nothing. */
  optional(build: () => void): void {
    const branch = this.add({ next: [] });
    build();
    this.states[branch]!.next = [branch + 1, this.here];
  }
}

function build(pattern: string): State[] {
  const anchored = pattern.startsWith('/') ? pattern : `/**/${pattern}`;
  const b = new Builder();
  for (const part of anchored.split(/(\/\*\*\/|\/\*\*$|\*\*|\*|\?)/)) {
    if (part === '/**/') {
      // zero or more whole segments: /a/**/z matches /a/z
      b.one({ char: SLASH });
      b.optional(() => {
        b.many('any');
        b.one({ char: SLASH });
      });
    } else if (part === '/**') {
      // /blog/** matches /blog itself too
      b.optional(() => {
        b.one({ char: SLASH });
        b.many('any');
      });
    } else if (part === '**') b.many('any');
    else if (part === '*') b.many('notSlash');
    else if (part === '?') b.one('notSlash');
    else for (let i = 0; i < part.length; i++) b.one({ char: part.charCodeAt(i) });
  }
  return b.states;
}

const ANY = -1;
const NOT_SLASH = -2;
/** A transition to no state: the path cannot match any more. */
const DEAD = -1;
/**
 * State sets remembered per pattern. Ordinary patterns meet a few dozen; past
 * this many a pattern is stepped state by state, which costs more per character
 * but never more than path length x pattern length in all.
 */
const MAX_REMEMBERED_SETS = 500;

export class Glob {
  /** Per consuming state: the character code it accepts, or ANY / NOT_SLASH. */
  private readonly accepts: Int32Array;
  /** Per consuming state: the states the automaton may be in after it consumed a character. */
  private readonly after: Int32Array[];
  private readonly accept: number;
  /** Per state: the step at which it was last added, so a step adds it once. */
  private readonly mark: Int32Array;
  private generation = 0;
  /**
   * The sets of states met so far and, per set and character, the set that
   * follows (a deterministic automaton built as paths need it): a path then
   * costs one lookup per character.
   */
  private sets: Int32Array[] = [];
  private setIds = new Map<string, number>();
  private moves: Map<number, number>[] = [];
  private remembering = true;
  /** States stepped through so far, over every path: what this pattern has cost. */
  private work = 0;

  constructor(readonly pattern: string) {
    const states = build(pattern);
    this.accept = states.length;
    this.accepts = Int32Array.from(states, (s) => (s.accepts === undefined ? 0 : s.accepts === 'any' ? ANY : s.accepts === 'notSlash' ? NOT_SLASH : s.accepts.char));
    this.after = states.map((s) => Int32Array.from(s.accepts === undefined ? [] : closureOf(states, s.next[0]!)));
    this.mark = new Int32Array(states.length + 1);
    this.remember(Int32Array.from(closureOf(states, 0)).sort());
  }

  /** States stepped through so far: remembered moves cost nothing, so ordinary patterns stay near zero. */
  get cost(): number {
    return this.work;
  }

  matches(path: string): boolean {
    let set = 0;
    for (let i = 0; i < path.length; i++) {
      const char = path.charCodeAt(i);
      let next = this.remembering ? this.moves[set]!.get(char) : undefined;
      if (next === undefined) {
        if (!this.remembering) return this.stepEach(this.sets[set]!, path, i);
        const states = this.step(this.sets[set]!, char);
        next = states.length === 0 ? DEAD : this.remember(states);
        if (!this.remembering) return states.length > 0 && this.stepEach(states, path, i + 1);
        this.moves[set]!.set(char, next);
      }
      if (next === DEAD) return false;
      set = next;
    }
    return this.sets[set]!.includes(this.accept);
  }

  /** The id of a set of states, remembering it; stops remembering (and forgets all) past the limit. */
  private remember(states: Int32Array): number {
    const key = states.join(',');
    const known = this.setIds.get(key);
    if (known !== undefined) return known;
    if (this.sets.length >= MAX_REMEMBERED_SETS) {
      this.remembering = false;
      this.sets = [this.sets[0]!];
      this.setIds = new Map();
      this.moves = [];
      return DEAD;
    }
    this.sets.push(states);
    this.setIds.set(key, this.sets.length - 1);
    this.moves.push(new Map());
    return this.sets.length - 1;
  }

  /** The states after consuming `char` from `states`, in ascending order. */
  private step(states: Int32Array, char: number): Int32Array {
    const { accepts, after, mark } = this;
    if (this.generation >= 2 ** 30) {
      this.mark.fill(0);
      this.generation = 0;
    }
    const generation = ++this.generation;
    this.work += states.length;
    const next: number[] = [];
    for (const s of states) {
      if (s === this.accept) continue;
      const want = accepts[s]!;
      if (want !== char && want !== ANY && (want !== NOT_SLASH || char === SLASH)) continue;
      for (const t of after[s]!) {
        if (mark[t] === generation) continue;
        mark[t] = generation;
        next.push(t);
      }
    }
    return Int32Array.from(next).sort();
  }

  /** The rest of `path` from index `from`, state set by state set, remembering nothing. */
  private stepEach(states: Int32Array, path: string, from: number): boolean {
    let current = states;
    for (let i = from; i < path.length; i++) {
      current = this.step(current, path.charCodeAt(i));
      if (current.length === 0) return false;
    }
    return current.includes(this.accept);
  }
}

/** The consuming states, and the final state, reachable from `start` through branches only. */
function closureOf(states: State[], start: number): number[] {
  const found: number[] = [];
  const seen = new Set<number>();
  const stack = [start];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    const state = states[s];
    if (!state || state.accepts !== undefined) found.push(s);
    else stack.push(...state.next);
  }
  return found;
}
