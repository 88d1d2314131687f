/**
 * `setIdenticalAside`: when the files in the way of a subagent's landing (`DIRTY_WORKTREE`) all
 * already hold exactly what the landing brings — as they do for a child started from its parent's
 * working state (`from: 'working'`), whose commits carry the parent's uncommitted and untracked
 * files — nothing of the parent's would be lost by the checkout, so they are set aside: an
 * untracked file is removed, an uncommitted one given its committed bytes back, and the landing
 * writes them again. A file that differs in bytes or in its executable bit, a folder, or a link
 * stays a refusal. `putBack` returns every file set aside to what it held, when the landing
 * fails after all.
 *
 * Files are compared by git blob id (sha-1 of the bytes read through the folder image, never
 * following a link); a repository of another object format never matches, so it refuses as before.
 */
import type { GitContext } from '../../git/index.js';
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
  const childTree = new Map((await snapshotGit.listTree(repo, heads.child, context)).map((e) => [e.path, e]));
  const parentTree =
    reason === 'UNCOMMITTED_CHANGES' ? new Map((await snapshotGit.listTree(repo, heads.parent, context)).map((e) => [e.path, e])) : null;
  const held: { path: string; bytes: Uint8Array; mode: number }[] = [];
  for (const path of files) {
    const incoming = childTree.get(path);
    if (!incoming || incoming.mode === '120000') return null;
    const bytes = await folderImage.read(folder, path).catch(() => null);
    if (bytes === null || gitBlobId(bytes) !== incoming.oid) return null;
    const mode = incoming.mode === '100755' ? 0o755 : 0o644;
    const committed = parentTree?.get(path);
    if (parentTree && (!committed || committed.mode === '120000')) return null;
    held.push({ path, bytes, mode });
  }
  const committedBytes = parentTree
    ? await snapshotGit.readBlobs(
        repo,
        held.map((h) => parentTree.get(h.path)!.oid),
        context,
      )
    : new Map<string, Uint8Array>();
  for (const h of held) {
    const committed = parentTree?.get(h.path);
    if (committed)
      await folderImage.writeFile(folder, h.path, committedBytes.get(committed.oid)!, committed.mode === '100755' ? 0o755 : 0o644);
    else await folderImage.remove(folder, h.path);
  }
  return {
    putBack: async () => {
      for (const h of held) await folderImage.writeFile(folder, h.path, h.bytes, h.mode);
    },
  };
}
