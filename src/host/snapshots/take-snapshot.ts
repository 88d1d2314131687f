/**
 * `takeSnapshot`: records the whole state of a conversation's workspace folder
 * (snapshot-parts.ts) as snapshot n+1 of the conversation.
 *
 * - A worktree's goes to git: a commit on `refs/gatefs/snapshots/<conversation>/<n>` written from
 *   the bytes gatefs read (`SnapshotGit.writeSnapshot`), whose tree is the last snapshot's with
 *   only the changed paths replaced, so an unchanged file is never read and costs nothing. The
 *   branch, HEAD and the worktree's index are never touched.
 * - A copy's or empty workspace's goes to the content store: each changed file once under its
 *   sha-256 (a file already stored costs nothing), then a manifest of every entry.
 *
 * Which files changed is known from the stamps of the last snapshot (`readFolder`). Objects are
 * written first and the snapshot's row, stamps and head are committed in one transaction, so a
 * crash leaves either no snapshot (unreferenced objects, harmless) or a whole one.
 */
import type { GitContext, SnapshotChange } from '../../git/index.js';
import type { SnapshotRow } from '../../state/index.js';
import { isCodedError } from '../../../vfs/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { isExecutable, snapshotMeta, writeManifest } from './snapshot-contents.js';
import { oidOf, readFolder, type FolderRead, type SnapshotEntry } from './snapshot-entries.js';
import type { SnapshotParts, SnapshotTarget } from './snapshot-parts.js';
import { snapshotRef, snapshotTargetOf } from './snapshot-parts.js';
import type { SnapshotInfo, SnapshotOptions } from './snapshot-types.js';

/** A snapshot just taken: its record and the entries it holds (what a restore compares with). */
export interface TakenSnapshot {
  readonly info: SnapshotInfo;
  readonly entries: readonly SnapshotEntry[];
}

/** Takes a snapshot of `conversation`'s workspace (see the file comment). Throws what `snapshotTargetOf` throws. */
export async function takeSnapshot(parts: SnapshotParts, conversation: string, options: SnapshotOptions = {}): Promise<TakenSnapshot> {
  const target = snapshotTargetOf(parts, conversation);
  const context: GitContext = { tag: 'snapshot', chain: parts.store.lineage.of(conversation).chain };
  const n = parts.store.snapshots.nextNumber(conversation);
  const label = options.label ?? null;
  const reason = options.reason ?? 'manual';
  const written = await whileFilesHoldStill(conversation, () =>
    target.kind === 'git' ? writeToGit(parts, target, n, label, reason, context) : writeToStore(parts, target),
  );
  parts.savePoint?.('snapshot.objects');
  const { read, commit, manifest, storedBytes } = written;
  const files = read.entries.filter((e) => e.kind !== 'dir');
  const row: SnapshotRow = {
    conversation,
    n,
    label,
    reason,
    createdAt: parts.clock.now(),
    backend: target.record.backend,
    commit,
    manifest,
    files: files.length,
    bytes: files.reduce((sum, e) => sum + (e.kind === 'file' ? e.size : 0), 0),
    storedBytes,
    skipped: read.skipped.length,
  };
  const changedStamps = new Map([...read.stamps].filter(([path]) => read.changed.has(path) || read.stamps.get(path)!.stamp === ''));
  parts.store.snapshots.record(row, read.head === null ? read.stamps : changedStamps, read.gone);
  parts.store.runLog.append({
    type: 'snapshot.taken',
    conversation,
    data: {
      snapshot: n,
      reason,
      label,
      files: row.files,
      changed: read.changed.size,
      storedBytes,
      ...(read.skipped.length > 0 ? { skipped: read.skipped.slice(0, 20) } : {}),
    },
  });
  return { info: infoOf(row), entries: read.entries };
}

/** Reads of a folder a snapshot tries before giving up on files that keep changing under it. */
const READ_ATTEMPTS = 3;

/**
 * Runs `write` again (from a new scan) when a file changed kind or went away between the scan
 * and its read — a command writing through temp files and renames, say — at most
 * `READ_ATTEMPTS` times; then `BUSY`. Nothing is recorded by a failed attempt (a worktree's ref
 * is not created when a read fails; stored objects are harmless).
 */
async function whileFilesHoldStill<T>(conversation: string, write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (e) {
      if (!isCodedError(e) || !MOVED_UNDERFOOT.has(e.code)) throw e;
      if (attempt >= READ_ATTEMPTS) {
        throw new WorkspaceError(
          'BUSY',
          `files of '${conversation}' kept changing while the snapshot read them (${e.code} at '${String((e.data as { path?: string }).path ?? '')}'): nothing was recorded`,
          { conversation, hint: 'take it again, or once the command writing there has ended' },
        );
      }
    }
  }
}

