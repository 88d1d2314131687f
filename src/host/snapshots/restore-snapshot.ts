/**
 * `restoreSnapshot`: returns a conversation's workspace folder to exactly a snapshot's entries —
 * bytes, modes, folders (empty ones too) and links — without losing what it held:
 *
 * 1. Every tool write of the conversation is kept out: the calls in flight are drained (not the
 *    caller's own, for the `rollback` tool) and the workspace's write door is shut; a running
 *    command refuses the restore (`BUSY`).
 * 2. A snapshot of the workspace as it is is taken (`before`, reason `restore`), so the restore can
 *    be undone by restoring it.
 * 3. The journal row is written (`snapshot_restores`): from here a crash is finished by the next
 *    host (`finishInterruptedRestores`), which redoes the comparison against the folder as it
 *    finds it — a restore is idempotent — so after a restart the folder holds the old state (a
 *    crash before the journal) or the snapshot, never a mix.
 * 4. Entries the snapshot lacks (or holds as another kind) are removed, then its folders made
 *    and their modes set, then every file and link that differs written (each file atomically).
 * 5. The journal row goes, the view is reopened (a copy's overlay reads its whiteouts anew).
 *
 * The branch and HEAD of a worktree never move: a restore changes files, never commits.
 */
import type { GitContext } from '../../git/index.js';
import type { SnapshotRow } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { refreshRegistration } from '../lifecycle/index.js';
import { loadSnapshot } from './snapshot-contents.js';
import { oidOf, readFolder, type SnapshotEntry } from './snapshot-entries.js';
import type { SnapshotParts, SnapshotTarget } from './snapshot-parts.js';
import { snapshotNotFound, snapshotTargetOf } from './snapshot-parts.js';
import type { RestoreResult } from './snapshot-types.js';
import { infoOf, takeSnapshot } from './take-snapshot.js';

/** How a restore is asked for. */
export interface RestoreOptions {
  /** The caller is a tool call of the conversation itself (`rollback`): its own call is not waited for. */
  readonly inCall?: boolean;
}

/** Restores snapshot `snapshotId` of `conversation` (see the file comment). */
export async function restoreSnapshot(
  parts: SnapshotParts,
  conversation: string,
  snapshotId: string,
  options: RestoreOptions = {},
): Promise<RestoreResult> {
  const target = snapshotTargetOf(parts, conversation);
  const row = rowOf(parts, conversation, snapshotId);
  refuseOtherKind(target, row);
  if (parts.commandsRunning(conversation)) {
    throw new WorkspaceError('BUSY', `a command is running in '${conversation}': nothing was restored`, {
      conversation,
      hint: 'wait for it to end (or end it with exec_kill), then restore',
    });
  }
  if (!options.inCall) await parts.drain(conversation);
  const door = parts.doors ? await parts.doors.shut(conversation) : null;
  if (parts.doors && !door) {
    throw new WorkspaceError('BUSY', `writes to '${conversation}' were still running: nothing was restored`, { conversation });
  }
  try {
    const context = contextOf(parts, conversation);
    const wanted = await loadSnapshot(parts, row, context);
    const before = await takeSnapshot(parts, conversation, { reason: 'restore', label: `before restoring snapshot ${row.n}` });
    parts.store.snapshots.beginRestore(conversation, row.n, Number(before.info.snapshotId), parts.clock.now());
    parts.store.runLog.append({
      type: 'snapshot.restoring',
      conversation,
      data: { snapshot: row.n, before: Number(before.info.snapshotId) },
    });
    parts.savePoint?.('restore.journaled');
    const done = await makeFolderHold(parts, target, before.entries, wanted, context);
    finish(parts, conversation, row.n, Number(before.info.snapshotId), done, false);
    return { snapshotId: String(row.n), before: before.info, ...done };
  } finally {
    try {
      refreshRegistration(parts, conversation, undefined, () => false);
    } finally {
      door?.open();
    }
  }
}

/**
 * Finishes every restore a crashed process left journaled (see the file comment): the folder is
 * read as it is (every file hashed: its stamps are not trusted) and brought to the snapshot.
 * A workspace no longer ready has its journal row dropped; one that cannot be finished keeps it
 * and gets a `recover.failed` record (the next start tries again), never stopping the host.
 */
export async function finishInterruptedRestores(parts: SnapshotParts): Promise<void> {
  for (const journal of parts.store.snapshots.allJournals()) {
    const { conversation } = journal;
    const record = parts.store.workspaces.get(conversation);
    const row = parts.store.snapshots.get(conversation, journal.target);
    if (record?.state !== 'ready' || !row || record.backend === 'shared' || (row.commit !== null) !== (record.backend === 'worktree')) {
      parts.store.snapshots.endRestore(conversation);
      continue;
    }
    try {
      const target = snapshotTargetOf(parts, conversation);
      const context = contextOf(parts, conversation);
      const wanted = await loadSnapshot(parts, row, context);
      const now = await readFolder(parts, target, {
        useStamps: false,
        hash: async (_path, bytes) => oidOf(target.kind, bytes),
      });
      parts.store.snapshots.forgetStamps(conversation);
      const done = await makeFolderHold(parts, target, now.entries, wanted, context);
      finish(parts, conversation, journal.target, journal.before, done, true);
      refreshRegistration(parts, conversation, undefined, () => false);
    } catch (e) {
      // One workspace that cannot be finished (its snapshot's objects gone, its folder unreadable)
      // keeps its journal for the next start and says why; the host still opens for the others.
      const message = e instanceof Error ? e.message : String(e);
      parts.store.runLog.append({
        type: 'recover.failed',
        conversation,
        data: { message: `restore of snapshot ${journal.target} not finished: ${message}` },
      });
    }
  }
}

