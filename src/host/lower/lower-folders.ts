/**
 * `LowerFolders`: the lower folders of `copy` workspaces (src/host/lower/lower-record.ts). A copy is
 * served at once over the pinned commit's git objects (preparation stays O(1)); the first time
 * its pinned tree is read, the host checks the commit out into `<stateDir>/lowers/<id>/` in the
 * background, through the tree-checkout port (git, neutralised), proves it byte for byte
 * (src/host/lower/lower-verify.ts), and switches the view's lower to it between two calls
 * (`WorkspaceView.lower`): unchanged files are then read from a folder, as in a worktree. The
 * gate never waits for it and never spawns; a build that fails leaves the workspace on git
 * objects, where it was.
 *
 * Durable and crash-safe (docs/ARCHITECTURE.md § Durable work): one build per conversation across
 * processes (a lock row `lower:<id>` in the store's preparation locks, taken over from a dead
 * process); the record says `building` before anything is created; the finished checkout appears by
 * one rename (`building/` → `tree/`) after it was verified and flushed to disk, and only then is
 * the record `ready` (compare-and-set on the build's token: a stale build's result is never taken).
 * What a crash or a stop leaves (a `building` record, a half-made folder) is removed by the next
 * build, the workspace's release, or its next preparation; a build stopped after its rename is
 * finished by the next one (the record is written, nothing is made again). Paths come from the
 * state directory and the id only; removal is the confined removal of `<stateDir>/lowers/<id>`.
 *
 * A build stops (its git process killed) when the host closes, and when a release of the
 * workspace is recorded (polled every `pollMs` while it runs): `remove` then waits for the lock.
 * Other processes serving the workspace switch over when their registry next looks at the
 * record (`upgrade`, at most once a second).
 */
import { isCodedError } from '../../../vfs/index.js';
import { isGitError, type GitContext } from '../../git/index.js';
import type { TreeCheckout } from '../../git/index.js';
import type { Clock } from '../../ports/index.js';
import type { IdSource } from '../../ports/index.js';
import type { ProcessLiveness } from '../../ports/index.js';
import type { RunEventBody, RunEventType } from '../../state/index.js';
import type { StateStore } from '../../state/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { HostPlatform } from '../platform/index.js';
import type { CopyLower } from '../views/index.js';
import { LOWERS_AREA, isLowerReady, lowerOf, lowerPathsOf, withLower, type LowerRecord } from './lower-record.js';
import { LowerMismatch } from './lower-verify.js';
import { checkOutLower } from './check-out-lower.js';

/** What `LowerFolders` uses of the host. */
interface LowerFolderParts {
  readonly platform: HostPlatform;
  readonly store: StateStore;
  readonly ids: IdSource;
  readonly clock: Clock;
  /** This process (pid + start time), the owner of the lower lock. */
  readonly liveness: Pick<ProcessLiveness, 'self'>;
  /** Checks pinned commits out (git, neutralised). */
  readonly checkout: TreeCheckout;
  /** The pinned tree of `conversation`'s open view, when one is open over a copy of a commit. */
  viewLower(conversation: string): CopyLower | undefined;
  /** True when a release of `record`'s workspace is recorded (src/host/lifecycle/release-record.ts): no build is wanted then. */
  isReleasing(record: WorkspaceRecord): boolean;
}

/** How `LowerFolders` waits and polls. */
interface LowerFoldersOptions {
  /** How often a running build looks for a release of its workspace (default 500 ms). */
  pollMs?: number;
  /** Waits `ms` (default: a real timer). */
  wait?: (ms: number) => Promise<void>;
}

interface Build {
  controller: AbortController;
  done: Promise<void>;
}

/** The lower folders of this host's `copy` workspaces (see the file comment). */
export class LowerFolders {
  private readonly running = new Map<string, Build>();
  private closed = false;
  private readonly pollMs: number;
  private readonly wait: (ms: number) => Promise<void>;

  constructor(
    private readonly parts: LowerFolderParts,
    options: LowerFoldersOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.wait = options.wait ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** The finished lower folder of `record` (its host path) when the record says so and it is there; else null. */
  readyFolder(record: WorkspaceRecord): string | null {
    if (record.backend !== 'copy' || !record.pinnedSha || !isLowerReady(record)) return null;
    const { tree } = lowerPathsOf(this.parts.platform, record.conversation);
    return this.parts.platform.folderState(tree) === 'folder' ? tree : null;
  }

  /**
   * Starts the background build of `conversation`'s lower folder, unless one runs here, the
   * host is closing, or the record says it is finished or cannot be made for this pin. Never
   * throws; returns at once (the build starts on the next turn of the event loop).
   */
  request(conversation: string): void {
    if (this.closed || this.running.has(conversation)) return;
    const controller = new AbortController();
    const done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.build(conversation, controller))
      .catch((e: unknown) => {
        if (!this.closed)
          this.event(conversation, { type: 'lower.failed', data: { code: isCodedError(e) ? e.code : 'ERROR', message: messageOf(e) } });
      })
      .finally(() => this.running.delete(conversation));
    this.running.set(conversation, { controller, done });
  }

