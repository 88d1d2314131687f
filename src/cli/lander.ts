/**
 * `gatefs lander run [--target BRANCH] [--watch [--interval S]]` and `gatefs lander status`:
 * drives the lander (src/lander/lander.ts) and shows its queue.
 *
 * `run` lands every queued submission once and exits; with `--watch` it keeps landing new ones
 * until SIGINT/SIGTERM/SIGHUP (finishing the step in flight: every step is recorded first, so
 * even a kill resumes cleanly next time). It exits 0 once the queue was worked through, whatever
 * each submission's outcome (a failed check is an answer to its submitter, not an error of the
 * lander); `status` shows the outcomes.
 *
 * `GATEFS_LANDER_CRASH_AT=<save point>[:<n>]` makes `run` kill itself with SIGKILL the n-th time
 * (default the first) it reaches that save point (src/lander/save-points.ts lists them): how
 * the crash test, and anyone who wants to try, proves exactly-once landing.
 */
import { isSavePoint, LANDER_SAVE_POINTS, type SavePointHook } from '../lander/save-points.js';
import type { DrainReport } from '../lander/index.js';
import type { SubmissionStatus } from '../host/work/index.js';
import type { Command, CommandContext } from './command.js';
import { withHost, withReadingHost } from './open-host.js';
import { hasNoState } from './state-presence.js';
import { watchStopSignals } from './stop-signals.js';
import { formatTable } from './table.js';
import { UsageError } from './usage-error.js';
import { terminalSafeLine } from '../../tools/text/index.js';
import { killThisProcess } from '../ports/process-signals.js';

/** The `lander` command. */
export const landerCommand: Command = {
  name: 'lander',
  summary: 'land queued submissions (run, or keep running with --watch) and show the queue (status)',
  usage: 'gatefs lander run [--target BRANCH] [--watch] [--interval SECONDS] | gatefs lander status',
  positionals: ['action?'],
  options: { target: { type: 'string' }, watch: { type: 'boolean' }, interval: { type: 'string' } },
  optionHelp: [
    ['--target BRANCH', 'run: only the queue of this branch (default: every branch with queued work)'],
    ['--watch', 'run: keep running, landing new submissions as they come, until Ctrl-C or SIGTERM'],
    ['--interval S', 'run --watch: seconds between looks at the queue (default 2)'],
  ],
  details: [
    "Each submission is merged onto the target branch in the lander's own checkout, checked with the",
    "settings' checks (--settings FILE, or the lander: key of gatefs.yaml), moved onto the branch by",
    'compare-and-swap, pushed when "push" is set, and reported to the submitter (gatefs messages).',
    'States: queued, merging, checking, checked, landed (local), pushed, done; failed (see REASON).',
    'Examples:',
    '  gatefs lander run',
    '  gatefs lander run --watch --settings lander.json',
    '  gatefs lander status --json',
  ].join('\n'),
  async run(ctx) {
    const action = ctx.args[0];
    if (action === 'status') return showStatus(ctx);
    if (action === 'run') return runLander(ctx);
    const got = action === undefined ? '' : ` (got "${action.slice(0, 40)}")`;
    throw new UsageError(`lander needs an action${got}: ${LANDER_ACTIONS.map(([a, what]) => `${a} (${what})`).join(', or ')}`, 'lander');
  },
};

/** The actions of `gatefs lander`, listed when none (or an unknown one) is given (one line: usage errors print one). */
const LANDER_ACTIONS: readonly (readonly [string, string])[] = [
  ['run', 'land every queued submission once; --watch keeps landing new ones, --target BRANCH lands one queue'],
  ['status', 'show the queue, and why a submission failed or is blocked'],
];

async function showStatus({ globals, out }: CommandContext): Promise<number> {
  // A read-only look: where there is no state yet the queue is empty, and nothing is created.
  const rows = (await hasNoState(globals)) ? [] : await withReadingHost(globals, async (host) => host.lander.status());
  if (globals.json) out.json(rows);
  else out.print(formatQueue(rows));
  return 0;
}

async function runLander({ globals, flags, out, env }: CommandContext): Promise<number> {
  const target = typeof flags.target === 'string' ? flags.target : undefined;
  const intervalMs = intervalOf(flags.interval);
  const savePoint = crashHook(env.GATEFS_LANDER_CRASH_AT);
  return withHost(
    globals,
    async (host) => {
      if (flags.watch !== true) {
        const report = await host.lander.run(target === undefined ? {} : { target });
        printReport(globals.json, out, report, host.lander.status());
        return 0;
      }
      const stop = watchStopSignals((line) => out.progress(line));
      out.progress(`watching the queue every ${intervalMs / 1000} s (Ctrl-C to stop)`);
      try {
        while (!stop.isStopping) {
          const report = await host.lander.run(target === undefined ? {} : { target });
          if (hasNews(report)) printReport(globals.json, out, report, host.lander.status());
          await Promise.race([stop.stopped, new Promise((resolve) => setTimeout(resolve, intervalMs))]);
        }
      } finally {
        stop.dispose();
      }
      return 0;
    },
    savePoint ? { savePoint } : {},
  );
}

