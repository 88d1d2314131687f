/**
 * `WorkService`: the host's side of `diff`, `commit`, `submit` and `messages` for one `worktree`
 * workspace (implements the tools' `WorkRequests` port). Git runs through the landing port (host exec,
 * everything the repository could make git run neutralised); the checkout path is derived from
 * the state directory and the conversation id, never read from a record. The author of a
 * commit is the conversation (`<id> <id@gatefs.invalid>`), the committer gatefs, the time the
 * clock port's.
 */
import type { GitContext } from '../../git/index.js';
import type { GitIdentity } from '../../git/index.js';
import { submitWork } from '../../lander/index.js';
import type { CommitValue, DiffValue, MessagesValue, SubmitValue, WorkRequests } from '../../../tools/index.js';
import type { LanderSettings } from '../../manifest/index.js';
import type { Clock } from '../../ports/index.js';
import type { IdSource } from '../../ports/index.js';
import type { StateStore } from '../../state/index.js';
import type { HostPlatform } from '../platform/index.js';
import { branchOf, branchOfRecord, checkoutOf } from '../platform/index.js';
import { ToolFailure } from '../../../tools/index.js';
import { codeOf } from '../../../vfs/index.js';
import { stateDirNames } from '../state-trust/index.js';
import { conversationMessages } from './conversation-messages.js';

/** The committer of every commit gatefs makes (merges, agents' commits). */
export const GATEFS_COMMITTER: GitIdentity = { name: 'gatefs', email: 'gatefs@gatefs.invalid' };

/** What `WorkService` uses of the host: git through the platform (the landing port), the store, ids, the clock, the target branch. */
export interface WorkParts {
  readonly platform: HostPlatform;
  readonly store: StateStore;
  readonly ids: IdSource;
  readonly clock: Clock;
  readonly settings: Pick<LanderSettings, 'branch'>;
}

/** The way home for `conversation`'s worktree (see the module comment). */
export class WorkService implements WorkRequests {
  private readonly path: string;
  private readonly branch: string;
  /** The last `homeBase` answer and what it was computed for (`<last landing id>:<branch head>`). */
  private home?: { key: string; base: { sha: string; target: string } | null };

  constructor(
    private readonly parts: WorkParts,
    private readonly conversation: string,
    private readonly pinnedSha: string,
  ) {
    this.path = checkoutOf(parts.platform, conversation, 'worktree');
    const record = parts.store.workspaces.get(conversation);
    this.branch = `refs/heads/${(record ? branchOfRecord(record) : null) ?? branchOf(conversation, 'worktree')!}`;
  }

  diff(request: { base: 'pinned' | 'head'; paths?: readonly string[]; maxPatchBytes: number }): Promise<DiffValue> {
    return this.logged('diff', () => this.diffNow(request));
  }

  commit(request: { message: string; paths?: readonly string[] }): Promise<CommitValue> {
    return this.logged('commit', () => this.commitNow(request));
  }

  submit(request: { divergence: string; summary?: string }): Promise<SubmitValue> {
    return this.logged('submit', () => this.submitNow(request));
  }

  async messages(request: { requestId?: string; unread: boolean; max: number }): Promise<MessagesValue> {
    return conversationMessages(this.parts.store, this.conversation, request);
  }