/** Folder-image codes that mean an entry changed between the scan and its read. */
const MOVED_UNDERFOOT = new Set(['NOT_FOUND', 'NOT_REGULAR_FILE', 'SYMLINK_ESCAPE', 'NOT_DIRECTORY']);

/** What writing a snapshot's objects gave. */
interface Written {
  read: FolderRead;
  commit: string | null;
  manifest: string | null;
  storedBytes: number;
}

/** A worktree snapshot: a commit from the last one's with the changed paths written (see the file comment). */
async function writeToGit(
  parts: SnapshotParts,
  target: SnapshotTarget,
  n: number,
  label: string | null,
  reason: string,
  context: GitContext,
): Promise<Written> {
  const { folder, record } = target;
  const conversation = record.conversation;
  const git = parts.platform.snapshotGit;
  const repo = parts.platform.repo;
  let read = await readFolder(parts, target);
  const parent = read.head === null ? null : (parts.store.snapshots.get(conversation, read.head)?.commit ?? null);
  if (read.head !== null && parent === null) read = await readFolder(parts, target, { useStamps: false });
  const image = parts.platform.folderImage;
  const changes: SnapshotChange[] = read.gone.map((path) => ({ path, kind: 'delete' }));
  for (const e of read.entries) {
    if (!read.changed.has(e.path)) continue;
    if (e.kind === 'file') {
      changes.push({ path: e.path, kind: 'file', executable: isExecutable(e.mode), bytes: () => image.read(folder, e.path) });
    } else if (e.kind === 'link') {
      changes.push({ path: e.path, kind: 'link', target: e.target });
    }
  }
  // One line, whatever the label holds: the metadata line below must stay the only one of its kind.
  const title = `gatefs snapshot ${n} of ${conversation} (${reason})${label ? `: ${label}` : ''}`.replace(/[\u0000-\u001f\u007f]/g, ' ');
  const ref = snapshotRef(conversation, n);
  const write = () =>
    git.writeSnapshot(
      repo,
      { ref, parent, changes, message: `${title}\n\n${snapshotMeta(read.entries)}\n`, time: Math.floor(parts.clock.now() / 1000) },
      context,
    );
  const { commit, oids } = await write().catch(async (e: unknown) => {
    // A ref left by a snapshot whose process died before its row was committed is no snapshot:
    // it goes, and the write is tried once more (a snapshot ref is never moved).
    const left = await git.listRefs(repo, ref, context).catch(() => []);
    if (!left.some((l) => l.ref === ref)) throw e;
    await git.deleteRefs(repo, [ref], context);
    return write();
  });
  const entries = read.entries.map((e) => (e.kind === 'file' && e.oid === '' ? { ...e, oid: oids.get(e.path) ?? '' } : e));
  // Bytes the store gained: files whose content is new to this conversation's snapshots (a file read
  // again only because its stamp changed, with the same bytes, adds nothing; git keeps each blob once).
  const storedBytes = entries.reduce(
    (sum, e) => sum + (e.kind === 'file' && read.changed.has(e.path) && read.lastOids.get(e.path) !== e.oid ? e.size : 0),
    0,
  );
  for (const [path, stamp] of read.stamps) if (stamp.oid === '') read.stamps.set(path, { ...stamp, oid: oids.get(path) ?? '' });
  return { read: { ...read, entries }, commit, manifest: null, storedBytes };
}

/** A copy's or empty workspace's snapshot: changed files and the manifest into the content store (each once). */
async function writeToStore(parts: SnapshotParts, target: SnapshotTarget): Promise<Written> {
  const store = parts.platform.contentStore;
  let storedBytes = 0;
  const keep = async (bytes: Uint8Array): Promise<string> => {
    const id = oidOf('store', bytes);
    if (!store.has(id)) {
      await store.put(bytes);
      storedBytes += bytes.length;
    }
    return id;
  };
  const read = await readFolder(parts, target, { hash: (_path, bytes) => keep(bytes) });
  const manifest = await writeManifest(read.entries, keep);
  // Every object is on disk before the snapshot's row says it exists.
  await store.flush();
  return { read, commit: null, manifest, storedBytes };
}

/** The public record of a snapshot row. */
export function infoOf(row: SnapshotRow): SnapshotInfo {
  return {
    snapshotId: String(row.n),
    conversation: row.conversation,
    label: row.label,
    reason: row.reason as SnapshotInfo['reason'],
    createdAt: row.createdAt,
    backend: row.backend as SnapshotInfo['backend'],
    files: row.files,
    bytes: row.bytes,
    storedBytes: row.storedBytes,
    skipped: row.skipped,
    commit: row.commit,
  };
}
