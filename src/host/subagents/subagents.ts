/**
 * Subagents (DESIGN.md "Landing work"): a child conversation working in its own worktree made
 * from its parent's branch head, whose work comes back by fast-forwarding the parent's branch.
 *
 * - `start({ parent, child, isolate: 'worktree', role? })`: records the lineage (the child's
 *   chain is its parent's chain plus itself), then prepares the child from the parent branch's
 *   head (role: the given one, else the parent's).
 * - `land(child)`: the child's checkout must be clean; the parent's branch must be an ancestor
 *   of the child's (else `NOT_CLEAN`, reason `PARENT_MOVED`); the parent's branch is moved to the
 *   child's head by compare-and-swap, the parent's worktree files following (its own
 *   uncommitted changes kept; `DIRTY_WORKTREE` when they, or its untracked or ignored files,
 *   would be overwritten, deleted or written into: data.reason `UNCOMMITTED_CHANGES` or
 *   `UNTRACKED_FILES`); a child branch holding the state directory's name is `NOT_CLEAN`
 *   (reason `PROTECTED_PATH`); then the child is released and its branch, now contained in the
 *   parent's, deleted.
 * - `discard(child)`: removes a clean checkout and keeps its branch.
 * A child whose branch holds commits its parent lacks cannot be released (`NOT_CLEAN`): land or
 * discard it.
 */
import type { GitContext } from '../../git/git-port.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { HostContext } from '../lifecycle/host-context.js';
import type { PrepareOptions, ReleaseResult } from '../lifecycle/workspace-types.js';
import type { WorkspaceStatus } from '../lifecycle/workspace-status.js';
import { stateDirNames } from '../state-trust/state-dir-names.js';
import { branchOf, checkoutOf } from '../platform/workspace-paths.js';

/** What `subagents.start` takes. */
export interface StartSubagentOptions {
  parent: string;
  child: string;
  /** How the child is isolated; only `worktree` exists (default). */
  isolate?: 'worktree';
  /** The child's role (default: the parent's). */
  role?: string;
}

/** The result of `subagents.land`. */
export interface LandSubagentResult {
  child: string;
  parent: string;
  /** The parent branch's head now (the child's head), or its unchanged head when there was nothing to land. */
  parentHead: string;
  /** Commits the parent's branch gained. */
  commits: number;
  release: ReleaseResult;
}

/** The host operations subagents are built on (the `WorkspaceHost` passes its own). */
export interface SubagentHost {
  prepare(options: PrepareOptions): Promise<WorkspaceStatus>;
  /** Releases without the unlanded-commits check (land and discard decide themselves). */
  releaseChecked(conversation: string, options: { deleteBranch?: boolean; chain: readonly string[] }): Promise<ReleaseResult>;
}

/** Starts a subagent (see the module comment). Throws `WorkspaceError` `UNKNOWN_CONVERSATION`, `BACKEND_UNAVAILABLE`, what `prepare` throws. */
export async function startSubagent(ctx: HostContext, host: SubagentHost, options: StartSubagentOptions): Promise<WorkspaceStatus> {
  const parentRole = ctx.manifest.roles.find((r) => r.name === ctx.store.getWorkspace(options.parent)?.role);
  if ((options.isolate ?? parentRole?.subagents.isolate ?? 'worktree') !== 'worktree') {
    throw new WorkspaceError('BACKEND_UNAVAILABLE', `subagents are isolated in a worktree; '${String(options.isolate)}' is not available`, {
      isolate: String(options.isolate),
    });
  }
  const parent = worktreeOf(ctx, options.parent);
  const chain = ctx.store.lineageOf(options.parent).chain;
  const context: GitContext = { tag: 'subagent', chain };
  const head = await ctx.landing.readRef(refOf(options.parent), context);
  if (head === null)
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `the branch of '${options.parent}' is gone`, { conversation: options.parent });
  if (ctx.store.getWorkspace(options.child)) {
    throw new WorkspaceError('PREPARATION_FAILED', `conversation '${options.child}' already exists`, {
      conversation: options.child,
      reason: 'CHILD_EXISTS',
    });
  }
  ctx.store.recordLineage(options.child, options.parent);
  ctx.store.appendEvent({ type: 'subagent.start', conversation: options.child, data: { parent: options.parent, base: head } });
  return host.prepare({ conversation: options.child, role: options.role ?? parent.role, baseRef: head, chain });
}

