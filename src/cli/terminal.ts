/** What the CLI shows a person: colours and spinners on a terminal only, never on data streams. */
import { Chalk, type ChalkInstance } from 'chalk';

/**
 * A terminal a person watches. A pseudo-terminal without a size (script(1), some
 * CI runners) is not one: spinners redraw by the terminal's width and go wrong there.
 */
export function stderrIsTerminal(): boolean {
  return Boolean(process.stderr.isTTY) && (process.stderr.columns ?? 0) > 0 && process.env.CI !== 'true';
}

export const colors: ChalkInstance = new Chalk({
  level: process.stderr.isTTY && !process.env.NO_COLOR && process.env.TERM !== 'dumb' ? 1 : 0,
});

export interface Progress {
  update(text: string): void;
  /** Leaves a final line on stderr when on a terminal. */
  done(text?: string): void;
  stop(): void;
}

const SILENT: Progress = { update() {}, done() {}, stop() {} };

/** An ora spinner on stderr when it is a terminal; nothing otherwise. */
export async function startProgress(text: string): Promise<Progress> {
  if (!stderrIsTerminal()) return SILENT;
  const { default: ora } = await import('ora');
  // discardStdin: false, because `webjobs batch -` reads its URLs from stdin.
  const spinner = ora({ text, stream: process.stderr, color: 'cyan', discardStdin: false }).start();
  return {
    update: (next) => {
      spinner.text = next;
    },
    done: (final) => (final ? spinner.succeed(final) : spinner.stop()),
    stop: () => spinner.stop(),
  };
}
