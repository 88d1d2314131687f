/**
 * `watchStopSignals`: turns SIGINT, SIGTERM and SIGHUP into a graceful stop for `gatefs serve`.
 * The first signal resolves `stopped` with its name, so the server can finish the calls in
 * flight and free the workspace's occupancy before the process ends; a second signal while that
 * runs ends the process at once (exit code 128 + the signal's number, as a shell reports it),
 * for a stop that hangs; the first signal's line says so ("press Ctrl-C again to stop now"). MCP clients send SIGTERM after closing stdin; a terminal sends SIGINT
 * (Ctrl-C) or SIGHUP (closed).
 */
import { exitNow } from '../ports/process-io.js';
import { onSignals } from '../ports/process-signals.js';

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
type StopSignal = keyof typeof SIGNALS;

/** Watching for stop signals: `stopped` resolves with the first one's name. */
export interface StopWatch {
  readonly stopped: Promise<string>;
  /** True once a signal arrived. */
  readonly isStopping: boolean;
  /** Removes the handlers (the default actions apply again). */
  dispose(): void;
}

/** Installs the handlers; `log` gets one line per signal (the CLI passes stderr). */
export function watchStopSignals(log: (line: string) => void): StopWatch {
  let stopping = false;
  let resolve!: (reason: string) => void;
  const stopped = new Promise<string>((r) => (resolve = r));
  const dispose = onSignals(Object.keys(SIGNALS) as StopSignal[], (name) => {
    if (stopping) {
      log(`${name} again: exiting now, without waiting for the calls in flight`);
      exitNow(128 + SIGNALS[name]);
    }
    stopping = true;
    const again = name === 'SIGINT' ? 'press Ctrl-C again' : `send ${name} again`;
    log(`${name} received: finishing the calls in flight and freeing the workspace; ${again} to stop now`);
    resolve(name);
  });
  return {
    stopped,
    get isStopping() {
      return stopping;
    },
    dispose,
  };
}
