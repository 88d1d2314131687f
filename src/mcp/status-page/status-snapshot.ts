/**
 * What the status page of `gatefs serve --http` shows, as plain data: every workspace (with its
 * occupancy holder and its open MCP sessions), the lander queue, the runs (status-runs.ts), and
 * the run log's tail as one-line summaries. No host paths: workspace rows never hold one, and
 * events are shown through `summarizeEvent` (tool, outcome code, git argv, …), never file
 * contents.
 */
import type { Host, WorkspaceStatus } from '../../host/composition/index.js';
import type { RunEvent } from '../../state/index.js';
import { isFailureEvent, summarizeEvent } from '../../state/index.js';
import { type RunView, runViews } from './status-runs.js';
import { type OccupancyView, occupancyViews } from './status-occupancy.js';

/** Run-log events the page shows at most. */
const LOG_TAIL = 200;

/** One workspace row. */
export interface WorkspaceRow {
  conversation: string;
  role: string;
  backend: string;
  guarantee: string;
  state: string;
  branch: string | null;
  pinned: string | null;
  holder: string | null;
  /** The client(s) the holder serves (MCP `clientInfo.name`), when they said: what the page calls the holder. */
  holderClient: string | null;
  /** Open MCP sessions of this server on it. */
  sessions: number;
  parent: string | null;
  landed: number | null;
}

/** One lander submission row. */
export interface SubmissionRow {
  id: string;
  conversation: string;
  target: string;
  state: string;
  commit: string;
  landed: string | null;
  attempts: number;
  reason: string | null;
  /** True when the submission failed (a check, a conflict, …): the page marks it. */
  failed?: boolean;
}

/** One run-log line. */
export interface EventRow {
  seq: number;
  at: number;
  type: string;
  conversation: string | null;
  details: string;
  /** True when the record reports a failure (`isFailureEvent`: a tool call not ok, a failed landing, …). */
  failed?: boolean;
}

/** The whole page's data. */
export interface StatusSnapshot {
  workspaces: WorkspaceRow[];
  /** The lander queue, oldest first. */
  lander: SubmissionRow[];
  /** The newest `LOG_TAIL` events, oldest first. */
  events: EventRow[];
  /** Runs with their visits, handoffs, artifacts and auto-patches, newest first (status-runs.ts). */
  runs: RunView[];
  /** The agent model's occupancy records, newest first, ended ones too (status-occupancy.ts). */
  occupancy: OccupancyView[];
}

/** The workspace rows of `host`, with `sessions` open MCP sessions per conversation. */
export function workspaceRows(host: Host, sessions: ReadonlyMap<string, number>): WorkspaceRow[] {
  return host.status().map((w) => workspaceRow(w, sessions.get(w.conversation) ?? 0));
}

function workspaceRow(w: WorkspaceStatus, sessions: number): WorkspaceRow {
  return {
    conversation: w.conversation,
    role: w.role,
    backend: w.backend,
    guarantee: w.guarantee,
    state: w.state,
    branch: w.branch,
    pinned: w.pinnedSha ? w.pinnedSha.slice(0, 12) : null,
    holder: w.holder,
    holderClient: w.holder === null ? null : (w.holderClient ?? null),
    sessions,
    parent: w.parent ?? null,
    landed: w.landed ?? null,
  };
}

/** The lander queue rows, oldest first. */
export function landerRows(host: Host): SubmissionRow[] {
  return host.lander.status().map((s) => ({
    id: s.id,
    conversation: s.conversation,
    target: s.target,
    state: s.state,
    commit: s.commit.slice(0, 12),
    landed: s.landedSha ? s.landedSha.slice(0, 12) : null,
    attempts: s.attempts,
    reason: s.reason,
    failed: s.state === 'failed',
  }));
}

/** Run-log lines: the newest `LOG_TAIL`, or those after `afterSeq` (at most `LOG_TAIL`). */
export function eventRows(host: Host, afterSeq?: number): EventRow[] {
  const events = afterSeq === undefined ? host.events({ last: LOG_TAIL }) : host.events({ afterSeq, limit: LOG_TAIL });
  return events.map(eventRow);
}

function eventRow(e: RunEvent): EventRow {
  return {
    seq: e.seq,
    at: e.at,
    type: e.type,
    conversation: e.conversation,
    details: summarizeEvent(e.data, 160),
    failed: isFailureEvent(e),
  };
}

/** Everything the page shows now. */
export function statusSnapshot(host: Host, sessions: ReadonlyMap<string, number>): StatusSnapshot {
  return {
    workspaces: workspaceRows(host, sessions),
    lander: landerRows(host),
    events: eventRows(host),
    runs: runViews(host),
    occupancy: occupancyViews(host),
  };
}
