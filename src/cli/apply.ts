/**
 * `gatefs apply <conversation> [--dry-run]`: brings a `copy` workspace's changes home to the
 * folder it was copied from (a plain folder, or a git checkout's working tree): each file added,
 * changed or deleted in the copy, its mode, and the folders made or removed, each only if the
 * source still holds what the copy started from, all or nothing (src/host/apply/). Prints one
 * line per path (`applied`, `would apply`, `CONFLICT`, `skipped`) and a summary; exit 0 when the
 * source holds every change that can be applied, 1 on a conflict. `--json` prints the report.
 */
import { terminalSafeLine } from '../../tools/text/index.js';
import type { ApplyEntry, ApplyReport } from '../host/composition/index.js';
import type { Command } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withHost, withReadingHost } from './open-host.js';

/** The `apply` command. */
export const applyCommand: Command = {
  name: 'apply',
  summary: "write a copy workspace's changes back to the folder it was copied from (checked, all or nothing)",
  usage: 'gatefs apply <conversation> [--dry-run]',
  positionals: ['conversation'],
  options: { 'dry-run': { type: 'boolean' } },
  optionHelp: [['--dry-run', 'list what would be applied and what conflicts; write nothing']],
  details: [
    'A copy workspace (backend: copy) over a plain folder has no branch to commit or submit: apply is its',
    'way home. Each changed path is written only if the source still holds the bytes the copy started',
    'from; otherwise it is a CONFLICT and nothing at all is written. Each file is replaced atomically, and',
    'an apply interrupted by a crash is finished by the next one. Afterwards the copy of a plain folder',
    'is reset to the source (it shows the same files, now read from there).',
    'Examples:',
    '  gatefs apply notes --dry-run',
    '  gatefs apply notes',
  ].join('\n'),
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'apply');
    const dryRun = flags['dry-run'] === true;
    // A dry run only reads: a quiet host, so it adds nothing to the run log.
    const report = await (dryRun ? withReadingHost : withHost)(globals, (host) => host.apply(conversation, { dryRun }));
    if (globals.json) out.json(report);
    else out.print(applyText(report));
    return report.complete ? 0 : 1;
  },
};

/** The report as lines for a terminal (paths made safe: they are names the agent chose). */
export function applyText(report: ApplyReport): string {
  const lines = report.entries.map(entryLine);
  const { applied, conflicts, skipped, unchanged } = report.counts;
  const would = report.entries.filter((e) => e.status === 'would-apply').length;
  if (report.resumed) lines.unshift('finished an apply that was interrupted');
  if (report.dryRun) {
    lines.push(
      conflicts > 0
        ? `dry run: ${conflicts} conflict${s(conflicts)}: nothing would be written`
        : `dry run: ${would} path${s(would)} would be applied; nothing was written`,
    );
  } else if (conflicts > 0) {
    lines.push(
      `${conflicts} conflict${s(conflicts)}: nothing was written for ${conflicts > 1 ? 'them' : 'it'}${applied === 0 ? ' or any other path' : ''}`,
    );
    lines.push('hint: make the copy hold what the source holds at each conflicting path (or put the source back), then apply again');
  } else if (applied === 0 && skipped === 0) {
    lines.push(`nothing to apply: the source holds every change of "${terminalSafeLine(report.conversation)}"`);
  } else {
    lines.push(
      `applied ${applied} path${s(applied)}${skipped > 0 ? `, ${skipped} skipped` : ''}${unchanged > 0 ? `, ${unchanged} already there` : ''}` +
        (report.overlayReset ? '; the copy now reads the source again' : ''),
    );
  }
  return lines.join('\n');
}

function entryLine(e: ApplyEntry): string {
  const what = e.status === 'conflict' ? 'CONFLICT' : e.status === 'would-apply' ? 'would apply' : e.status;
  const path = `${terminalSafeLine(e.path)}${e.kind === 'folder' ? '/' : ''}`;
  const code = e.code === 'CONFLICT' ? undefined : e.code;
  const why = e.reason ? ` (${code ? `${code}: ` : ''}${e.reason})` : code ? ` (${code})` : '';
  return `${what.padEnd(11)} ${e.change.padEnd(8)} ${path}${why}`;
}

function s(n: number): string {
  return n === 1 ? '' : 's';
}
