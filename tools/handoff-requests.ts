/**
 * `HandoffRequests`: the port `handoff` and `end` call to end the caller's visit of its role in
 * its run (docs/ARCHITECTURE.md § Runs, handoffs and artifacts). Declared here, by the tools that
 * need it, so tools/ depends on nothing outside vfs/; the host implements it
 * (src/host/artifacts/) and hands it to the tools as `ToolContext.handoffs`, scoped to one
 * conversation: a tool can never end another conversation's visit.
 *
 * The host, never the agent, collects the declared files: each is checked and stored or
 * rejected with a record. Refusals are thrown as `ToolFailure` with the public codes:
 * `VISIT_ENDED` (the visit or its run already ended), `INVALID_INPUT` (`to` names no role),
 * `OCCUPIED`, `BUSY`.
 */
import { ToolFailure } from './result.js';

/** One declared file the host collected. */
export interface CollectedArtifact {
  /** Workspace-relative path: where a receiver finds it below `artifacts/<role>-v<visit>/`. */
  path: string;
  sha256: string;
  bytes: number;
}

/** One declared file the host did not collect, with the rejection code and why. */
export interface RejectedArtifact {
  /** The path as declared (workspace-relative when it resolved into the workspace). */
  path: string;
  /** `NOT_FOUND`, `NOT_REGULAR_FILE`, `SYMLINK`, `OUTSIDE_WORKSPACE`, `TOO_LARGE`, `TOO_MANY_FILES`, `DUPLICATE`, `NOT_ISOLATED`, or the path's own code. */
  code: string;
  reason: string;
}

/** The auto-patch kept with a handoff or end (worktree roles with `auto_patch`), or null. */
export interface PatchSummary {
  /** The patch's number in the conversation. */
  n: number;
  sha256: string;
  bytes: number;
  /** Files it changes (0: the workspace holds its pinned base). */
  files: number;
}

/** The value of `handoff`. */
export interface HandoffValue {
  handoffId: number;
  run: string;
  visit: number;
  to: string;
  collected: CollectedArtifact[];
  rejected: RejectedArtifact[];
  patch: PatchSummary | null;
}

/** The value of `end`. */
export interface EndValue {
  handoffId: number;
  run: string;
  visit: number;
  patch: PatchSummary | null;
}

/** One conversation's handoff and end, as the tools see them. */
export interface HandoffRequests {
  /** Ends the visit handing `files` to role `to`; `holder`: the caller's occupancy holder. */
  handoff(request: { to: string; files: readonly string[]; message?: string }, holder: string | undefined): Promise<HandoffValue>;
  /** Ends the visit and the run. */
  end(request: { message?: string }, holder: string | undefined): Promise<EndValue>;
}

/** The conversation's handoff port, or `BACKEND_UNAVAILABLE` when its workspace has none. */
export function handoffsOf(ctx: { readonly handoffs?: HandoffRequests; readonly conversation: string }): HandoffRequests {
  if (ctx.handoffs) return ctx.handoffs;
  throw new ToolFailure('BACKEND_UNAVAILABLE', `the workspace of '${ctx.conversation}' takes no handoffs here`);
}