  /**
   * Runs one request; a failure that is not a refusal for the agent (a git failure, which the
   * gate shows the agent only as INTERNAL) is kept in the run log with its message for the operator.
   */
  private async logged<T>(op: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof ToolFailure)) {
        const message = e instanceof Error ? e.message : String(e);
        this.parts.store.runLog.append({
          type: 'work.failed',
          conversation: this.conversation,
          data: { op, code: codeOf(e) ?? 'ERROR', message },
        });
      }
      throw e;
    }
  }

  private async diffNow(request: { base: 'pinned' | 'head'; paths?: readonly string[]; maxPatchBytes: number }): Promise<DiffValue> {
    const context = this.context('diff');
    const home = request.base === 'pinned' ? await this.homeBase(context) : null;
    const baseSha = request.base === 'pinned' ? (home?.sha ?? this.pinnedSha) : await this.head(context);
    const found = await this.parts.platform.landing.diff(
      this.path,
      { base: baseSha, maxPatchBytes: request.maxPatchBytes, ...(request.paths ? { paths: request.paths } : {}) },
      context,
    );
    return {
      base: request.base,
      baseSha,
      files: found.files,
      patch: found.patch,
      truncated: found.truncated,
      ...(home ? { landedOn: home.target } : {}),
    };
  }

  /**
   * Where `diff`'s pinned base has moved once work of this workspace landed (docs/ARCHITECTURE.md
   * § Lander, "What the submitter reads"): the newest commit the branch shares with the target the
   * last landing of this lineage went to (`git merge-base`), when that commit descends from the
   * pinned one, so a diff shows only work not yet home. Derived from the store, the branch and the
   * target, never stored: nothing to update at landing, so nothing a crash can leave half done, and
   * a subagent's landing counts once its parent holds its commits. Null (the pinned commit stays
   * the base) before any landing of this lineage, or when the target is gone. The answer is kept
   * per (last landing, branch head): a later diff costs one ref read until either changes.
   */
  private async homeBase(context: GitContext): Promise<{ sha: string; target: string } | null> {
    const { store, platform } = this.parts;
    const landed = store.submissions.landedOfRoot(store.lineage.of(this.conversation).root);
    if (landed === null) return null;
    const head = await this.head(context);
    const key = `${landed.id}:${head}`;
    if (this.home?.key === key) return this.home.base;
    const git = platform.landing;
    const targetHead = await git.readRef(landed.target, context);
    const shared = targetHead === null ? null : await git.mergeBase(targetHead, head, context);
    const moved = shared !== null && shared !== this.pinnedSha && (await git.isAncestor(this.pinnedSha, shared, context));
    const base = moved ? { sha: shared, target: landed.target.replace(/^refs\/heads\//, '') } : null;
    this.home = { key, base };
    return base;
  }

  private async commitNow(request: { message: string; paths?: readonly string[] }): Promise<CommitValue> {
    const context = this.context('commit');
    await this.refuseStateDirNames(request.paths, context);
    const author = { name: this.conversation, email: `${this.conversation}@gatefs.invalid` };
    const made = await this.parts.platform.landing.commit(
      this.path,
      {
        message: request.message,
        author,
        committer: GATEFS_COMMITTER,
        timeMs: this.parts.clock.now(),
        ...(request.paths ? { paths: request.paths } : {}),
      },
      context,
    );
    const sha = made.sha ?? (await this.head(context));
    if (made.sha)
      this.parts.store.runLog.append({ type: 'work.commit', conversation: this.conversation, data: { sha, files: made.files.length } });
    return { sha, branch: this.branch.slice('refs/heads/'.length), files: made.files };
  }

  /**
   * `PROTECTED_PATH` (nothing committed, the branch and index untouched) when the commit would
   * take an entry named like the state directory at the workspace root (src/host/state-dir-names.ts,
   * folded as the lander folds): one put there from outside gatefs, such as by a shell. The
   * lander refuses a candidate holding it; refusing here tells the agent at once. An entry
   * the commit would not take (ignored, outside `paths`, only deleted) passes. The look is one
   * read of the root folder; git runs only when such an entry is there. Limits: an entry
   * planted between this look and the commit is still taken (the lander refuses it then).
   */
  private async refuseStateDirNames(paths: readonly string[] | undefined, context: GitContext): Promise<void> {
    const found = await this.parts.platform.landing.findCheckoutPaths(this.path, stateDirNames(this.parts.platform), context);
    const taken = paths ? found.filter((f) => paths.some((p) => f === p || f.startsWith(`${p}/`))) : found;
    if (taken.length === 0) return;
    const changed = await this.parts.platform.landing.diff(
      this.path,
      { base: await this.head(context), paths: taken, maxPatchBytes: 0 },
      context,
    );
    const held = taken.filter((t) => changed.files.some((f) => f.status !== 'deleted' && (f.path === t || f.path.startsWith(`${t}/`))));
    if (held.length === 0) return;
    throw new ToolFailure(
      'PROTECTED_PATH',
      `'${held[0]}' is named like the gatefs state directory, which no branch may hold (a landing would replace the state ` +
        `directory with it); no tool writes it, so it was put there from outside gatefs. Nothing was committed: commit with ` +
        `paths that leave it out, or have it removed first`,
      held[0],
      { paths: held },
    );
  }

  private async submitNow(request: { divergence: string; summary?: string }): Promise<SubmitValue> {
    const context = this.context('submit');
    const uncommitted = await this.parts.platform.git.dirtyFiles(this.path, context);
    const target = await landingTarget(this.parts, context);
    return submitWork(this.parts.store, this.parts.platform.landing, this.parts.ids, {
      conversation: this.conversation,
      branch: this.branch,
      target,
      divergence: request.divergence,
      uncommitted,
      ...(request.summary ? { summary: request.summary } : {}),
    });
  }

  private async head(context: GitContext): Promise<string> {
    const head = await this.parts.platform.landing.readRef(this.branch, context);
    if (head === null) throw new ToolFailure('QUEUE_REJECTED', `the branch ${this.branch.slice(11)} of this workspace is gone`);
    return head;
  }

  private context(tag: string): GitContext {
    return { tag, chain: this.parts.store.lineage.of(this.conversation).chain };
  }
}

/**
 * The branch work lands on (full ref): the settings' `lander.branch`, else the branch the
 * source checkout has checked out; null when neither names one (a detached source checkout).
 */
async function landingTarget(parts: Pick<WorkParts, 'platform' | 'settings'>, context: GitContext): Promise<string | null> {
  if (parts.settings.branch) return `refs/heads/${parts.settings.branch}`;
  return parts.platform.landing.checkedOutBranch(parts.platform.repo, context);
}
