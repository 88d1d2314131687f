/**
 * `folderChanges`: how a working folder in a memfs volume differs from a git tree, file by
 * file, with what each side holds — what `git diff --name-status <tree>` plus the untracked,
 * non-ignored files would list. The landing port's `diff` and `commit` on the memory host are
 * built on it.
 *
 * A tracked file replaced by a folder is a deletion plus the folder's untracked files; a file
 * turned into a symlink (or back) is a `typechange`; an exec-bit flip is `modified`. Submodule
 * entries are never compared. The top-level `.git` (file or folder) is not part of the folder.
 */
import git from 'isomorphic-git';
import type { Volume } from 'memfs';
import type { GitObjectReader, TreeEntry } from '../../vfs/index.js';
import { isMissingPath } from '../ports/index.js';
import type { ChangeStatus } from './landing-git.js';

type Vol = InstanceType<typeof Volume>;

/** One side of a file: its git mode (`100644`, `100755`, `120000`) and blob oid. */
interface FileState {
  mode: string;
  oid: string;
}

/** One changed path: the tree's side and the folder's side (null where absent). */
export interface FolderChange {
  path: string;
  status: ChangeStatus;
  before: FileState | null;
  after: FileState | null;
}

/**
 * Every path under `dir` that differs from `tree` (null: an empty tree), sorted by path.
 * `isIgnored` is asked about untracked paths only; an ignored folder is skipped whole.
 */
export async function folderChanges(
  volume: Vol,
  objects: GitObjectReader,
  tree: string | null,
  dir: string,
  isIgnored: (path: string) => Promise<boolean>,
): Promise<FolderChange[]> {
  const changes: FolderChange[] = [];
  await walk({ volume, objects, isIgnored, changes }, tree, dir, '');
  return changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

/** The state of the file at `path` on disk (a regular file or symlink), or null when it is neither. */
export async function diskState(volume: Vol, path: string): Promise<FileState | null> {
  let st: { isSymbolicLink(): boolean; isFile(): boolean; mode: number | bigint };
  try {
    st = volume.lstatSync(path);
  } catch (e) {
    if (isMissingPath(e)) return null;
    throw e;
  }
  if (st.isSymbolicLink()) {
    const { oid } = await git.hashBlob({ object: Buffer.from(String(volume.readlinkSync(path))) });
    return { mode: '120000', oid };
  }
  if (!st.isFile()) return null;
  const { oid } = await git.hashBlob({ object: volume.readFileSync(path) as Buffer });
  return { mode: (Number(st.mode) & 0o111) !== 0 ? '100755' : '100644', oid };
}

/** The bytes git would store for the file at `path` (a symlink's target for a symlink). */
export function diskBytes(volume: Vol, path: string): Uint8Array {
  if (volume.lstatSync(path).isSymbolicLink()) return Buffer.from(String(volume.readlinkSync(path)));
  return volume.readFileSync(path) as Buffer;
}

interface Walk {
  volume: Vol;
  objects: GitObjectReader;
  isIgnored: (path: string) => Promise<boolean>;
  changes: FolderChange[];
}

/** Compares `tree` with the folder `dir` (null: no folder there, every tracked file is deleted). */
async function walk(w: Walk, tree: string | null, dir: string | null, prefix: string): Promise<void> {
  const entries = tree ? await w.objects.readTree(tree) : [];
  const tracked = new Map(entries.map((e) => [e.name, e]));
  const present = new Set<string>(dir !== null && isFolder(w.volume, dir) ? (w.volume.readdirSync(dir) as unknown[]).map(String) : []);
  if (prefix === '') present.delete('.git');
  for (const entry of entries) {
    if (entry.type === 'commit') continue;
    const rel = prefix + entry.name;
    const path = `${dir}/${entry.name}`;
    const onDisk = present.has(entry.name);
    if (entry.type === 'tree') {
      if (onDisk && !isFolder(w.volume, path)) await untracked(w, path, rel);
      await walk(w, entry.oid, onDisk && isFolder(w.volume, path) ? path : null, `${rel}/`);
      continue;
    }
    const before = { mode: entry.mode, oid: entry.oid };
    const after = onDisk ? await diskState(w.volume, path) : null;
    if (!after) {
      w.changes.push({ path: rel, status: 'deleted', before, after: null });
      if (onDisk && isFolder(w.volume, path)) await walk(w, null, path, `${rel}/`);
    } else if (after.oid !== before.oid || after.mode !== before.mode) {
      w.changes.push({ path: rel, status: isLink(after) === isLink(before) ? 'modified' : 'typechange', before, after });
    }
  }
  for (const name of present) {
    if (tracked.has(name)) continue;
    await untracked(w, `${dir}/${name}`, prefix + name);
  }
}

/** Records the untracked, non-ignored files at or under `path`. */
async function untracked(w: Walk, path: string, rel: string): Promise<void> {
  if (await w.isIgnored(rel)) return;
  if (isFolder(w.volume, path)) {
    await walk(w, null, path, `${rel}/`);
    return;
  }
  const after = await diskState(w.volume, path);
  if (after) w.changes.push({ path: rel, status: 'added', before: null, after });
}

function isLink(state: FileState): boolean {
  return state.mode === '120000';
}

function isFolder(volume: Vol, path: string): boolean {
  try {
    return volume.lstatSync(path).isDirectory();
  } catch (e) {
    if (isMissingPath(e)) return false;
    throw e;
  }
}

/** Entries of a tree flattened to repository-relative paths (blobs and symlinks only). */
export async function flattenTree(objects: GitObjectReader, tree: string | null, prefix = ''): Promise<Map<string, TreeEntry>> {
  const out = new Map<string, TreeEntry>();
  if (!tree) return out;
  for (const entry of await objects.readTree(tree)) {
    const rel = prefix + entry.name;
    if (entry.type === 'tree') for (const [p, e] of await flattenTree(objects, entry.oid, `${rel}/`)) out.set(p, e);
    else if (entry.type === 'blob') out.set(rel, entry);
  }
  return out;
}

/** The changes at or under one of `paths` (literal, repository-relative); all of them when absent. */
export function changesUnder(changes: FolderChange[], paths: readonly string[] | undefined): FolderChange[] {
  if (!paths) return changes;
  const roots = paths.map((p) => p.replace(/^\.\/|\/+$/g, ''));
  if (roots.some((r) => r === '' || r === '.')) return changes;
  return changes.filter((c) => roots.some((r) => c.path === r || c.path.startsWith(`${r}/`)));
}
