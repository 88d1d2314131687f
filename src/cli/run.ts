/**
 * `gatefs run list`: every run with its counts. `gatefs run status <run>`: a run's visits (each role's conversations in turn, and how each
 * ended), handoffs (from `<role>-v<visit>` to a role, the message's first line), collected and
 * rejected artifacts and auto-patches, as tables or, with `--json`, `{ ...RunStatus, artifacts }`.
 * A read-only look: it opens the host quietly. An unknown run is `UNKNOWN_RUN` (exit 1).
 */
import type { Command } from './command.js';
import { withReadingHost } from './open-host.js';
import type { GlobalFlags } from './global-flags.js';
import { readRun } from './run-read.js';
import { formatRunList, formatRunStatus, type ListedRun } from './run-text.js';
import { UsageError } from './usage-error.js';

/** The `run` command (actions `status` and `list`). */
export const runCommand: Command = {
  name: 'run',
  summary: "show a run: its roles' visits, handoffs, artifacts (collected and rejected) and auto-patches",
  usage: 'gatefs run status <run> [--json] | gatefs run list [--json]',
  positionals: ['action', 'run?'],
  options: {},
  optionHelp: [],
  details: [
    'A run groups the conversations whose roles take turns (gatefs prepare ID --run RUN; default run:',
    'default). The n-th conversation of a role in a run is its visit n. A visit ends once, by the',
    "agent's handoff tool (to a role, with the files it declares) or end (which also ends the run).",
    'Collected artifacts live in <stateDir>/artifacts/<run>/<role>-v<visit>/ (gatefs artifacts RUN',
    'prints their paths); rejected ones say why (code and reason). Auto-patches are binary git diffs',
    'of a worktree visit against its pinned base, kept in the store and never applied. Nothing is',
    'cleaned automatically.',
    'gatefs run list shows every run, oldest first: when it started, whether it ended and by whom,',
    'and how many visits, handoffs and collected and rejected artifacts it has.',
    'Examples:',
    '  gatefs run list',
    '  gatefs run status default',
    '  gatefs run status feature-42 --json',
  ].join('\n'),
  async run({ globals, args, out }) {
    const [action, name] = args;
    if (action === 'list') {
      if (name !== undefined) throw new UsageError(`run list takes no run (got "${String(name).slice(0, 40)}")`, 'run');
      const runs = await listRuns(globals);
      if (globals.json) out.json(runs);
      else out.print(formatRunList(runs));
      return 0;
    }
    if (action !== 'status') {
      throw new UsageError(`run needs an action: status or list (got "${String(action).slice(0, 40)}")`, 'run');
    }
    if (name === undefined) {
      throw new UsageError("run status needs <run>; gatefs status shows each workspace's run in its RUN column", 'run');
    }
    const read = await readRun(globals, name, 'run');
    if (globals.json) out.json({ ...read.status, artifacts: read.artifacts });
    else out.print(formatRunStatus(read.status, read.artifacts));
    return 0;
  },
};

/** Every run with its counts, oldest first, read through a quiet host. */
function listRuns(globals: GlobalFlags): Promise<ListedRun[]> {
  return withReadingHost(globals, async (host) =>
    host.runs.list().map((row) => {
      const { visits, handoffs } = host.runs.status(row.run);
      const records = handoffs.flatMap((h) => h.artifacts);
      return {
        ...row,
        visits: visits.length,
        handoffs: handoffs.filter((h) => h.kind === 'handoff').length,
        collected: records.filter((a) => a.record === 'artifact_collected').length,
        rejected: records.filter((a) => a.record === 'artifact_rejected').length,
      };
    }),
  );
}
