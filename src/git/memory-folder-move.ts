/**
 * Moving a working folder in a memfs volume from one commit's tree to another while keeping
 * its own uncommitted changes — what `git read-tree -m -u <from> <to>` does to the files.
 *
 * For every path the two trees disagree on, the folder must hold either the `from` version
 * (then it is replaced by the `to` version) or already the `to` version (left alone); any
 * other content — a local edit, a local deletion, an untracked file in the way — blocks the
 * whole move and is named. Paths the trees agree on are never touched, so local edits there
 * survive. In a sparse worktree, a path outside its sparse set that is absent from the folder
 * stays absent (skip-worktree), whatever the trees say.
 */
import type { Volume } from 'memfs';
import type { GitObjectReader, TreeEntry } from '../../vfs/index.js';
import { isMissingPath } from '../ports/index.js';
import { diskState, flattenTree } from './memory-changes.js';
import { removeEntry } from './memory-worktree.js';

type Vol = InstanceType<typeof Volume>;

/** One file to write (`entry`) or remove (`entry` null), repository-relative. */
export interface FolderStep {
  path: string;
  entry: TreeEntry | null;
}

/**
 * The steps of a move plus `settled`, the paths the trees disagree on that the folder already
 * holds at the target version; or the files that block the move (sorted).
 */
type FolderMovePlan = { ok: true; steps: FolderStep[]; settled: FolderStep[] } | { ok: false; blocked: string[] };

/**
 * Plans moving `dir` from tree `from` to tree `to` (see the file comment). `sparse`: the
 * worktree's sparse paths, or null for a full worktree. Reads only.
 */
export async function planFolderMove(
  volume: Vol,
  objects: GitObjectReader,
  dir: string,
  from: string,
  to: string,
  sparse: ReadonlySet<string> | null,
): Promise<FolderMovePlan> {
  const before = await flattenTree(objects, from);
  const after = await flattenTree(objects, to);
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const steps: FolderStep[] = [];
  const settled: FolderStep[] = [];
  const blocked: string[] = [];
  for (const path of paths) {
    const old = before.get(path) ?? null;
    const next = after.get(path) ?? null;
    if (same(old, next)) continue;
    const disk = await diskState(volume, `${dir}/${path}`);
    const kind = disk ? 'file' : kindAt(volume, `${dir}/${path}`);
    // Nothing, or a folder: as the old tree (no file there, or its tracked folder) or the new one has it.
    const asTree = (tree: ReadonlyMap<string, TreeEntry>, entry: TreeEntry | null) =>
      disk ? same(disk, entry) : entry === null && (kind === 'absent' || (kind === 'folder' && hasUnder(tree, path)));
    if (asTree(after, next)) settled.push({ path, entry: next });
    else if (kind === 'absent' && sparse && !sparse.has(path)) continue;
    else if (asTree(before, old)) steps.push({ path, entry: next });
    else blocked.push(path);
  }
  for (const step of steps) {
    if (!step.entry) continue;
    const parts = step.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      const node = `${dir}/${prefix}`;
      if (exists(volume, node) && !isFolder(volume, node) && !steps.some((s) => s.path === prefix && !s.entry)) blocked.push(prefix);
    }
  }
  if (blocked.length > 0) return { ok: false, blocked: [...new Set(blocked)].sort() };
  return { ok: true, steps, settled };
}

/** Carries out a plan's steps under `dir`: removals first (emptied folders removed), then writes. */
export async function applyFolderMove(volume: Vol, objects: GitObjectReader, dir: string, steps: readonly FolderStep[]): Promise<void> {
  for (const step of steps) {
    if (step.entry) continue;
    const path = `${dir}/${step.path}`;
    removeEntry(volume, path);
    removeEmptyParents(volume, dir, step.path);
  }
  for (const step of steps) {
    if (!step.entry) continue;
    const path = `${dir}/${step.path}`;
    volume.mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true });
    removeEntry(volume, path);
    const bytes = await objects.readBlob(step.entry.oid);
    if (step.entry.mode === '120000') volume.symlinkSync(Buffer.from(bytes).toString('utf8'), path);
    else volume.writeFileSync(path, bytes, { mode: step.entry.mode === '100755' ? 0o755 : 0o644 });
  }
}

function removeEmptyParents(volume: Vol, dir: string, rel: string): void {
  const parts = rel.split('/');
  for (let i = parts.length - 1; i > 0; i--) {
    const folder = `${dir}/${parts.slice(0, i).join('/')}`;
    if (!isFolder(volume, folder) || (volume.readdirSync(folder) as unknown[]).length > 0) return;
    volume.rmdirSync(folder);
  }
}

function same(a: { mode: string; oid: string } | null, b: { mode: string; oid: string } | null): boolean {
  if (a === null || b === null) return a === b;
  return a.oid === b.oid && a.mode === b.mode;
}

function exists(volume: Vol, path: string): boolean {
  return kindAt(volume, path) !== 'absent';
}

function isFolder(volume: Vol, path: string): boolean {
  return kindAt(volume, path) === 'folder';
}

/** True when the flattened tree holds something under the folder `path`. */
function hasUnder(tree: ReadonlyMap<string, TreeEntry>, path: string): boolean {
  for (const p of tree.keys()) if (p.startsWith(`${path}/`)) return true;
  return false;
}

function kindAt(volume: Vol, path: string): 'absent' | 'folder' | 'other' {
  try {
    return volume.lstatSync(path).isDirectory() ? 'folder' : 'other';
  } catch (e) {
    if (isMissingPath(e)) return 'absent';
    throw e;
  }
}
