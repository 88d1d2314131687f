/**
 * The run-log record of one `request_files` call (`type: progressive_disclosure`). Unlike the
 * gate's `tool_call` record it holds paths and the agent's reason, because auditing what was
 * asked for, why, and what was granted is the point of disclosure; it never holds contents.
 *
 * `visit` is the 1-based number of this request in the conversation, counted in the workspace
 * record (so it keeps counting across host restarts). gatefs does not count role visits
 * (`max_visits`) anywhere yet; when it does, the record can carry both.
 */
import type { ToolErrorCode } from '../../tools/codes.js';
import type { DisclosureOutcome, DisclosureProblem } from '../../tools/disclosure-requests.js';

/** The run-log record of one request. */
export interface DisclosureRecord {
  type: 'progressive_disclosure';
  conversation: string;
  data: {
    role: string;
    visit: number;
    /** The paths as requested (cut at 300 characters each). */
    requested: string[];
    reason: string;
    outcome: DisclosureOutcome;
    /** Paths newly disclosed by this request (repository-relative); [] unless approved. */
    disclosed: string[];
    problems: { path: string; code: ToolErrorCode }[];
  };
}

/** Builds the record of one request. */
export function disclosureRecord(fields: {
  conversation: string;
  role: string;
  visit: number;
  requested: readonly string[];
  reason: string;
  outcome: DisclosureOutcome;
  disclosed: readonly string[];
  problems: readonly DisclosureProblem[];
}): DisclosureRecord {
  return {
    type: 'progressive_disclosure',
    conversation: fields.conversation,
    data: {
      role: fields.role,
      visit: fields.visit,
      requested: fields.requested.map(shorten),
      reason: fields.reason,
      outcome: fields.outcome,
      disclosed: [...fields.disclosed],
      problems: fields.problems.map((p) => ({ path: p.path, code: p.code })),
    },
  };
}

/** A path cut to 300 characters for records and messages. */
export function shorten(path: string): string {
  return path.length > 300 ? `${path.slice(0, 300)}…` : path;
}
