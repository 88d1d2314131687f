/**
 * `RepositoryBoundary`: where, inside a workspace, another repository begins — a submodule (a
 * gitlink, mode 160000, in the pinned tree) or a nested repository (a folder below the
 * workspace root holding a `.git` entry). The workspace's git sees neither one's files: `diff`
 * shows nothing there, `commit` cannot take them, a release would delete them unseen. So the
 * namespace refuses every change at or below such a path (`PROTECTED_PATH`, naming it as a
 * submodule or a nested repository) before anything is written; reads pass.
 *
 * Submodules come from the pinned tree (`SubmoduleLookup`, a `GitTreeLayer`): a submodule the
 * worktree never checked out is an empty folder, indistinguishable on disk from any other.
 * Nested repositories are looked for in the live layer at every call, one `stat` of `<folder>/.git`
 * per folder on the way, since a command or the person can make one at any time; a `.git` file
 * or a `.git` folder holding `HEAD` marks one, as git would take it. Limits: a
 * layer that hides `.git` (a sparse projection of undisclosed paths) hides a nested repository
 * from the live check too; only the exact name `.git` marks one (a case-insensitive volume
 * matches `.GIT` as well); a pinned tree that cannot be read skips the submodule check.
 */
import { VfsError, isVfsError } from './errors.js';
import { isProbingLayer, walkLayer, type EntryType, type Layer, type Stat } from './layer.js';

/** The part of the pinned tree the boundary needs (implemented by `GitTreeLayer`). */
interface SubmoduleLookup {
  /** The path of the submodule that `path` is or lies inside, or undefined. */
  submoduleOn(path: string): Promise<string | undefined>;
  /** The path of the first submodule strictly inside the folder `path`, or undefined. */
  submoduleInside(path: string): Promise<string | undefined>;
}

/** A repository inside the workspace: its layer path and what it is. */
interface InnerRepository {
  path: string;
  kind: 'submodule' | 'nested repository';
}

/** Finds the repositories inside one workspace (see the file comment). */
export class RepositoryBoundary {
  constructor(private readonly submodules?: SubmoduleLookup) {}

  /**
   * The submodule or nested repository that the layer path `rel` is or lies inside, or
   * undefined. `live` is the workspace root's layer (for `.git` entries). Throws the layers'
   * `INTERNAL` / `BUSY`.
   */
  async around(live: Layer, rel: string): Promise<InnerRepository | undefined> {
    if (rel === '') return undefined;
    const submodule = await this.submodules?.submoduleOn(rel).catch(unreadableTree);
    if (submodule !== undefined) return { path: submodule, kind: 'submodule' };
    return nestedRepositoryAbove(live, rel);
  }

  /**
   * The first submodule strictly inside the folder `rel` of the pinned tree, or undefined
   * (nested repositories inside a folder show as its `.git` names, which the namespace finds).
   */
  async inside(rel: string): Promise<InnerRepository | undefined> {
    const submodule = await this.submodules?.submoduleInside(rel).catch(unreadableTree);
    return submodule === undefined ? undefined : { path: submodule, kind: 'submodule' };
  }

  /** `PROTECTED_PATH` at namespace path `shown` for a change `op` that would reach `inner`. */
  static refusal(op: string, shown: string, inner: InnerRepository, shownInner: string): VfsError {
    const what = inner.kind === 'submodule' ? 'a submodule' : 'a nested repository';
    return new VfsError(
      'PROTECTED_PATH',
      op,
      shown,
      `'${shownInner}' is ${what}, a repository of its own: this workspace's git never sees its files (no diff, no commit, lost at release), so tools do not change them`,
    );
  }
}

/**
 * The nearest-the-root folder strictly above `rel` (the workspace root left out: its `.git` is
 * the workspace's own) that git takes for a repository, or undefined. One walk down the folders
 * on the way, looking only at the next name and `.git` in each (`WalkOptions.only`): a held
 * folder per step on disk, not a walk from the root per folder.
 */
async function nestedRepositoryAbove(live: Layer, rel: string): Promise<InnerRepository | undefined> {
  const segs = rel.split('/');
  if (segs.length < 2) return undefined;
  const folders = new Map<string, number>();
  // The folders on the way, by their index in `segs`: '' (the root) to the parent of `rel`.
  for (let i = 0; i < segs.length; i++) folders.set(segs.slice(0, i).join('/'), i);
  const last = segs.length - 1;
  const only = (dir: string) => {
    const i = folders.get(dir);
    if (i === undefined) return [];
    return i === 0 ? [segs[0]] : i === last ? ['.git'] : ['.git', segs[i]];
  };
  const descend = (path: string) => folders.has(path);
  try {
    for await (const folder of walkLayer(live, '', { only, descend })) {
      const mark = folder.path === '' ? undefined : folder.entries.find((e) => e.name === '.git');
      if (mark && (await isRepositoryMark(live, `${folder.path}/.git`, mark.type))) {
        return { path: folder.path, kind: 'nested repository' };
      }
    }
  } catch (e) {
    // The root itself cannot be a nested repository's inside; a root that cannot be walked is the layer's answer.
    if (isVfsError(e, 'NOT_FOUND') || isVfsError(e, 'NOT_DIRECTORY')) return undefined;
    throw e;
  }
  return undefined;
}

/**
 * True when the `.git` entry at `path` makes its folder a repository to git: a file (a gitdir
 * pointer, as a checked-out submodule or a linked worktree has) or a folder holding `HEAD`. A
 * `.git` folder without one is no repository: git tracks the files beside it as its own.
 */
async function isRepositoryMark(layer: Layer, path: string, type: EntryType): Promise<boolean> {
  if (type === 'file') return true;
  if (type !== 'directory') return false;
  const head = await statIfPresent(layer, `${path}/HEAD`);
  return head !== undefined && head !== null;
}

/**
 * A pinned tree that cannot be read (`INTERNAL`: a partial clone without its trees, an object
 * format the reader lacks) is no reason to refuse every write: the submodule check is skipped
 * (release still counts files in a submodule folder as work). `BUSY` and the rest are thrown.
 */
function unreadableTree(e: unknown): undefined {
  if (isVfsError(e, 'INTERNAL')) return undefined;
  throw e;
}

/**
 * The entry at `path`, undefined when it is absent, null when a part of the way is no folder
 * (nothing deeper can exist). Other codes are thrown.
 */
async function statIfPresent(layer: Layer, path: string): Promise<Stat | undefined | null> {
  try {
    return isProbingLayer(layer) ? await layer.statIfPresent(path) : await layer.stat(path);
  } catch (e) {
    if (isVfsError(e, 'NOT_FOUND')) return undefined;
    if (isVfsError(e, 'NOT_DIRECTORY') || isVfsError(e, 'SYMLINK_ESCAPE')) return null;
    throw e;
  }
}
