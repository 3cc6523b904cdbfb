/**
 * Path globs of crawl include/exclude patterns, matched in time linear in the
 * path for a given pattern: the glob becomes a small automaton (one state per
 * pattern character) that is run over the path once, keeping the set of states
 * it may be in. A backtracking regular expression (ours before, or picomatch's)
 * takes exponential time on patterns such as "*a*a*a*a*a*a*a*a*a*a*a*ab"; this
 * takes at most (path length x pattern length) steps.
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

export class Glob {
  /** Per consuming state: the character code it accepts, or ANY / NOT_SLASH. */
  private readonly accepts: Int32Array;
  /** Per consuming state: the states the automaton may be in after it consumed a character. */
  private readonly after: Int32Array[];
  private readonly start: number[];
  private readonly accept: number;
  /** Scratch for matches(): the step at which each state was last added, to add it once per step. */
  private readonly mark: Int32Array;

  constructor(readonly pattern: string) {
    const states = build(pattern);
    this.accept = states.length;
    this.accepts = Int32Array.from(states, (s) => (s.accepts === undefined ? 0 : s.accepts === 'any' ? ANY : s.accepts === 'notSlash' ? NOT_SLASH : s.accepts.char));
    this.after = states.map((s) => Int32Array.from(s.accepts === undefined ? [] : closureOf(states, s.next[0]!)));
    this.start = closureOf(states, 0);
    this.mark = new Int32Array(states.length + 1);
  }

  matches(path: string): boolean {
    const { accepts, after, mark } = this;
    mark.fill(-1);
    // The states the automaton may be in, before and after each character: two buffers swapped.
    let current = new Int32Array(mark.length);
    let next = new Int32Array(mark.length);
    current.set(this.start);
    let count = this.start.length;
    for (let i = 0; i < path.length; i++) {
      const char = path.charCodeAt(i);
      let nextCount = 0;
      for (let k = 0; k < count; k++) {
        const s = current[k]!;
        if (s === this.accept) continue;
        const want = accepts[s]!;
        if (want !== char && want !== ANY && (want !== NOT_SLASH || char === SLASH)) continue;
        const targets = after[s]!;
        for (let j = 0; j < targets.length; j++) {
          const t = targets[j]!;
          if (mark[t] === i) continue;
          mark[t] = i;
          next[nextCount++] = t;
        }
      }
      if (nextCount === 0) return false;
      [current, next] = [next, current];
      count = nextCount;
    }
    return current.subarray(0, count).includes(this.accept);
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