/** Lands a subagent on its parent's branch and releases it (see the module comment). */
export async function landSubagent(ctx: HostContext, host: SubagentHost, child: string): Promise<LandSubagentResult> {
  const parent = parentOf(ctx, child);
  worktreeOf(ctx, parent);
  worktreeOf(ctx, child);
  const chain = ctx.store.lineageOf(child).chain;
  const context: GitContext = { tag: 'subagent', chain };
  const dirty = await ctx.platform.git.dirtyFiles(checkoutOf(ctx.platform, child, 'worktree'), context);
  if (dirty.length > 0) {
    throw new WorkspaceError('DIRTY_WORKTREE', `'${child}' has changes that are not committed: ${dirty.slice(0, 20).join(', ')}`, {
      conversation: child,
      files: dirty,
    });
  }
  const childHead = await ctx.landing.readRef(refOf(child), context);
  const parentHead = await ctx.landing.readRef(refOf(parent), context);
  if (childHead === null || parentHead === null)
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `the branch of '${childHead === null ? child : parent}' is gone`, {
      conversation: child,
    });
  let commits = 0;
  if (!(await ctx.landing.isAncestor(childHead, parentHead, context))) {
    if (!(await ctx.landing.isAncestor(parentHead, childHead, context))) {
      throw new WorkspaceError(
        'NOT_CLEAN',
        `the branch of '${parent}' moved since '${child}' started: it cannot be fast-forwarded to the child's work`,
        {
          conversation: child,
          parent,
          reason: 'PARENT_MOVED',
          hint: `merge ${branchOf(parent, 'worktree')} into the child's branch (a commit in the child), then land again`,
        },
      );
    }
    const held = await ctx.landing.findTreePaths(childHead, stateDirNames(ctx.platform), context);
    if (held.length > 0) {
      throw new WorkspaceError(
        'NOT_CLEAN',
        `the branch of '${child}' holds ${held.map((p) => `'${p}'`).join(', ')}, a name of the gatefs state directory: remove it from the branch, then land again`,
        { conversation: child, parent, reason: 'PROTECTED_PATH', paths: held },
      );
    }
    commits = await ctx.landing.countAhead(parentHead, childHead, context);
    ctx.store.appendEvent({ type: 'subagent.land', conversation: child, data: { parent, from: parentHead, to: childHead, commits } });
    const moved = await ctx.landing.fastForward(refOf(parent), parentHead, childHead, context);
    if (moved.outcome === 'blocked') {
      const what =
        moved.reason === 'UNTRACKED_FILES'
          ? 'untracked or ignored files in the way of'
          : 'uncommitted changes that would be overwritten by';
      throw new WorkspaceError('DIRTY_WORKTREE', `'${parent}' has ${what} the landing: ${moved.files.join(', ')}`, {
        conversation: parent,
        reason: moved.reason,
        files: moved.files,
      });
    }
    if (moved.outcome === 'stale')
      throw new WorkspaceError('BUSY', `the branch of '${parent}' moved during the landing; land again`, { conversation: parent });
  }
  const release = await host.releaseChecked(child, { chain });
  // The parent's branch now holds every commit of the child's: its branch goes, compare-and-delete.
  await ctx.platform.git.deleteBranch(branchOf(child, 'worktree')!, childHead, context).catch(() => undefined);
  ctx.store.appendEvent({ type: 'subagent.landed', conversation: child, data: { parent, head: childHead, commits } });
  return { child, parent, parentHead: commits > 0 ? childHead : parentHead, commits, release: { ...release, branchDeleted: true } };
}

/** Removes a subagent's clean checkout, keeping its branch. Throws what `release` throws (`DIRTY_WORKTREE`, …). */
export async function discardSubagent(ctx: HostContext, host: SubagentHost, child: string): Promise<ReleaseResult> {
  const parent = parentOf(ctx, child);
  const release = await host.releaseChecked(child, { chain: ctx.store.lineageOf(child).chain });
  ctx.store.appendEvent({ type: 'subagent.discarded', conversation: child, data: { parent } });
  return release;
}

/**
 * `NOT_CLEAN` when `conversation` is a subagent whose branch holds commits its parent's branch
 * lacks (release would leave them unlanded); nothing otherwise.
 */
export async function refuseUnlanded(ctx: HostContext, conversation: string, chain: readonly string[]): Promise<void> {
  const lineage = ctx.store.lineageOf(conversation);
  const record = ctx.store.getWorkspace(conversation);
  if (lineage.parent === null || record?.backend !== 'worktree' || record.state !== 'ready') return;
  const context: GitContext = { tag: 'release', chain };
  const head = await ctx.landing.readRef(refOf(conversation), context);
  const parentHead = await ctx.landing.readRef(refOf(lineage.parent), context);
  if (head === null || parentHead === null || (await ctx.landing.isAncestor(head, parentHead, context))) return;
  const commits = await ctx.landing.countAhead(parentHead, head, context);
  throw new WorkspaceError(
    'NOT_CLEAN',
    `'${conversation}' holds ${commits} commit(s) its parent '${lineage.parent}' has not landed: land it or discard it`,
    {
      conversation,
      parent: lineage.parent,
      commits,
      reason: 'UNLANDED_COMMITS',
    },
  );
}

function parentOf(ctx: HostContext, child: string): string {
  const parent = ctx.store.lineageOf(child).parent;
  if (parent === null)
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `'${child}' is not a subagent (no parent is recorded)`, { conversation: child });
  return parent;
}

function worktreeOf(ctx: HostContext, conversation: string) {
  const record = ctx.store.getWorkspace(conversation);
  if (record?.state !== 'ready')
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no ready workspace is recorded for '${conversation}'`, { conversation });
  if (record.backend !== 'worktree') {
    throw new WorkspaceError('BACKEND_UNAVAILABLE', `'${conversation}' is a ${record.backend} workspace; subagents need worktrees`, {
      conversation,
    });
  }
  return record;
}

function refOf(conversation: string): string {
  return `refs/heads/${branchOf(conversation, 'worktree')!}`;
}