  /** Test seam and status: true while a build of `conversation` runs in this process. */
  isBuilding(conversation: string): boolean {
    return this.running.has(conversation);
  }

  /** Waits for the build of `conversation` running in this process, if any (never throws). */
  async settled(conversation: string): Promise<void> {
    await this.running.get(conversation)?.done;
  }

  /**
   * Switches the open view of `conversation` to its lower folder when the record says it is
   * finished and the view still serves git objects (a build here or in another process). A folder
   * that cannot be opened is a `lower.unusable` event; the view stays on git objects.
   */
  upgrade(conversation: string): void {
    const lower = this.parts.viewLower(conversation);
    if (!lower || lower.servesFolder) return;
    const record = this.parts.store.workspaces.get(conversation);
    const path = record ? this.readyFolder(record) : null;
    if (!path) return;
    try {
      lower.serveFolder(path);
    } catch (e) {
      this.event(conversation, { type: 'lower.unusable', data: { message: messageOf(e) } });
    }
  }

  /**
   * Removes `conversation`'s lower folder (release, rollback, a new preparation): stops a build
   * running here, waits up to `waitMs` for one in another process to stop (it stops once it sees
   * a release recorded), removes `<stateDir>/lowers/<id>` the confined way and drops the record.
   * Result: true when a folder was removed. Throws `WorkspaceError` `BUSY` when another process
   * still builds after `waitMs`, `STATE_UNTRUSTED` when the folder is a link (nothing removed).
   */
  async remove(conversation: string, waitMs = 15_000): Promise<boolean> {
    const mine = this.running.get(conversation);
    if (mine) {
      mine.controller.abort();
      await mine.done;
    }
    const token = this.parts.ids.next('lower');
    const deadline = this.parts.clock.now() + waitMs;
    while (!this.parts.store.preparationLocks.tryLock(lockKey(conversation), { ...this.parts.liveness.self, token })) {
      if (this.parts.clock.now() >= deadline) {
        throw new WorkspaceError('BUSY', `the lower folder of '${conversation}' is still being built by another process`, {
          conversation,
          hint: 'retry in a moment: the build stops once it sees the release',
        });
      }
      await this.wait(100);
    }
    try {
      const removed = this.removeFolder(conversation);
      this.parts.store.transaction(() => {
        const record = this.parts.store.workspaces.get(conversation);
        if (record && lowerOf(record)) this.parts.store.workspaces.update(conversation, { data: withLower(record.data, null) });
      });
      if (removed) this.event(conversation, { type: 'lower.removed', data: {} });
      return removed;
    } finally {
      this.parts.store.preparationLocks.unlock(lockKey(conversation), token);
    }
  }

  /** Stops every build of this process and waits for them (idempotent). */
  async close(): Promise<void> {
    this.closed = true;
    for (const build of this.running.values()) build.controller.abort();
    await Promise.all([...this.running.values()].map((b) => b.done));
  }

  /** One build, under the lower lock (see the file comment). */
  private async build(conversation: string, controller: AbortController): Promise<void> {
    const { store } = this.parts;
    const token = this.parts.ids.next('lower');
    if (!store.preparationLocks.tryLock(lockKey(conversation), { ...this.parts.liveness.self, token })) return;
    const poll = setInterval(() => {
      if (!this.stillWanted(conversation, token)) controller.abort();
    }, this.pollMs);
    try {
      const record = store.workspaces.get(conversation);
      if (!record || !this.isServing(record) || this.closed) return;
      const last = lowerOf(record);
      if (last?.state === 'unavailable' && last.sha === record.pinnedSha) return;
      if (this.readyFolder(record)) return this.upgrade(conversation);
      const lower: LowerRecord = { state: 'building', sha: record.pinnedSha!, token };
      if (last?.state === 'building' && last.sha === lower.sha && this.renamedIntoPlace(conversation)) {
        // A build that got as far as its rename (so verified and flushed) but not its record: finished.
        if (this.mark(conversation, last.token, { ...lower, state: 'ready' })) {
          this.event(conversation, { type: 'lower.ready', data: { pinnedSha: lower.sha, finished: true } });
          this.upgrade(conversation);
        }
        return;
      }
      if (!this.mark(conversation, null, lower)) return;
      await this.checkOut(conversation, lower, controller.signal);
    } finally {
      clearInterval(poll);
      store.preparationLocks.unlock(lockKey(conversation), token);
    }
  }

