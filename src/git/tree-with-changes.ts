/**
 * `treeWithChanges`: writes the tree that results from applying file changes to a base tree —
 * what `git add <paths> && git write-tree` would store, without an index. Subtrees no change
 * touches keep their oid; a folder left empty disappears, as in git.
 */
import git, { type FsClient, type TreeEntry as IsoTreeEntry } from 'isomorphic-git';
import type { GitObjectReader } from '../../vfs/index.js';

/** A file to set (blob already written, or to write from `bytes`) or, with `state` null, to remove. */
interface TreeChange {
  path: string;
  state: { mode: string; oid: string } | null;
}

interface TreeWriteTarget {
  fs: FsClient;
  gitdir: string;
  objects: GitObjectReader;
}

/**
 * The oid of `base` (null: empty) with `changes` applied. Blobs named by the changes must
 * already be in the object store. Result: the new root tree's oid (the empty tree's oid when
 * nothing is left).
 */
export async function treeWithChanges(target: TreeWriteTarget, base: string | null, changes: readonly TreeChange[]): Promise<string> {
  return (
    (await rebuild(
      target,
      base,
      changes.map((c) => ({ rest: c.path.split('/'), state: c.state })),
    )) ?? (await emptyTree(target))
  );
}

interface Pending {
  rest: string[];
  state: TreeChange['state'];
}

/** The rebuilt tree, or null when it ends up empty. */
async function rebuild(target: TreeWriteTarget, base: string | null, changes: readonly Pending[]): Promise<string | null> {
  const entries = new Map<string, IsoTreeEntry>();
  if (base)
    for (const e of await target.objects.readTree(base)) entries.set(e.name, { path: e.name, mode: e.mode, oid: e.oid, type: e.type });
  const byName = new Map<string, Pending[]>();
  for (const c of changes) {
    const [name, ...rest] = c.rest;
    if (name === undefined) continue;
    const group = byName.get(name) ?? [];
    group.push({ rest, state: c.state });
    byName.set(name, group);
  }
  for (const [name, group] of byName) {
    // A change to the name itself (a file set or removed) goes before changes beneath it, so a
    // file replaced by a folder is first removed, then the folder is built.
    for (const c of group) {
      if (c.rest.length > 0) continue;
      if (c.state) entries.set(name, { path: name, mode: c.state.mode, oid: c.state.oid, type: 'blob' });
      else if (entries.get(name)?.type !== 'tree') entries.delete(name);
    }
    const deeper = group.filter((c) => c.rest.length > 0);
    if (deeper.length === 0) continue;
    const current = entries.get(name);
    const sub = await rebuild(target, current?.type === 'tree' ? current.oid : null, deeper);
    if (sub) entries.set(name, { path: name, mode: '040000', oid: sub, type: 'tree' });
    else if (current?.type === 'tree' || !current) entries.delete(name);
  }
  if (entries.size === 0) return null;
  return git.writeTree({ fs: target.fs, gitdir: target.gitdir, tree: [...entries.values()] });
}

async function emptyTree(target: TreeWriteTarget): Promise<string> {
  return git.writeTree({ fs: target.fs, gitdir: target.gitdir, tree: [] });
}
