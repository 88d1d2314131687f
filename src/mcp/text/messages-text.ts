/**
 * The readable text of a `messages` result (tools/messages.ts): each message as a header line
 * (request id, kind, what happened), the checks that ran one per line with exit code and
 * duration, the failing check's output tail indented below it; then the submissions still in
 * the queue, and for a blocked one why and what unblocks it.
 */
import type { Row } from './tool-text.js';
import { indented } from '../../../tools/text/index.js';

/** The text of a `messages` value. */
export function messagesText(v: Row): string {
  const messages = (v.messages as Row[] | undefined) ?? [];
  const pending = (v.pending as Row[] | undefined) ?? [];
  const blocks = messages.map(messageBlock);
  for (const p of pending) blocks.push(pendingBlock(p));
  const more = Number(v.more ?? 0);
  if (more > 0) blocks.push(`(${more} more message(s) not shown: call messages again with unread: true for the next ones)`);
  if (blocks.length === 0) return 'no messages (a landing report arrives under the requestId submit gave you once the lander has run)';
  return blocks.join('\n\n');
}

function messageBlock(m: Row): string {
  const lines = [`[${m.requestId}] ${m.kind}: ${m.message}`];
  for (const c of (m.checks as Row[] | undefined) ?? []) {
    lines.push(`  check ${c.name}: ${checkEnding(c)}, ${Math.round(Number(c.durationMs))} ms`);
    if (typeof c.output === 'string' && c.output !== '') {
      lines.push(`    output${c.outputTruncated ? ' (last part)' : ''}:`, indented(c.output, '      '));
    }
  }
  const paths = (m.paths as string[] | undefined) ?? [];
  if (paths.length > 0) lines.push(`  ${m.reason === 'MERGE_CONFLICT' ? 'conflicts' : 'paths'}: ${paths.join(', ')}`);
  if (typeof m.summary === 'string' && m.summary.trim() !== '') lines.push('  summary:', indented(m.summary, '    '));
  return lines.join('\n');
}

function pendingBlock(p: Row): string {
  const head = `[${p.requestId}] ${p.submissionId} is ${p.state} for ${p.target}, position ${p.queuePosition} in the queue`;
  const blocked = p.blocked as Row | undefined;
  if (!blocked) return `${head}: its report arrives here once the lander has run`;
  return `${head}, blocked: ${blocked.why}\n  to unblock (an operator's step, nothing for you to do): ${blocked.unblock}`;
}

function checkEnding(c: Row): string {
  if (c.timedOut) return 'timed out';
  if (c.exitCode === null || c.exitCode === undefined) return 'killed or could not start';
  return `exit code ${c.exitCode}`;
}
