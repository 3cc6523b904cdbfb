/** What the CLI shows a person: colours and spinners on a terminal only, never on data streams. */
import { Chalk, type ChalkInstance } from 'chalk';

/**
 * A terminal a person watches. A pseudo-terminal without a size (script(1), some
 * CI runners) is not one: spinners redraw by the terminal's width and go wrong there.
 */
export function stderrIsTerminal(): boolean {
  return Boolean(process.stderr.isTTY) && (process.stderr.columns ?? 0) > 0 && process.env.CI !== 'true';
}

/** NO_COLOR (https://no-color.org): set and not empty means no colour, whatever else says. */
const colorsWanted = (): boolean => Boolean(process.stderr.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';

export const colors: ChalkInstance = new Chalk({ level: colorsWanted() ? 1 : 0 });

export interface ProgressFlags {
  /** Kept for scripts that pass it: progress shows whenever stderr is a terminal. */
  progress?: boolean;
  /** Nothing on stderr but errors. */
  quiet?: boolean;
}

/**
 * Whether the spinner and the final summary show: when stderr is a terminal a
 * person watches, as curl and gh decide, whatever stdout is (`batch --jsonl >
 * out.jsonl` shows its progress); never with -q. The spinner is cleared before
 * anything else is written, and before the command ends.
 */
export function showProgress(flags: ProgressFlags = {}): boolean {
  return !flags.quiet && stderrIsTerminal();
}

export interface Progress {
  update(text: string): void;
  stop(): void;
}

const SILENT: Progress = { update() {}, stop() {} };

/** An ora spinner on stderr when progress shows (see showProgress); nothing otherwise. */
export async function startProgress(text: string, flags: ProgressFlags = {}): Promise<Progress> {
  if (!showProgress(flags)) return SILENT;
  const { default: ora } = await import('ora');
  // discardStdin: false, because `webjobs batch -` reads its URLs from stdin.
  // ora colours with chalk's own detection, which ignores NO_COLOR: it gets our decision instead.
  const spinner = ora({ text, stream: process.stderr, color: colors.level > 0 ? 'cyan' : false, discardStdin: false }).start();
  return {
    update: (next) => {
      spinner.text = next;
    },
    stop: () => spinner.stop(),
  };
}
