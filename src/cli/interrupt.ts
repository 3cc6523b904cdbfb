/**
 * Ctrl-C, SIGTERM (`timeout`, systemd, cron's kill) and SIGHUP while a job
 * command runs. The first signal asks the command to stop its job cleanly; a
 * second one, or a signal while there is no job to stop, ends the process at
 * once (the 'exit' hooks still kill Chromium and remove its profile).
 */
import { ExitCode } from '../api/errors.js';

const EXIT_BY_SIGNAL = {
  SIGINT: ExitCode.interrupted,
  SIGTERM: ExitCode.terminated,
  SIGHUP: ExitCode.hangup,
} as const;

export type StopSignal = keyof typeof EXIT_BY_SIGNAL;
const SIGNALS = Object.keys(EXIT_BY_SIGNAL) as StopSignal[];

export function exitCodeOfSignal(signal: StopSignal): number {
  return EXIT_BY_SIGNAL[signal];
}

export interface SignalWatch {
  /** The first signal received, if any. */
  readonly received: StopSignal | undefined;
  /**
   * What the first signal does from now on: `stop` is called once with it. Without
   * a stop (no job to cancel yet, or output already being written) the process ends.
   */
  setStop(stop: ((signal: StopSignal) => void) | undefined): void;
  dispose(): void;
}

export function watchSignals(): SignalWatch {
  let received: StopSignal | undefined;
  let stop: ((signal: StopSignal) => void) | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const name = signal as StopSignal;
    if (received !== undefined || stop === undefined) process.exit(exitCodeOfSignal(received ?? name));
    received = name;
    stop(name);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return {
    get received() {
      return received;
    },
    setStop(next) {
      stop = next;
    },
    dispose() {
      for (const signal of SIGNALS) process.off(signal, onSignal);
    },
  };
}
