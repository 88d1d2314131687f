/**
 * `gatefs log`: the run log (every tool call with its outcome code and paths, preparations,
 * occupancy, releases, the git commands of gatefs's tasks, agents' commands, landings), newest
 * last, one event with every field of its data, nothing cut: on a terminal a long event wraps
 * under its DETAILS column, `--wide` keeps it on one line with every git argv word; `--json`
 * prints one JSON object a line instead (JSON Lines: `seq`, `at`, `time`, `type`,
 * `conversation`, `data`); `--failed` keeps only the records that report a failure
 * (src/state/run-log-failures.ts); `--follow` keeps printing new events as any gatefs process
 * over the same state directory appends them, until Ctrl-C.
 *
 * A read-only look (`openStateReader`): where nothing was prepared yet it says so and creates
 * nothing (no state directory, no database); `--follow` then waits for the first event.
 */
import type { Command } from './command.js';
import type { GlobalFlags } from './global-flags.js';
import type { Output } from './output.js';
import { conversationArg } from './conversation-arg.js';
import { checkRepoFolder } from './repo-folder-check.js';
import { UsageError } from './usage-error.js';
import { type EventLineOptions, formatEventLine } from './run-log.js';
import type { EventFilter, RunEvent } from '../state/index.js';
import { isFailureEvent } from '../state/run-log-failures.js';
import type { StateReader } from '../host/state-trust/index.js';
import { foreignCodeOf } from '../../vfs/coded-error.js';
import { exitNow, standardOutput } from '../ports/process-io.js';
import { onSignals } from '../ports/process-signals.js';

/** Events shown before following, unless `--tail` says otherwise. */
const DEFAULT_TAIL = 50;
/** How often `--follow` looks for new events, in ms. */
const FOLLOW_EVERY_MS = 250;

/** The `log` command. */
export const logCommand: Command = {
  name: 'log',
  summary: 'show the run log (tool calls, preparations, occupancy, git commands, landings); --follow to keep watching',
  usage: 'gatefs log [--conversation ID] [--tail N] [--failed] [--wide] [--follow] [--json]',
  positionals: [],
  options: {
    conversation: { type: 'string' },
    tail: { type: 'string' },
    failed: { type: 'boolean' },
    wide: { type: 'boolean' },
    follow: { type: 'boolean', short: 'f' },
  },
  optionHelp: [
    ['--conversation ID', "only this conversation's events"],
    ['--tail N', `the last N events (default ${DEFAULT_TAIL}; 0: every event)`],
    ['--failed', 'only failures: tool calls not ok, commands that failed, failed preparations, releases, landings'],
    ['--wide', 'one line per event, every git argv word (no wrapping, no folding)'],
    ['-f, --follow', 'keep printing new events as they are appended, until Ctrl-C'],
  ],
  details: [
    'Columns: SEQ (the event number), TIME (UTC), TYPE, CONVERSATION, DETAILS (every field of the record: tool,',
    'outcome, paths, git argv, exit code, …; never file contents). Nothing is cut: on a terminal a long record',
    "wraps under DETAILS; git's safety settings (-c …) show folded as [N -c settings] unless --wide.",
    '--failed: a tool call whose outcome is not ok; an agent or lander command that exited non-zero, was',
    "killed, timed out or hit a limit; a gatefs git command killed, timed out or not run (git's own non-zero",
    'exits are answers: the task records its failure itself); every failed or rolled-back preparation, refused,',
    'aborted or undone release, failed recovery, blocked, failed or unpushed landing, work.failed.',
    'With --json: one JSON object per line, for jq or a script.',
    'Reads the state database only: it creates nothing where nothing was prepared.',
  ].join('\n'),
  async run({ globals, flags, out }) {
    const conversation = typeof flags.conversation === 'string' ? conversationArg(flags.conversation, 'log') : undefined;
    const tail = tailOf(flags.tail);
    checkRepoFolder({ repo: globals.repo, given: globals.repoGiven });
    // `gatefs log | head`: a reader that went away ends the log, quietly.
    standardOutput().on('error', (e) => {
      if (foreignCodeOf(e) === 'EPIPE') exitNow(0);
    });
    const failedOnly = flags.failed === true;
    const { openStateReader } = await import('../host/state-trust/index.js');
    let reader = await openStateReader(where(globals));
    const stdout = standardOutput();
    const width = flags.wide !== true && stdout.isTTY && stdout.columns > 0 ? stdout.columns : undefined;
    const print = printer(out, globals.json, { wide: flags.wide === true, ...(width ? { width } : {}) });
    const kept = (e: RunEvent) => !failedOnly || isFailureEvent(e);
    let last = 0;
    try {
      if (reader) {
        const filter: EventFilter = conversation ? { conversation } : {};
        const shown = failedOnly
          ? reader
              .events(filter)
              .filter(kept)
              .slice(tail > 0 ? -tail : 0)
          : reader.events({ ...filter, ...(tail > 0 ? { last: tail } : {}) });
        for (const e of shown) print(e);
        last = failedOnly ? lastSeq(reader) : (shown.at(-1)?.seq ?? lastSeq(reader));
      }
      if (!flags.follow) {
        if (!reader && !globals.json)
          out.print('No run log yet: nothing was prepared here. Prepare a conversation with: gatefs prepare <conversation>');
        return 0;
      }
      if (!reader && !globals.json) out.progress('no run log yet; waiting for the first event (Ctrl-C to stop)');
      const stop = stopSignal();
      try {
        while (!(await stop.after(FOLLOW_EVERY_MS))) {
          reader ??= await openStateReader(where(globals));
          if (!reader) continue;
          for (const e of reader.events({ afterSeq: last, ...(conversation ? { conversation } : {}) })) {
            if (kept(e)) print(e);
            last = e.seq;
          }
        }
      } finally {
        stop.dispose();
      }
      return 0;
    } finally {
      reader?.close();
    }
  },
};

