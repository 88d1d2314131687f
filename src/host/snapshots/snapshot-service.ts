/**
 * `SnapshotService`: a host's snapshots — take, restore, list, drop with a released workspace,
 * fork a subagent from its parent's working state, finish restores a crash interrupted — one
 * operation at a time per conversation in this process (a snapshot and a restore of the same
 * workspace never interleave), and the `SnapshotRequests` port the `checkpoint` and `rollback`
 * tools call (`requestsFor`).
 */
import type { CheckpointValue, RollbackValue, SnapshotRequests } from '../../../tools/index.js';
import { ToolFailure } from '../../../tools/index.js';
import type { GitContext } from '../../git/index.js';
import { asTool, TurnLocks } from '../occupancy/index.js';
import { manifestObjectIds, loadSnapshot } from './snapshot-contents.js';
import { oidOf, readFolder } from './snapshot-entries.js';
import type { SnapshotParts } from './snapshot-parts.js';
import { snapshotRef, snapshotTargetOf } from './snapshot-parts.js';
import { finishInterruptedRestores, makeFolderHold, restoreSnapshot, rowOf, type RestoreOptions } from './restore-snapshot.js';
import type { RestoreResult, SnapshotInfo, SnapshotOptions } from './snapshot-types.js';
import { infoOf, takeSnapshot } from './take-snapshot.js';

/** See the file comment. */
export class SnapshotService {
  private readonly turns: TurnLocks;

  constructor(private readonly parts: SnapshotParts) {
    this.turns = new TurnLocks(parts, SNAPSHOT_TURNS);
  }

  /** Takes a snapshot (see takeSnapshot). */
  snapshot(conversation: string, options: SnapshotOptions = {}): Promise<SnapshotInfo> {
    return this.inTurn(conversation, async () => (await takeSnapshot(this.parts, conversation, options)).info);
  }

  /** Restores one (see restoreSnapshot). */
  restore(conversation: string, snapshotId: string, options: RestoreOptions = {}): Promise<RestoreResult> {
    return this.inTurn(conversation, () => restoreSnapshot(this.parts, conversation, snapshotId, options));
  }

  /** The conversation's snapshots, oldest first. */
  list(conversation: string): SnapshotInfo[] {
    return this.parts.store.snapshots.list(conversation).map(infoOf);
  }

  /** Count and stored bytes of a conversation's snapshots (for status). */
  totals(conversation: string): { count: number; bytes: number } {
    return this.parts.store.snapshots.totalsOf(conversation);
  }

  /** Finishes the restores a crashed process left (at host start). */
  recover(): Promise<void> {
    return finishInterruptedRestores(this.parts);
  }

  /**
   * Removes every snapshot of a conversation (its workspace was released without
   * `keepSnapshots`): the refs of worktree snapshots, and the content-store objects no other
   * snapshot holds. Result: how many were removed.
   */
  drop(conversation: string, backend: string): Promise<number> {
    return this.inTurn(conversation, async () => {
      const rows = this.parts.store.snapshots.list(conversation);
      const context: GitContext = { tag: 'snapshot', chain: this.parts.store.lineage.of(conversation).chain };
      const platform = this.parts.platform;
      const refs = rows.filter((r) => r.commit !== null).map((r) => snapshotRef(conversation, r.n));
      // Refs of snapshots whose process died before their row: listed by prefix.
      if (backend === 'worktree' || refs.length > 0) {
        const left = await platform.snapshotGit.listRefs(platform.repo, `refs/gatefs/snapshots/${conversation}/`, context).catch(() => []);
        for (const l of left) if (!refs.includes(l.ref)) refs.push(l.ref);
        if (refs.length > 0) await platform.snapshotGit.deleteRefs(platform.repo, refs, context);
      }
      const dropped = rows.filter((r) => r.manifest !== null).map((r) => r.manifest!);
      this.parts.store.snapshots.removeAll(conversation);
      if (dropped.length > 0) await this.collect(dropped);
      if (rows.length > 0) this.parts.store.runLog.append({ type: 'snapshot.dropped', conversation, data: { count: rows.length } });
      return rows.length;
    });
  }

  /**
   * Makes `child`'s workspace hold `parent`'s working state: a snapshot of the parent (reason
   * `fork`), whose files then replace the child's (a worktree prepared from the parent's branch
   * head). Result: the parent's snapshot.
   */
  async fork(parent: string, child: string): Promise<SnapshotInfo> {
    const taken = await this.snapshot(parent, { reason: 'fork', label: `fork to ${child}` });
    await this.inTurn(child, async () => {
      const target = snapshotTargetOf(this.parts, child);
      const context: GitContext = { tag: 'snapshot', chain: this.parts.store.lineage.of(child).chain };
      const wanted = await loadSnapshot(this.parts, rowOf(this.parts, parent, taken.snapshotId), context);
      const now = await readFolder(this.parts, target, { useStamps: false, hash: async (_p, bytes) => oidOf(target.kind, bytes) });
      await makeFolderHold(this.parts, target, now.entries, wanted, context);
      this.parts.store.snapshots.forgetStamps(child);
    });
    return taken;
  }

