/**
 * The run-log record of one `request_files` call (`type: progressive_disclosure`). Unlike the
 * gate's `tool_call` record it holds paths and the agent's reason, because auditing what was
 * asked for, why, and what was granted is the point of disclosure; it never holds contents.
 *
 * `visit` is the conversation's visit of its role in its run (the role's n-th conversation there,
 * the number `max_visits` counts; null for a workspace prepared before runs existed). `request` is
 * the 1-based number of this request in the conversation, counted in the workspace record (so it
 * keeps counting across host restarts).
 */
import { isVfsError } from '../../vfs/index.js';
import { codeOf } from '../../vfs/index.js';
import type { DisclosureOutcome, DisclosureProblem } from '../../tools/index.js';
import type { EventDraft } from '../state/index.js';

/**
 * A refused path as the disclosure side keeps it: the problem the agent gets, plus, for a check
 * or checkout that failed (`INTERNAL`, `BUSY`), what failed (`errorDetail`). `detail` goes to
 * the run-log record only, never to the agent (it may name host paths).
 */
export interface RecordedProblem extends DisclosureProblem {
  detail?: string;
}

/** The run-log record of one request (its data: the catalogue's `progressive_disclosure`, src/state/run-log-events.ts). */
export type DisclosureRecord = EventDraft<'progressive_disclosure'> & { conversation: string };

/** Builds the record of one request. */
export function disclosureRecord(fields: {
  conversation: string;
  role: string;
  visit: number | null;
  request: number;
  requested: readonly string[];
  reason: string;
  outcome: DisclosureOutcome;
  disclosed: readonly string[];
  problems: readonly RecordedProblem[];
}): DisclosureRecord {
  return {
    type: 'progressive_disclosure',
    conversation: fields.conversation,
    data: {
      role: fields.role,
      visit: fields.visit,
      request: fields.request,
      requested: fields.requested.map(shorten),
      reason: fields.reason,
      outcome: fields.outcome,
      disclosed: [...fields.disclosed],
      problems: fields.problems.map(({ path, code, detail }) => (detail === undefined ? { path, code } : { path, code, detail })),
    },
  };
}

/**
 * What the run log keeps of an unexpected error: a VfsError's code and detail (which never
 * name a host path), else its code (when it has one) and message, cut at 300 characters.
 */
export function errorDetail(e: unknown): string {
  if (isVfsError(e)) return `${e.code}: ${e.detail}`;
  const code = codeOf(e);
  const text = `${code === undefined ? '' : `${code}: `}${e instanceof Error ? e.message : String(e)}`;
  return shorten(text);
}

/** A path cut to 300 characters for records and messages. */
export function shorten(path: string): string {
  return path.length > 300 ? `${path.slice(0, 300)}…` : path;
}
