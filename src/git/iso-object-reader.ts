/**
 * `IsoObjectReader`: a `GitObjectReader` on isomorphic-git. It reads loose and packed objects
 * of any repository (one made by the git CLI included) through the `fs` it is given — node:fs
 * for a real repository, a memfs volume for the memory host — and never writes anything.
 *
 * Trees are parsed from their raw objects (tree-object.ts), keeping every entry name: a name git
 * treats as `.git` is the namespace's to hide, not a reason to refuse the whole tree.
 *
 * Trees are cached by oid (they are immutable), up to `maxCachedTrees`, least recently used
 * dropped first; isomorphic-git's own cache keeps pack indexes loaded between calls.
 * isomorphic-git itself is loaded on the first read (`isomorphicGit`): a disk host that never
 * reads a pinned snapshot never loads it.
 */
import type { FsClient } from 'isomorphic-git';
import type { GitObjectReader, TreeEntry } from '../../vfs/index.js';
import { GitError } from './git-port.js';
import { parseTreeObject } from './tree-object.js';

type IsomorphicGit = typeof import('isomorphic-git').default;
let loading: Promise<IsomorphicGit> | undefined;

/** isomorphic-git, imported once, on first use. */
function isomorphicGit(): Promise<IsomorphicGit> {
  loading ??= import('isomorphic-git').then((m) => m.default);
  return loading;
}

interface IsoObjectReaderOptions {
  /** The filesystem holding the repository (node:fs or a memfs volume). */
  fs: FsClient;
  /** The git directory holding the objects (for linked worktrees: the common dir). */
  gitdir: string;
  /** Trees kept in memory (default 4096). */
  maxCachedTrees?: number;
}

/** A read-only `GitObjectReader` on isomorphic-git, with a tree cache (see the file comment). */
export class IsoObjectReader implements GitObjectReader {
  private readonly fs: FsClient;
  private readonly gitdir: string;
  private readonly cache: object = {};
  private readonly trees = new Map<string, Promise<TreeEntry[]>>();
  private readonly maxCachedTrees: number;

  constructor(options: IsoObjectReaderOptions) {
    this.fs = options.fs;
    this.gitdir = options.gitdir;
    this.maxCachedTrees = options.maxCachedTrees ?? 4096;
  }

  async commitTree(commit: string): Promise<string> {
    const git = await isomorphicGit();
    try {
      const { oid, commit: object } = await git.readCommit({ fs: this.fs, gitdir: this.gitdir, oid: commit, cache: this.cache });
      if (oid === commit) return object.tree;
    } catch (e) {
      throw new GitError('BAD_REF', 'read-commit', `${commit.slice(0, 40)} is not a readable commit`, { cause: e });
    }
    throw new GitError('BAD_REF', 'read-commit', `${commit.slice(0, 40)} is a tag, not a commit`);
  }

  readTree(tree: string): Promise<TreeEntry[]> {
    const hit = this.trees.get(tree);
    if (hit) {
      this.trees.delete(tree);
      this.trees.set(tree, hit);
      return hit;
    }
    const loading = this.loadTree(tree);
    this.trees.set(tree, loading);
    loading.catch(() => this.trees.delete(tree));
    if (this.trees.size > this.maxCachedTrees) this.trees.delete(this.trees.keys().next().value as string);
    return loading;
  }

  async readBlob(blob: string): Promise<Uint8Array> {
    const git = await isomorphicGit();
    try {
      const { blob: bytes } = await git.readBlob({ fs: this.fs, gitdir: this.gitdir, oid: blob, cache: this.cache });
      return bytes;
    } catch (e) {
      throw new GitError('OBJECT_MISSING', 'read-blob', `blob ${blob} cannot be read`, { cause: e });
    }
  }

  private async loadTree(tree: string): Promise<TreeEntry[]> {
    const git = await isomorphicGit();
    try {
      // The raw object, parsed here: isomorphic-git's own parser refuses a whole tree for one
      // `.git`-like name (tree-object.ts).
      const read = await git.readObject({ fs: this.fs, gitdir: this.gitdir, oid: tree, format: 'content', cache: this.cache });
      if (read.type !== 'tree' || !(read.object instanceof Uint8Array)) throw new Error(`${tree} is a ${read.type}, not a tree`);
      return parseTreeObject(read.object, tree);
    } catch (e) {
      if (e instanceof GitError) throw e;
      throw new GitError('OBJECT_MISSING', 'read-tree', `tree ${tree} cannot be read`, { cause: e });
    }
  }
}
