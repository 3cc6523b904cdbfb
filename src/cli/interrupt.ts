/**
 * Ctrl-C, SIGTERM (`timeout`, systemd, cron's kill), SIGHUP, and stdout closed
 * by its reader (`| head`) while a job command runs. The first asks the command
 * to stop its job cleanly; a second Ctrl-C, or a signal while there is no job to
 * stop, ends the process at once (the 'exit' hooks still kill Chromium and remove
 * its profile). A repeated SIGTERM or SIGHUP does not: timeout(1) sends its
 * SIGTERM to webjobs and then to its whole process group, so webjobs gets it twice.
 */
import { ExitCode } from '../api/errors.js';
import { isClosedOutput } from './output.js';

const EXIT_BY_SIGNAL = {
  SIGINT: ExitCode.interrupted,
  SIGTERM: ExitCode.terminated,
  SIGHUP: ExitCode.hangup,
} as const;

export type StopSignal = keyof typeof EXIT_BY_SIGNAL;
/** Why a command was asked to stop: a signal, or its stdout was closed. */
export type StopReason = StopSignal | 'stdout-closed';
const SIGNALS = Object.keys(EXIT_BY_SIGNAL) as StopSignal[];

export function exitCodeOf(reason: StopReason): number {
  return reason === 'stdout-closed' ? ExitCode.outputClosed : EXIT_BY_SIGNAL[reason];
}

export interface SignalWatch {
  /** The first reason to stop received, if any. */
  readonly received: StopReason | undefined;
  /**
   * What the first signal does from now on: `stop` is called once with it. Without
   * a stop (no job to cancel yet, or output already being written) the process ends.
   */
  setStop(stop: ((reason: StopReason) => void) | undefined): void;
  dispose(): void;
}

export function watchSignals(): SignalWatch {
  let received: StopReason | undefined;
  let stop: ((reason: StopReason) => void) | undefined;
  const onStop = (reason: StopReason) => {
    if (received !== undefined) {
      // Only someone pressing Ctrl-C again is in a hurry (see above).
      if (reason === 'SIGINT') process.exit(exitCodeOf(received));
      return;
    }
    if (stop === undefined) {
      // Nothing to cancel: a signal ends the process now; a closed stdout fails the write that met it.
      if (reason !== 'stdout-closed') process.exit(exitCodeOf(reason));
      return;
    }
    received = reason;
    stop(reason);
  };
  const onSignal = (signal: NodeJS.Signals) => onStop(signal as StopSignal);
  const onStdoutError = (err: unknown) => {
    if (isClosedOutput(err)) onStop('stdout-closed');
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.stdout.on('error', onStdoutError);
  return {
    get received() {
      return received;
    },
    setStop(next) {
      stop = next;
    },
    dispose() {
      for (const signal of SIGNALS) process.off(signal, onSignal);
      process.stdout.off('error', onStdoutError);
    },
  };
}