function where(globals: GlobalFlags): { repo: string; stateDir?: string } {
  return { repo: globals.repo, ...(globals.stateDir ? { stateDir: globals.stateDir } : {}) };
}

/** `--tail N`: a whole number ≥ 0 (0: all). Throws `UsageError` otherwise. */
function tailOf(value: string | boolean | undefined): number {
  if (value === undefined) return DEFAULT_TAIL;
  const n = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw new UsageError(`--tail takes a whole number of events (0: all), not "${String(value).slice(0, 40)}"`, 'log');
  return n;
}

/** The newest event's seq (0 for an empty log), so following starts after what exists. */
function lastSeq(reader: StateReader): number {
  return reader.events({ last: 1 })[0]?.seq ?? 0;
}

/** Prints one event as a line, or as one JSON object a line. */
function printer(out: Output, json: boolean, layout: EventLineOptions): (e: RunEvent) => void {
  if (!json) return (e) => out.print(formatEventLine(e, layout));
  return (e) =>
    out.jsonLine({
      seq: e.seq,
      at: e.at,
      time: new Date(e.at).toISOString(),
      type: e.type,
      conversation: e.conversation,
      data: e.data,
    });
}

/** SIGINT, SIGTERM or SIGHUP ends `--follow` (exit 0). */
function stopSignal(): { after(ms: number): Promise<boolean>; dispose(): void } {
  let stopped = false;
  let wake: (() => void) | undefined;
  const onSignal = () => {
    stopped = true;
    wake?.();
  };
  const dispose = onSignals(['SIGINT', 'SIGTERM', 'SIGHUP'], onSignal);
  return {
    after: (ms) =>
      new Promise((resolve) => {
        if (stopped) return resolve(true);
        const timer = setTimeout(() => resolve(stopped), ms);
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      }),
    dispose,
  };
}
