/**
 * `memoryUnsafePaths`: the checkout-safety check (checkout-safety.ts) of one folder in a memfs
 * volume, the memory twin of cli-checkout-safety.ts. Memory worktrees have no index of their own,
 * so "tracked" is "held by the old tree"; a file already holding exactly the new tree's version
 * (a move repeated after it half happened) loses nothing and is not counted. Untracked content
 * is listed as `git ls-files --others --directory` lists it: a folder the old tree holds nothing
 * of is named once, with a trailing `/`.
 */
import type { Volume } from 'memfs';
import type { TreeEntry } from '../../vfs/index.js';
import { isMissingPath } from '../ports/index.js';
import { conflictsOf, planCheckoutSafety, type DiskKind, type TreeChange } from './checkout-safety.js';
import { diskState } from './memory-changes.js';

type Vol = InstanceType<typeof Volume>;

/**
 * The untracked or ignored paths under `dir` that moving it from the flattened tree `before` to
 * `after` would overwrite, delete or write into, sorted; empty when it is safe. Reads only.
 */
export async function memoryUnsafePaths(
  volume: Vol,
  dir: string,
  before: ReadonlyMap<string, TreeEntry>,
  after: ReadonlyMap<string, TreeEntry>,
): Promise<string[]> {
  const foldersBefore = foldersOf(before.keys());
  const plan = await planCheckoutSafety(treeChanges(before, after, foldersBefore), async (path) => kindOf(volume, `${dir}/${path}`));
  const lost = async (path: string) => {
    if (before.has(path)) return false;
    const now = await diskState(volume, `${dir}/${path}`);
    const next = after.get(path);
    return !(now && next && now.oid === next.oid && now.mode === next.mode);
  };
  const listed: string[] = [];
  const list = async (path: string): Promise<void> => {
    // git lists nothing under a path its index holds as a file (`ls-files --others --directory`):
    // a tracked file replaced by a folder is the person's own change, which read-tree refuses.
    if (before.has(path)) return;
    if (kindOf(volume, `${dir}/${path}`) !== 'folder') {
      if (await lost(path)) listed.push(path);
      return;
    }
    const inside: string[] = [];
    const walk = async (rel: string): Promise<void> => {
      for (const name of (volume.readdirSync(`${dir}/${rel}`) as unknown[]).map(String).sort()) {
        const child = `${rel}/${name}`;
        if (kindOf(volume, `${dir}/${child}`) === 'folder') await walk(child);
        else if (await lost(child)) inside.push(child);
      }
    };
    await walk(path);
    if (inside.length === 0) return;
    if (!foldersBefore.has(path)) listed.push(`${path}/`);
    else listed.push(...inside);
  };
  for (const q of plan.questions) await list(q);
  return [...new Set([...plan.blocked, ...conflictsOf(plan, listed)])].sort();
}

/** The changed entries of two flattened trees, with the old tree's folders on their way. */
function treeChanges(
  before: ReadonlyMap<string, TreeEntry>,
  after: ReadonlyMap<string, TreeEntry>,
  foldersBefore: ReadonlySet<string>,
): TreeChange[] {
  const foldersAfter = foldersOf(after.keys());
  const changes: TreeChange[] = [];
  const folders = new Set<string>();
  for (const path of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(path);
    const b = after.get(path);
    if (a && b && a.oid === b.oid && a.mode === b.mode) continue;
    changes.push({ path, before: a?.mode ?? (foldersBefore.has(path) ? '040000' : null), after: b?.mode ?? null });
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  for (const f of folders) {
    if (foldersBefore.has(f)) changes.push({ path: f, before: '040000', after: foldersAfter.has(f) ? '040000' : null });
  }
  return changes;
}

function foldersOf(paths: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) out.add(parts.slice(0, i).join('/'));
  }
  return out;
}

function kindOf(volume: Vol, path: string): DiskKind {
  try {
    return volume.lstatSync(path).isDirectory() ? 'folder' : 'other';
  } catch (e) {
    if (isMissingPath(e)) return 'absent';
    throw e;
  }
}
