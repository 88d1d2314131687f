/**
 * `memorySnapshotPatch`: `SnapshotGit.snapshotPatch` on isomorphic-git over the memory host's
 * memfs volume, held to what the git program gives (snapshot-git.ts): the paths whose mode or
 * blob differ between the base's tree and the snapshot's, less added paths the worktree's ignore
 * rules ignore (`git.isIgnored`: its `.gitignore` files and `info/exclude`) that its HEAD does
 * not track (a memory worktree has no index of its own), less deletions outside a sparse
 * worktree's set. Each file's part is `unifiedFilePatch` with whole oids (`fullIndex`), a binary
 * or non-UTF-8 file as a `GIT binary patch` literal; a typechange is a deletion then an addition,
 * as git prints it. Simpler than git's in one way: hunks carry no function-name headers.
 * Deterministic: the same trees give the same bytes.
 */
import git from 'isomorphic-git';
import type { TreeEntry } from '../../vfs/index.js';
import type { GitContext } from './git-port.js';
import { assertSha } from './landing-names.js';
import { flattenTree } from './memory-changes.js';
import type { MemoryCheckouts } from './memory-checkouts.js';
import type { SnapshotPatch, SnapshotPatchRequest } from './snapshot-git.js';
import { type PatchSide, unifiedFilePatch } from './unified-diff.js';

/** The patch of a worktree snapshot against its base (see the file comment). */
export async function memorySnapshotPatch(r: MemoryCheckouts, o: SnapshotPatchRequest, _context: GitContext): Promise<SnapshotPatch> {
  assertSha(o.base, 'diff-tree');
  assertSha(o.commit, 'diff-tree');
  const checkout = r.at(o.worktree);
  const before = await flattenTree(r.objects, await r.objects.commitTree(o.base));
  const after = await flattenTree(r.objects, await r.objects.commitTree(o.commit));
  const headCommit = r.head(checkout).commit;
  const head = headCommit === null ? new Map<string, TreeEntry>() : await flattenTree(r.objects, await r.objects.commitTree(headCommit));
  const sparse = r.sparse(checkout);
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort(byString);
  const files: string[] = [];
  let text = '';
  for (const path of paths) {
    const b = before.get(path);
    const a = after.get(path);
    if (b && a && b.oid === a.oid && b.mode === a.mode) continue;
    if (!b && !head.has(path) && (await git.isIgnored({ fs: r.fs, dir: checkout.dir, gitdir: r.gitdir, filepath: path }))) continue;
    if (b && !a && sparse && !sparse.has(path)) continue;
    const bs = b ? await sideOf(r, b) : null;
    const as = a ? await sideOf(r, a) : null;
    const typechange = bs && as && (bs.mode === '120000') !== (as.mode === '120000');
    text += typechange
      ? unifiedFilePatch(path, bs, null, { fullIndex: true }) + unifiedFilePatch(path, null, as, { fullIndex: true })
      : unifiedFilePatch(path, bs, as, { fullIndex: true });
    files.push(path);
  }
  return { bytes: Buffer.from(text, 'utf8'), files };
}

async function sideOf(r: MemoryCheckouts, e: TreeEntry): Promise<PatchSide> {
  return { mode: e.mode, oid: e.oid, bytes: await r.objects.readBlob(e.oid) };
}

function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
