/**
 * `setIdenticalAside`: when the files in the way of a subagent's landing (`DIRTY_WORKTREE`) all
 * already hold exactly what the landing brings — as they do for a child started from its parent's
 * working state (`from: 'working'`), whose commits carry the parent's uncommitted and untracked
 * files — nothing of the parent's would be lost by the checkout, so they are set aside: an
 * untracked file is removed, an uncommitted one given its committed bytes back, and the landing
 * writes them again (a link too, when its target is the one the landing brings). A file or link
 * that differs, or a folder, stays a refusal. `putBack` returns every file set aside to what it held, when the landing
 * fails after all.
 *
 * Files are compared by git blob id (sha-1 of the bytes read through the folder image, never
 * following a link); a repository of another object format never matches, so it refuses as before.
 */
import type { GitContext } from '../../git/index.js';
import type { FolderImage } from '../../ports/index.js';
import type { BlockedReason } from '../../git/index.js';
import { checkoutOf } from '../platform/index.js';
import { gitBlobId } from '../snapshots/index.js';
import type { SubagentParts } from './subagent-parts.js';

/** Files set aside, and how to put them back. */
export interface SetAside {
  putBack(): Promise<void>;
}

/**
 * Sets the files `files` of `parent`'s worktree aside when each holds exactly the child's version
 * (see the file comment). Result: null (nothing changed) unless every one could be.
 */
export async function setIdenticalAside(
  parts: SubagentParts,
  parent: string,
  heads: { child: string; parent: string },
  reason: BlockedReason,
  files: readonly string[],
  context: GitContext,
): Promise<SetAside | null> {
  if (files.length === 0 || files.some((f) => f.endsWith('/'))) return null;
  const { snapshotGit, folderImage, repo } = parts.platform;
  const folder = checkoutOf(parts.platform, parent, 'worktree');
  const treeOf = async (commit: string) => new Map((await snapshotGit.listTree(repo, commit, context)).map((e) => [e.path, e]));
  const childTree = await treeOf(heads.child);
  const parentTree = reason === 'UNCOMMITTED_CHANGES' ? await treeOf(heads.parent) : null;
  const held: Held[] = [];
  for (const path of files) {
    const incoming = childTree.get(path);
    if (!incoming) return null;
    const here = await heldAt(folderImage, folder, path, incoming.mode);
    if (!here || gitBlobId(here.kind === 'link' ? new TextEncoder().encode(here.target) : here.bytes) !== incoming.oid) return null;
    if (parentTree && !parentTree.get(path)) return null;
    held.push(here);
  }
  const committed = parentTree ? held.map((h) => parentTree.get(h.path)!) : [];
  const committedBytes =
    committed.length > 0
      ? await snapshotGit.readBlobs(repo, [...new Set(committed.map((c) => c.oid))], context)
      : new Map<string, Uint8Array>();
  const undo = async (h: Held) =>
    h.kind === 'link' ? folderImage.makeLink(folder, h.path, h.target) : folderImage.writeFile(folder, h.path, h.bytes, h.mode);
  const done: Held[] = [];
  try {
    for (const [i, h] of held.entries()) {
      const c = committed[i];
      if (!c) await folderImage.remove(folder, h.path);
      else if (c.mode === '120000') await folderImage.makeLink(folder, h.path, new TextDecoder().decode(committedBytes.get(c.oid)!));
      else await folderImage.writeFile(folder, h.path, committedBytes.get(c.oid)!, c.mode === '100755' ? 0o755 : 0o644);
      done.push(h);
    }
  } catch (e) {
    for (const h of done) await undo(h);
    throw e;
  }
  return {
    putBack: async () => {
      for (const h of held) await undo(h);
    },
  };
}

/** What a file or link in the parent's way held, to compare and to put back. */
type Held = { path: string; kind: 'file'; bytes: Uint8Array; mode: number } | { path: string; kind: 'link'; target: string };

/**
 * What is at `path` in `folder` when it is of the kind the landing brings there (`mode`: a link,
 * or a regular file, put back with the landing's executable bit), or null when it is something
 * else or gone.
 */
async function heldAt(image: FolderImage, folder: string, path: string, mode: string): Promise<Held | null> {
  if (mode === '120000') {
    const target = await image.readLink(folder, path).catch(() => null);
    return target === null ? null : { path, kind: 'link', target };
  }
  const bytes = await image.read(folder, path).catch(() => null);
  return bytes === null ? null : { path, kind: 'file', bytes, mode: mode === '100755' ? 0o755 : 0o644 };
}