/** Ends a restore: the journal row goes and the run log says what was done. */
function finish(parts: SnapshotParts, conversation: string, n: number, before: number, done: Counts, resumed: boolean): void {
  parts.store.snapshots.endRestore(conversation);
  parts.store.runLog.append({ type: 'snapshot.restored', conversation, data: { snapshot: n, before, ...done, resumed } });
}

interface Counts {
  written: number;
  removed: number;
}

/** Brings the folder from `current` to `wanted` (step 4 of the file comment). */
export async function makeFolderHold(
  parts: SnapshotParts,
  target: SnapshotTarget,
  current: readonly SnapshotEntry[],
  wanted: readonly SnapshotEntry[],
  context: GitContext,
): Promise<Counts> {
  const image = parts.platform.folderImage;
  const root = target.folder;
  const want = new Map(wanted.map((e) => [e.path, e]));
  const have = new Map(current.map((e) => [e.path, e]));
  let removed = 0;
  const removedFolders = new Set<string>();
  const underRemoved = (path: string) => {
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) if (removedFolders.has(path.slice(0, i))) return true;
    return false;
  };
  for (const e of current) {
    if (underRemoved(e.path)) {
      have.delete(e.path); // gone with its folder
      continue;
    }
    const w = want.get(e.path);
    if (w && w.kind === e.kind) continue;
    await image.remove(root, e.path);
    have.delete(e.path);
    removed++;
    if (e.kind === 'dir') removedFolders.add(e.path);
  }
  parts.savePoint?.('restore.removed');
  const toWrite = wanted.filter((w) => !same(have.get(w.path), w));
  const fileBytes = await bytesOf(parts, target, toWrite, context);
  let written = 0;
  for (const w of toWrite) {
    if (w.kind === 'dir') await image.makeFolder(root, w.path, w.mode);
    else if (w.kind === 'link') await image.makeLink(root, w.path, w.target);
    else await image.writeFile(root, w.path, await fileBytes(w.oid), w.mode);
    if (written++ === 0) parts.savePoint?.('restore.writing');
  }
  parts.savePoint?.('restore.written');
  return { written, removed };
}

/** True when `have` already is `want` (a folder's mode, a file's bytes and mode, a link's target). */
function same(have: SnapshotEntry | undefined, want: SnapshotEntry): boolean {
  if (!have || have.kind !== want.kind) return false;
  if (have.kind === 'dir' && want.kind === 'dir') return have.mode === want.mode;
  if (have.kind === 'file' && want.kind === 'file') return have.oid === want.oid && have.mode === want.mode;
  if (have.kind === 'link' && want.kind === 'link') return have.target === want.target;
  return false;
}

/** Reads the bytes of the files to write: from git in one batch (a worktree's), else one at a time from the content store. */
async function bytesOf(
  parts: SnapshotParts,
  target: SnapshotTarget,
  toWrite: readonly SnapshotEntry[],
  context: GitContext,
): Promise<(oid: string) => Promise<Uint8Array>> {
  if (target.kind === 'store') return (oid) => parts.platform.contentStore.get(oid);
  const oids = [...new Set(toWrite.flatMap((e) => (e.kind === 'file' ? [e.oid] : [])))];
  const blobs =
    oids.length > 0 ? await parts.platform.snapshotGit.readBlobs(parts.platform.repo, oids, context) : new Map<string, Uint8Array>();
  return async (oid) => {
    const bytes = blobs.get(oid);
    if (!bytes) throw new WorkspaceError('SNAPSHOT_NOT_FOUND', `an object of the snapshot is missing (${oid})`, { oid });
    return bytes;
  };
}

/**
 * `BACKEND_UNAVAILABLE` when `row` was taken of a workspace kept the other way (a worktree's
 * commits, a copy's or empty workspace's stored files) than `target`'s: the conversation was
 * released with its snapshots kept and prepared again with another backend.
 */
function refuseOtherKind(target: SnapshotTarget, row: SnapshotRow): void {
  if ((row.commit !== null) === (target.kind === 'git')) return;
  throw new WorkspaceError(
    'BACKEND_UNAVAILABLE',
    `snapshot ${row.n} of '${row.conversation}' was taken of a ${row.backend} workspace, and this one is a ${target.record.backend} workspace: it cannot be restored here`,
    { conversation: row.conversation, snapshotId: String(row.n), backend: target.record.backend, snapshotBackend: row.backend },
  );
}

/** The row of `snapshotId` (a decimal number) of `conversation`. Throws `SNAPSHOT_NOT_FOUND` naming the ones there are. */
export function rowOf(parts: Pick<SnapshotParts, 'store'>, conversation: string, snapshotId: string): SnapshotRow {
  const n = /^[1-9][0-9]{0,9}$/.test(String(snapshotId)) ? Number(snapshotId) : NaN;
  const row = Number.isNaN(n) ? undefined : parts.store.snapshots.get(conversation, n);
  if (!row) {
    throw snapshotNotFound(
      conversation,
      snapshotId,
      parts.store.snapshots.list(conversation).map((r) => infoOf(r).snapshotId),
    );
  }
  return row;
}

function contextOf(parts: Pick<SnapshotParts, 'store'>, conversation: string): GitContext {
  return { tag: 'snapshot', chain: parts.store.lineage.of(conversation).chain };
}
