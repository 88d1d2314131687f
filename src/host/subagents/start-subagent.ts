/**
 * `startSubagent` (see subagent-parts.ts): records the lineage (the child's chain is its
 * parent's chain plus itself), then prepares the child's worktree from the head of its parent's
 * branch, with the given role or the parent's, in the parent's run (a visit of its role there), for
 * the given agent or the parent's (the child sees its parent's `/home`).
 */
import type { GitContext } from '../../git/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { findRole } from '../../manifest/index.js';
import type { WorkspaceStatus } from '../lifecycle/index.js';
import { agentOfRecord, refuseVisit } from '../lifecycle/index.js';
import { refOf, worktreeOf, type SubagentParts } from './subagent-parts.js';

/** What `subagents.start` takes. */
export interface StartSubagentOptions {
  parent: string;
  child: string;
  /** How the child is isolated; only `worktree` exists (default). */
  isolate?: 'worktree';
  /** The child's role (default: the parent's). */
  role?: string;
  /** The child's agent identity (default: the parent's, so the child sees the same `/home`). */
  agent?: string;
  /**
   * What the child starts from: `head` (default), the head of the parent's branch; `working`, the
   * parent's working state as it is (a snapshot of it: uncommitted, untracked and ignored files too).
   */
  from?: 'head' | 'working';
}

/** Starts a subagent (see the file comment). Throws `WorkspaceError` `UNKNOWN_CONVERSATION`, `BACKEND_UNAVAILABLE`, what `prepare` throws. */
export async function startSubagent(parts: SubagentParts, options: StartSubagentOptions): Promise<WorkspaceStatus> {
  const parentRole = parts.manifest.roles.find((r) => r.name === parts.store.workspaces.get(options.parent)?.role);
  if ((options.isolate ?? parentRole?.subagents.isolate ?? 'worktree') !== 'worktree') {
    throw new WorkspaceError('BACKEND_UNAVAILABLE', `subagents are isolated in a worktree; '${String(options.isolate)}' is not available`, {
      isolate: String(options.isolate),
    });
  }
  const parent = worktreeOf(parts.store, options.parent);
  const chain = parts.store.lineage.of(options.parent).chain;
  const context: GitContext = { tag: 'subagent', chain };
  const head = await parts.platform.landing.readRef(refOf(parts.store, options.parent), context);
  if (head === null)
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `the branch of '${options.parent}' is gone`, { conversation: options.parent });
  if (parts.store.workspaces.get(options.child)) {
    throw new WorkspaceError('PREPARATION_FAILED', `conversation '${options.child}' already exists`, {
      conversation: options.child,
      reason: 'CHILD_EXISTS',
    });
  }
  const run = parts.store.runs.visitOf(options.parent)?.run;
  // A visit the run refuses (max_visits, ended) is refused before the lineage is recorded.
  refuseVisit(parts.store, options.child, findRole(parts.manifest, options.role ?? parent.role), run);
  parts.store.lineage.record(options.child, options.parent);
  parts.store.runLog.append({ type: 'subagent.start', conversation: options.child, data: { parent: options.parent, base: head } });
  const agent = options.agent ?? agentOfRecord(parts.store, parent);
  return parts.prepare({
    conversation: options.child,
    role: options.role ?? parent.role,
    baseRef: head,
    chain,
    ...(run ? { run } : {}),
    agent,
  });
}