  /** The steps after the `building` record: check out, verify, flush, rename, record `ready`. */
  private async checkOut(conversation: string, lower: LowerRecord, signal: AbortSignal): Promise<void> {
    const { platform } = this.parts;
    const paths = lowerPathsOf(platform, conversation);
    const context: GitContext = { tag: 'lower-folder', chain: [conversation] };
    const started = this.parts.clock.now();
    this.event(conversation, { type: 'lower.building', data: { pinnedSha: lower.sha } });
    try {
      this.removeFolder(conversation);
      const report = await checkOutLower(paths, lower.sha, {
        checkout: this.parts.checkout,
        objects: platform.git.objects,
        openFolder: (path) => platform.openFolder(path),
        context,
        signal,
      });
      if (!this.mark(conversation, lower.token, { ...lower, state: 'ready' })) {
        this.removeFolder(conversation);
        return;
      }
      this.event(conversation, {
        type: 'lower.ready',
        data: { pinnedSha: lower.sha, ...report, durationMs: this.parts.clock.now() - started },
      });
      this.upgrade(conversation);
    } catch (e) {
      if (signal.aborted || this.closed) {
        // Left as it is (record `building`): the next build, the release or the next preparation removes it.
        this.event(conversation, { type: 'lower.stopped', data: { pinnedSha: lower.sha } });
        return;
      }
      this.removeFolder(conversation);
      // What git refused or the verification found holds for this commit on every try; anything
      // else (no space, no descriptors, a program missing) may pass: the next view tries again.
      const reason = e instanceof LowerMismatch ? e.reason : isGitError(e, 'COMMAND_FAILED') ? 'CHECKOUT_FAILED' : null;
      this.mark(conversation, lower.token, reason ? { ...lower, state: 'unavailable', reason } : null);
      if (!reason) throw e;
      const detail = e instanceof LowerMismatch ? { path: e.path } : { message: messageOf(e) };
      this.event(conversation, { type: 'lower.unavailable', data: { pinnedSha: lower.sha, reason, ...detail } });
    }
  }

  /**
   * Sets the record's lower to `next` (null: drops it) in one transaction, only while the
   * workspace still serves its pin and, when `token` is given, the record is still that build's.
   * Result: true when written.
   */
  private mark(conversation: string, token: string | null, next: LowerRecord | null): boolean {
    const { store } = this.parts;
    return store.transaction(() => {
      const record = store.workspaces.get(conversation);
      if (!record || !this.isServing(record)) return false;
      if (next && record.pinnedSha !== next.sha) return false;
      if (token !== null && lowerOf(record)?.token !== token) return false;
      store.workspaces.update(conversation, { data: withLower(record.data, next) });
      return true;
    });
  }

  /** True while the build `token` should go on: the host is open and the workspace serves, its record that build's. */
  private stillWanted(conversation: string, token: string): boolean {
    if (this.closed) return false;
    const record = this.parts.store.workspaces.get(conversation);
    return record !== null && this.isServing(record) && lowerOf(record)?.token === token;
  }

  /** True for a `ready` copy of a commit with no release recorded. */
  private isServing(record: WorkspaceRecord): boolean {
    return record.state === 'ready' && record.backend === 'copy' && record.pinnedSha !== null && !this.parts.isReleasing(record);
  }

  /** True when `tree/` is there: only a verified, flushed checkout is ever renamed to it. */
  private renamedIntoPlace(conversation: string): boolean {
    return this.parts.platform.folderState(lowerPathsOf(this.parts.platform, conversation).tree) === 'folder';
  }

  /** Removes `<stateDir>/lowers/<id>` (confined), when the area exists. Result: true when something was removed. */
  private removeFolder(conversation: string): boolean {
    const { platform } = this.parts;
    if (platform.folderState(lowerPathsOf(platform, conversation).area) === 'missing') return false;
    return platform.removeWorkspaceFolder(LOWERS_AREA, conversation);
  }

  /** Appends a lower-folder event, unless the host is closing (then only `lower.stopped`, which says so). */
  private event(conversation: string, body: RunEventBody<LowerEventType>): void {
    if (!this.closed || body.type === 'lower.stopped') this.parts.store.runLog.append({ ...body, conversation });
  }
}

/** The run-log events of lower folders. */
type LowerEventType = Extract<RunEventType, `lower.${string}`>;

/** The lock row of `conversation`'s lower folder (not an id, so it never meets a conversation's own lock). */
function lockKey(conversation: string): string {
  return `lower:${conversation}`;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
