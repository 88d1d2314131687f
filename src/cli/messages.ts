/**
 * `gatefs messages [conversation]`: what the lander delivered (the messages port): landing
 * reports and failed-check inputs to submitters, one-way notes to whoever started a branch.
 * Oldest first; every message once, keyed by its request id.
 */
import type { MessageRecord } from '../state/index.js';
import type { Command } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withReadingHost } from './open-host.js';
import { hasNoState } from './state-presence.js';
import { indented, terminalSafeLine, withSafeFields } from '../../tools/text/index.js';

/** The `messages` command. */
export const messagesCommand: Command = {
  name: 'messages',
  summary: 'show what the lander delivered to a conversation (or to every one): reports, notes, failed checks',
  usage: 'gatefs messages [conversation]',
  positionals: ['conversation?'],
  options: {},
  optionHelp: [],
  details: ['Examples:', '  gatefs messages fix-login', '  gatefs messages --json'].join('\n'),
  async run({ globals, args, out }) {
    const conversation = args[0] === undefined ? undefined : conversationArg(args[0], 'messages');
    // A read-only look: where there is no state yet there are no messages, and nothing is created.
    const messages = (await hasNoState(globals)) ? [] : await withReadingHost(globals, async (host) => host.messages(conversation));
    if (globals.json) out.json(messages);
    else out.print(messages.length === 0 ? 'No messages.' : messages.map(formatMessage).join('\n\n'));
    return 0;
  },
};

/** The fields of a message body that are text of several lines; every other field is one line. */
const BLOCK_FIELDS: ReadonlySet<string> = new Set(['summary', 'output']);

/**
 * One message as a readable block: a header line, then what it says. What the submitter wrote
 * (the summary, the divergence) and what a check printed are agent- or repository-written: every
 * one-line field keeps to its line (escaped line breaks), and the summary and check output are
 * indented line by line, so none of it can pass for a header of its own.
 */
function formatMessage(record: MessageRecord): string {
  const m = withSafeFields(record, BLOCK_FIELDS);
  const b = m.body;
  const head = `[${m.requestId}] ${m.kind} to ${m.conversation}`;
  if (m.kind === 'report') {
    const pushed = b.pushed ? ', pushed' : '';
    return [
      `${head}: ${b.submissionId} landed on ${b.target} at ${String(b.landedSha).slice(0, 12)}${pushed}`,
      ...checkLines(b.checks),
    ].join('\n');
  }
  if (m.kind === 'note') {
    const summary = typeof b.summary === 'string' && b.summary.trim() !== '' ? `\n${indented(b.summary, '  ')}` : '';
    return `${head}: ${b.from}'s ${b.submissionId} landed on ${b.target} at ${String(b.landedSha).slice(0, 12)} (divergence: ${b.divergence})${summary}`;
  }
  const lines = [`${head}: ${b.submissionId} was not landed: ${b.message ?? b.reason}`, ...checkLines(b.checks)];
  if (Array.isArray(b.conflicts) && b.conflicts.length > 0) lines.push(`  conflicts: ${b.conflicts.join(', ')}`);
  if (typeof b.output === 'string' && b.output !== '') {
    lines.push(`  output${b.outputTruncated ? ' (last part)' : ''}:`, indented(b.output, '    '));
  }
  return lines.join('\n');
}

/** One line per check that ran (a body's `checks`): its name (repository-written: kept to its line), how it ended, how long it took. */
function checkLines(checks: unknown): string[] {
  if (!Array.isArray(checks)) return [];
  return checks.map((c: Record<string, unknown>) => {
    const ending = c.timedOut === true ? 'timed out' : typeof c.exitCode === 'number' ? `exit code ${c.exitCode}` : 'killed or not started';
    return `  check ${terminalSafeLine(String(c.name))}: ${ending}, ${Math.round(Number(c.durationMs) || 0)} ms`;
  });
}