function intervalOf(value: unknown): number {
  if (value === undefined) return 2000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > 3600) {
    throw new UsageError(`--interval must be a number of seconds from 0.1 to 3600, got "${String(value).slice(0, 40)}"`, 'lander');
  }
  return Math.round(seconds * 1000);
}

/** The hook named by `GATEFS_LANDER_CRASH_AT` (`point` or `point:n`), or undefined. Throws `UsageError` for an unknown point. */
function crashHook(spec: string | undefined): SavePointHook | undefined {
  if (spec === undefined || spec === '') return undefined;
  const [point, nth = '1'] = spec.split(':');
  const wanted = Number(nth);
  if (!isSavePoint(point) || !Number.isInteger(wanted) || wanted < 1) {
    throw new UsageError(`GATEFS_LANDER_CRASH_AT must be <save point>[:<n>], the points being ${LANDER_SAVE_POINTS.join(', ')}`, 'lander');
  }
  let passages = 0;
  return (reached) => {
    if (reached === point && ++passages === wanted) killThisProcess();
  };
}

function hasNews(report: DrainReport): boolean {
  return report.landed.length + report.failed.length + report.pushPending.length + report.blocked.length > 0;
}

/**
 * The readable report of one run. Names, reasons and push errors are agent-, repository- or
 * remote-written: each is shown terminal-safe as one line (tools/terminal-text.ts).
 */
function printReport(json: boolean, out: CommandContext['out'], report: DrainReport, queue: SubmissionStatus[]): void {
  if (json) {
    out.json(report);
    return;
  }
  const byId = new Map(queue.map((s) => [s.id, s]));
  const one = (text: string | null | undefined, fallback: string) => terminalSafeLine(text ?? fallback);
  const lines: string[] = [];
  for (const id of report.landed) {
    const s = byId.get(id);
    lines.push(`landed ${one(id, '')} from ${one(s?.conversation, '?')} on ${one(s?.target, '?')} at ${s?.landedSha?.slice(0, 12) ?? '?'}`);
  }
  for (const id of report.failed) {
    const s = byId.get(id);
    lines.push(
      `failed ${one(id, '')} from ${one(s?.conversation, '?')}: ${one(s?.reason, 'see gatefs messages')} (the submitter has the details)`,
    );
  }
  for (const id of report.pushPending) {
    const s = byId.get(id);
    lines.push(
      `landed ${one(id, '')} locally; the push is pending (${one(s?.pushError?.split('\n')[0], 'rejected')}): the next run tries again`,
    );
  }
  for (const b of report.blocked) {
    const what =
      b.reason === 'UNTRACKED_FILES'
        ? 'untracked or ignored files in the source checkout are in the way'
        : 'uncommitted changes in the source checkout would be overwritten';
    lines.push(`blocked ${one(b.submission, '')}: ${what}: ${b.files.map((f) => terminalSafeLine(f)).join(', ')}`);
  }
  for (const t of report.busy) lines.push(`another lander is working on ${one(t.replace(/^refs\/heads\//, ''), '')}: left to it`);
  out.print(lines.length > 0 ? lines.join('\n') : 'nothing to land');
}

/**
 * The queue as a table, then a line for each submission that is blocked (why, and what unblocks
 * it) or failed (what its submitter was told). Agent- and repository-written text (file names, a
 * check's message) is shown terminal-safe on one line.
 */
function formatQueue(rows: readonly SubmissionStatus[]): string {
  if (rows.length === 0) return 'The queue is empty. Submit work with: gatefs submit <conversation> --divergence None';
  const notes: string[] = [];
  for (const s of rows) {
    if (s.blocked)
      notes.push(`${s.id} is blocked: ${terminalSafeLine(s.blocked.why)}.\n  To unblock: ${terminalSafeLine(s.blocked.unblock)}.`);
    else if (s.failure !== null)
      notes.push(`${s.id} failed: ${terminalSafeLine(s.failure)} (${s.conversation} reads the details with the messages tool)`);
  }
  return [queueTable(rows), ...(notes.length > 0 ? ['', ...notes] : [])].join('\n');
}

function queueTable(rows: readonly SubmissionStatus[]): string {
  return formatTable(
    ['SUBMISSION', 'CONVERSATION', 'TARGET', 'STATE', 'COMMIT', 'LANDED', 'PUSH', 'REASON'],
    rows.map((s) => [
      s.id,
      s.conversation,
      s.target,
      s.state,
      s.commit.slice(0, 12),
      s.landedSha?.slice(0, 12),
      s.pushError ? `failing (${s.pushAttempts} tries)` : s.pushAttempts > 0 ? 'pushed' : '',
      s.blocked ? `blocked: ${s.reason}` : s.reason,
    ]),
  );
}