  /**
   * True when `child` was started from `parent`'s working state and every entry at or below each
   * of `paths` (its untracked and ignored files, as a release's refusal lists them, a folder with
   * a trailing '/') is exactly as the fork gave it: they are the parent's files, not the child's
   * work, and a landing may remove them with the child.
   */
  async untouchedSinceFork(child: string, parent: string, paths: readonly string[]): Promise<boolean> {
    const fork = this.parts.store.snapshots
      .list(parent)
      .filter((r) => r.reason === 'fork' && r.label === `fork to ${child}`)
      .at(-1);
    if (!fork || paths.length === 0) return false;
    const target = snapshotTargetOf(this.parts, child);
    const context: GitContext = { tag: 'snapshot', chain: this.parts.store.lineage.of(child).chain };
    const given = new Map((await loadSnapshot(this.parts, fork, context)).map((e) => [e.path, e]));
    const now = await readFolder(this.parts, target, { hash: async (_p, bytes) => oidOf(target.kind, bytes) });
    const roots = paths.map((p) => p.replace(/\/$/, ''));
    const inside = (path: string) => roots.some((r) => path === r || path.startsWith(`${r}/`));
    for (const e of now.entries) {
      if (!inside(e.path)) continue;
      const g = given.get(e.path);
      if (!g || g.kind !== e.kind) return false;
      if (e.kind === 'file' && g.kind === 'file' && (e.oid !== g.oid || e.mode !== g.mode)) return false;
      if (e.kind === 'link' && g.kind === 'link' && e.target !== g.target) return false;
    }
    return true;
  }

  /** The port the `checkpoint` and `rollback` tools of `conversation` call. */
  requestsFor(conversation: string, isBlocked: (holder: string | undefined) => string | null): SnapshotRequests {
    const refuseOccupied = (holder: string | undefined) => {
      const blocking = isBlocked(holder);
      if (blocking)
        throw new ToolFailure('OCCUPIED', `another session holds this workspace (${blocking})`, undefined, { holder: blocking });
    };
    return {
      checkpoint: async (label, holder): Promise<CheckpointValue> => {
        refuseOccupied(holder);
        const info = await asTool(() => this.snapshot(conversation, { reason: 'checkpoint', ...(label === undefined ? {} : { label }) }));
        return { snapshotId: info.snapshotId, label: info.label, files: info.files, bytes: info.bytes, storedBytes: info.storedBytes };
      },
      rollback: async (snapshotId, holder): Promise<RollbackValue> => {
        refuseOccupied(holder);
        const r = await asTool(() => this.restore(conversation, snapshotId, { inCall: true }));
        return { snapshotId: r.snapshotId, before: r.before.snapshotId, written: r.written, removed: r.removed };
      },
      list: () =>
        this.list(conversation).map((s) => ({ snapshotId: s.snapshotId, label: s.label, reason: s.reason, createdAt: s.createdAt })),
    };
  }

  /** Removes the content-store objects of `manifests` that no remaining snapshot holds. */
  private async collect(manifests: readonly string[]): Promise<void> {
    const store = this.parts.platform.contentStore;
    const kept = new Set<string>();
    for (const id of this.parts.store.snapshots.manifests()) {
      kept.add(id);
      for (const oid of await manifestObjectIds(store, id)) kept.add(oid);
    }
    const gone = new Set<string>();
    for (const id of manifests) {
      if (!kept.has(id)) gone.add(id);
      for (const oid of await manifestObjectIds(store, id)) if (!kept.has(oid)) gone.add(oid);
    }
    store.remove([...gone]);
  }

  /**
   * Runs `task` after every earlier operation on `conversation` in this process, holding the
   * conversation's snapshot lock across processes (`TurnLocks`): two `gatefs snapshot` processes
   * never race for one number.
   */
  private inTurn<T>(conversation: string, task: () => Promise<T>): Promise<T> {
    return this.turns.inTurn(conversation, task);
  }
}

/** Snapshots and restores of a conversation take turns across processes (src/host/occupancy/turn-locks.ts). */
const SNAPSHOT_TURNS = {
  name: 'snapshot',
  keyOf: (conversation: string) => `snapshot:${conversation}`,
  // How long an operation waits for another process's snapshot or restore of the same conversation.
  waitMs: 60_000,
  busyMessage: (conversation: string) => `another process is taking or restoring a snapshot of '${conversation}'`,
};
