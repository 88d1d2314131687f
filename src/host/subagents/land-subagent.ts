/**
 * `landSubagent` (see subagent-parts.ts): the child's checkout must be clean; the parent's
 * branch must be an ancestor of the child's (else `NOT_CLEAN`, reason `PARENT_MOVED`); a child
 * branch holding the state directory's name is `NOT_CLEAN` (reason `PROTECTED_PATH`); the
 * parent's branch is moved to the child's head by compare-and-swap, the parent's worktree files
 * following (`DIRTY_WORKTREE` when its own changes or untracked files are in the way, unless each
 * already holds exactly what the landing brings: identical-in-the-way.ts); then the
 * child is released and its branch, now contained in the parent's, deleted.
 */
import type { GitContext } from '../../git/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { ReleaseResult } from '../lifecycle/index.js';
import { branchOfRecord, checkoutOf } from '../platform/index.js';
import { stateDirNames } from '../state-trust/index.js';
import { setIdenticalAside, type SetAside } from './identical-in-the-way.js';
import { parentOf, refOf, worktreeOf, type SubagentParts } from './subagent-parts.js';

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

/** The heads of a child's branch and its parent's when the landing starts. */
interface Heads {
  child: string;
  parent: string;
}

/** Lands a subagent on its parent's branch and releases it (see the file comment). */
export async function landSubagent(parts: SubagentParts, child: string): Promise<LandSubagentResult> {
  const parent = parentOf(parts.store, child);
  worktreeOf(parts.store, parent);
  // Read before the release: the child's branch (its record's, checked again) is deleted after it.
  const childBranch = branchOfRecord(worktreeOf(parts.store, child))!;
  const chain = parts.store.lineage.of(child).chain;
  const context: GitContext = { tag: 'subagent', chain };
  await refuseUncommitted(parts, child, context);
  const heads = await headsOf(parts, child, parent, context);
  const commits = (await parts.platform.landing.isAncestor(heads.child, heads.parent, context))
    ? 0
    : await fastForwardParent(parts, child, parent, heads, context);
  const release = await parts.releaseChecked(child, { chain });
  // The parent's branch now holds every commit of the child's: its branch goes, compare-and-delete.
  await parts.platform.git.deleteBranch(childBranch, heads.child, context).catch(() => undefined);
  parts.store.runLog.append({ type: 'subagent.landed', conversation: child, data: { parent, head: heads.child, commits } });
  return { child, parent, parentHead: commits > 0 ? heads.child : heads.parent, commits, release: { ...release, branchDeleted: true } };
}

/** `DIRTY_WORKTREE` (data.files) when the child's checkout holds changes not committed. */
async function refuseUncommitted(parts: SubagentParts, child: string, context: GitContext): Promise<void> {
  const dirty = await parts.platform.git.dirtyFiles(checkoutOf(parts.platform, child, 'worktree'), context);
  if (dirty.length === 0) return;
  throw new WorkspaceError('DIRTY_WORKTREE', `'${child}' has changes that are not committed: ${dirty.slice(0, 20).join(', ')}`, {
    conversation: child,
    files: dirty,
  });
}

/** Both branches' heads. Throws `UNKNOWN_CONVERSATION` when either branch is gone. */
async function headsOf(parts: SubagentParts, child: string, parent: string, context: GitContext): Promise<Heads> {
  const childHead = await parts.platform.landing.readRef(refOf(parts.store, child), context);
  const parentHead = await parts.platform.landing.readRef(refOf(parts.store, parent), context);
  if (childHead === null || parentHead === null)
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `the branch of '${childHead === null ? child : parent}' is gone`, {
      conversation: child,
    });
  return { child: childHead, parent: parentHead };
}

/**
 * Moves the parent's branch to the child's head (see the file comment). Result: the commits the
 * parent's branch gained. Throws `NOT_CLEAN` (`PARENT_MOVED`, `PROTECTED_PATH`), `DIRTY_WORKTREE`
 * (the parent's files in the way), `BUSY` (the parent's branch moved meanwhile).
 */
async function fastForwardParent(parts: SubagentParts, child: string, parent: string, heads: Heads, context: GitContext): Promise<number> {
  const { landing } = parts.platform;
  if (!(await landing.isAncestor(heads.parent, heads.child, context))) {
    throw new WorkspaceError(
      'NOT_CLEAN',
      `the branch of '${parent}' moved since '${child}' started: it cannot be fast-forwarded to the child's work`,
      {
        conversation: child,
        parent,
        reason: 'PARENT_MOVED',
        hint: `merge ${refOf(parts.store, parent).slice('refs/heads/'.length)} into the child's branch (a commit in the child), then land again`,
      },
    );
  }
  const held = await landing.findTreePaths(heads.child, stateDirNames(parts.platform), context);
  if (held.length > 0) {
    throw new WorkspaceError(
      'NOT_CLEAN',
      `the branch of '${child}' holds ${held.map((p) => `'${p}'`).join(', ')}, a name of the gatefs state directory: remove it from the branch, then land again`,
      { conversation: child, parent, reason: 'PROTECTED_PATH', paths: held },
    );
  }
  const commits = await landing.countAhead(heads.parent, heads.child, context);
  parts.store.runLog.append({ type: 'subagent.land', conversation: child, data: { parent, from: heads.parent, to: heads.child, commits } });
  let moved = await landing.fastForward(refOf(parts.store, parent), heads.parent, heads.child, context);
  // A child started from the parent's working state brings back the parent's own files as they
  // are: untracked ones are checked first, uncommitted ones when the checkout runs, so twice.
  const asides: SetAside[] = [];
  const putBack = async () => {
    for (const a of asides.reverse()) await a.putBack();
  };
  for (let round = 0; round < 2 && moved.outcome === 'blocked'; round++) {
    const aside = await setIdenticalAside(parts, parent, heads, moved.reason, moved.files, context);
    if (!aside) break;
    asides.push(aside);
    moved = await landing.fastForward(refOf(parts.store, parent), heads.parent, heads.child, context).catch(async (e: unknown) => {
      await putBack();
      throw e;
    });
  }
  if (moved.outcome !== 'moved') await putBack();
  if (moved.outcome === 'blocked') {
    const what =
      moved.reason === 'UNTRACKED_FILES' ? 'untracked or ignored files in the way of' : 'uncommitted changes that would be overwritten by';
    throw new WorkspaceError('DIRTY_WORKTREE', `'${parent}' has ${what} the landing: ${moved.files.join(', ')}`, {
      conversation: parent,
      reason: moved.reason,
      files: moved.files,
      hint: `commit, move or remove them in '${parent}' (or make them hold what '${child}' brings), then land again: gatefs subagent land ${child}`,
    });
  }
  if (moved.outcome === 'stale')
    throw new WorkspaceError('BUSY', `the branch of '${parent}' moved during the landing; land again`, { conversation: parent });
  return commits;
}
