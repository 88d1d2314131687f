/**
 * A workspace folder as a snapshot sees it: `SnapshotEntry`s (folders with their mode, files
 * with their mode, size and object id, links with their target), sorted by path. `readFolder`
 * scans the folder and names every file's object id, reading only the files whose stamp differs
 * from the last snapshot's (`snapshot_stamps`); what it read is handed back (`changed`) so a
 * snapshot stores those bytes without reading them twice.
 *
 * Object ids are those of the store the snapshot goes to: a git blob id (sha-1 of
 * `blob <size>\0` and the bytes) for a worktree, the sha-256 of the bytes for the content store.
 */
import { createHash } from 'node:crypto';
import type { ImageEntry } from '../../ports/index.js';
import type { FileStamp } from '../../state/index.js';
import type { SnapshotKind, SnapshotParts, SnapshotTarget } from './snapshot-parts.js';
import { skipperOf } from './snapshot-parts.js';

/** One entry of a snapshot. */
export type SnapshotEntry =
  | { readonly path: string; readonly kind: 'dir'; readonly mode: number }
  | { readonly path: string; readonly kind: 'file'; readonly mode: number; readonly size: number; readonly oid: string }
  | { readonly path: string; readonly kind: 'link'; readonly target: string };

/** A folder read for a snapshot. */
export interface FolderRead {
  /** Its entries; a file not hashed (`hash` absent) and changed has oid ''. */
  readonly entries: SnapshotEntry[];
  /** The stamps of its files and links now (for the next snapshot); a file not hashed has oid ''. */
  readonly stamps: Map<string, FileStamp>;
  /** Paths whose stamp differs from the last snapshot's: new and changed files and links. */
  readonly changed: Set<string>;
  /** Stamped paths of the last snapshot that are gone. */
  readonly gone: string[];
  /** The object ids of the last snapshot's files, by path. */
  readonly lastOids: ReadonlyMap<string, string>;
  /** The snapshot the previous stamps describe (null: none, every file counts as changed). */
  readonly head: number | null;
  /** Special files left out (FIFOs, sockets, devices). */
  readonly skipped: string[];
}

/** The git blob id of `bytes` (sha-1 object format). */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** The object id of `bytes` in a store of `kind`. */
export function oidOf(kind: SnapshotKind, bytes: Uint8Array): string {
  return kind === 'store' ? createHash('sha256').update(bytes).digest('hex') : gitBlobId(bytes);
}

/** The stamp a link is remembered by (its target is all there is to it). */
function linkStamp(target: string): string {
  return `link:${target}`;
}

/** The stamp a file is remembered by: the folder image's and its mode (a mode change alone is a change). */
function fileStamp(e: Extract<ImageEntry, { kind: 'file' }>): string {
  return `${e.stamp}:${e.mode.toString(8)}`;
}

/** What `readFolder` does with a changed file's bytes: their object id (storing them, or only hashing). */
export type ChangedFileSink = (path: string, bytes: Uint8Array) => Promise<string>;

/**
 * Scans `folder` and names the object id of every file (see the file comment): an unchanged
 * file's from the stamps, a changed one's from `hash` (which reads it one file at a time and may
 * store it); without `hash`, changed files keep oid '' for the caller to fill in. `useStamps`
 * false counts every file as changed (after a crash mid-restore, or when the stamps are not trusted).
 */
export async function readFolder(
  parts: Pick<SnapshotParts, 'platform' | 'store'>,
  target: SnapshotTarget,
  options: { hash?: ChangedFileSink; useStamps?: boolean } = {},
): Promise<FolderRead> {
  const image = parts.platform.folderImage;
  const { folder } = target;
  const scan = await image.scan(folder, { skip: skipperOf(target.record.backend) });
  const last = trustedStamps(parts, target, options.useStamps !== false);
  const entries: SnapshotEntry[] = [];
  const stamps = new Map<string, FileStamp>();
  const changed = new Set<string>();
  for (const e of scan.entries) {
    if (e.kind === 'dir') {
      entries.push({ path: e.path, kind: 'dir', mode: e.mode });
      continue;
    }
    if (e.kind === 'link') {
      entries.push({ path: e.path, kind: 'link', target: e.target });
      const stamp = linkStamp(e.target);
      stamps.set(e.path, { stamp, oid: '-' });
      if (last.files.get(e.path)?.stamp !== stamp) changed.add(e.path);
      continue;
    }
    const stamp = fileStamp(e);
    const before = last.files.get(e.path);
    let oid = '';
    if (before && before.stamp === stamp && before.oid !== '' && before.oid !== '-') {
      oid = before.oid;
    } else {
      changed.add(e.path);
      if (options.hash) oid = await options.hash(e.path, await image.read(folder, e.path));
    }
    entries.push({ path: e.path, kind: 'file', mode: e.mode, size: e.size, oid });
    // A file written in the instant of the scan may change again within the same stamp: read it next time too.
    stamps.set(e.path, { stamp: e.fresh ? '' : stamp, oid });
  }
  const gone = [...last.files.keys()].filter((p) => !stamps.has(p));
  const lastOids = new Map([...last.files].map(([path, f]) => [path, f.oid]));
  return { entries, stamps, changed, gone, lastOids, head: last.head, skipped: scan.skipped };
}

/**
 * The last snapshot's stamps, when they can vouch for this folder: not when asked not to, and
 * not when that snapshot's object ids are of the other kind (the conversation was prepared again
 * with another backend: a git blob id is no content-store id).
 */
function trustedStamps(
  parts: Pick<SnapshotParts, 'store'>,
  target: SnapshotTarget,
  use: boolean,
): { head: number | null; files: ReadonlyMap<string, FileStamp> } {
  const none = { head: null, files: new Map<string, FileStamp>() as ReadonlyMap<string, FileStamp> };
  if (!use) return none;
  const last = parts.store.snapshots.stamps(target.record.conversation);
  if (last.head === null) return last;
  const head = parts.store.snapshots.get(target.record.conversation, last.head);
  return head && (head.commit !== null) === (target.kind === 'git') ? last : none;
}
