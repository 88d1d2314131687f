/**
 * The snapshot port: a worktree's whole state kept as a git commit object on a private ref
 * (`refs/gatefs/snapshots/<conversation>/<n>`), written from the bytes gatefs read itself —
 * never through an index, a checkout, a filter or an attribute — and read back the same way.
 * The snapshot commit is on no branch; the worktree's branch, HEAD and index are never touched.
 *
 * Two implementations: `CliSnapshotGit` (the git program: `fast-import`, `ls-tree`,
 * `cat-file --batch`; production) and `MemorySnapshotGit` (isomorphic-git over the memory
 * host's memfs volume). Paths are repository-relative, '/'-separated, no leading './'.
 */
import { GitError, type GitContext } from './git-port.js';

/**
 * One change applied to the parent's tree: a file with its bytes (read only when written, one
 * file at a time), a symbolic link with its target, or the removal of a path (a file, a link,
 * or a folder with everything below it; a missing path is no change).
 */
export type SnapshotChange =
  | { path: string; kind: 'file'; executable: boolean; bytes: () => Promise<Uint8Array> }
  | { path: string; kind: 'link'; target: string }
  | { path: string; kind: 'delete' };

/** A file of a snapshot's tree: a regular file (`100644`), an executable (`100755`) or a link (`120000`). */
export interface SnapshotTreeEntry {
  path: string;
  mode: '100644' | '100755' | '120000';
  oid: string;
}

/** What `writeSnapshot` is asked to write (see there). */
export interface SnapshotWrite {
  /** The full ref to create (`refs/…`); refused when it exists. */
  ref: string;
  /** The commit whose tree the changes apply to, and the new commit's parent; null: the empty tree, no parent. */
  parent: string | null;
  /** Applied in order. */
  changes: readonly SnapshotChange[];
  message: string;
  /** Author and committer time, seconds since the epoch (UTC). */
  time: number;
}

/** Worktree snapshots as commit objects (see the file comment). */
export interface SnapshotGit {
  /**
   * Writes a commit whose tree is `parent`'s tree (the empty tree when null) with `changes`
   * applied (a delete of a folder path removes everything below it), parent set to `parent`,
   * message `message`, author/committer `gatefs <gatefs@localhost>` at `time` (seconds, UTC),
   * and creates `ref` pointing at it (refusing when `ref` exists: `GitError('COMMAND_FAILED')`;
   * a malformed ref or parent: `GitError('BAD_REF')`). No hook, filter, attribute or config of the
   * repository changes the bytes: blobs hold exactly the bytes given. `repo`: the main repository
   * (the objects are shared with its worktrees). Returns the commit sha and a map path→blob oid
   * of the files and links written.
   */
  writeSnapshot(repo: string, o: SnapshotWrite, context: GitContext): Promise<{ commit: string; oids: Map<string, string> }>;
  /** Every file and link of commit's tree (a submodule entry is left out), sorted by path (plain string order). */
  listTree(repo: string, commit: string, context: GitContext): Promise<SnapshotTreeEntry[]>;
  /** The bytes of each blob (one process for all on disk: `cat-file --batch`). A missing one: `GitError('OBJECT_MISSING')`. */
  readBlobs(repo: string, oids: readonly string[], context: GitContext): Promise<Map<string, Uint8Array>>;
  /** The commit's message. */
  message(repo: string, commit: string, context: GitContext): Promise<string>;
  /** Refs under prefix (e.g. 'refs/gatefs/snapshots/c1/') with their shas, sorted by ref. */
  listRefs(repo: string, prefix: string, context: GitContext): Promise<{ ref: string; sha: string }[]>;
  /** Deletes the refs (missing fine). */
  deleteRefs(repo: string, refs: readonly string[], context: GitContext): Promise<void>;
  /**
   * The binary patch from `o.base` to `o.commit` (a snapshot of the worktree at `o.worktree`),
   * as `git diff --binary --full-index --no-renames` prints it, limited to what git counts as the
   * worktree's changes: files the base or the worktree tracks, and untracked files its ignore
   * rules (`.gitignore` files, `info/exclude`) do not ignore; in a sparse worktree a file outside
   * the sparse set that the snapshot lacks is no deletion. `git apply` on a checkout of the base
   * reproduces the snapshot's files. No filter, textconv or external diff runs. Nothing changed:
   * empty bytes and no files. A malformed sha: `GitError('BAD_REF')`.
   */
  snapshotPatch(repo: string, o: SnapshotPatchRequest, context: GitContext): Promise<SnapshotPatch>;
}

/** What `snapshotPatch` compares (see there). */
export interface SnapshotPatchRequest {
  /** The worktree the snapshot was taken of (its ignore rules, index and sparse set apply). */
  worktree: string;
  /** The commit compared with (the workspace's pinned base). */
  base: string;
  /** The snapshot commit. */
  commit: string;
}

/** A patch `snapshotPatch` made: its bytes and the paths it changes (sorted). */
export interface SnapshotPatch {
  bytes: Uint8Array;
  files: string[];
}

/**
 * Throws `GitError('COMMAND_FAILED', operation)` unless `path` is a relative '/'-separated path
 * git can store: not empty, no empty, `.` or `..` component, no NUL.
 */
export function assertSnapshotPath(path: string, operation: string): void {
  const parts = path.split('/');
  if (path.includes('\0') || parts.some((p) => p === '' || p === '.' || p === '..'))
    throw new GitError('COMMAND_FAILED', operation, `'${path.slice(0, 200)}' is not a relative path git can store`);
}

/** Throws `GitError('COMMAND_FAILED', operation)` unless `time` is whole seconds, not negative. */
export function assertSnapshotTime(time: number, operation: string): void {
  if (!Number.isSafeInteger(time) || time < 0) throw new GitError('COMMAND_FAILED', operation, `'${time}' is not a time in whole seconds`);
}

/**
 * The message as a snapshot commit stores it (both implementations alike): carriage returns
 * dropped, blank lines at the start dropped, exactly one newline at the end.
 */
export function snapshotMessage(message: string): string {
  return `${message.replace(/\r/g, '').replace(/^\n+/, '').replace(/\n+$/, '')}\n`;
}

/** True when `ref` is under `prefix` as `git for-each-ref <prefix>` matches: equal, or below it at a '/'. */
export function refUnder(ref: string, prefix: string): boolean {
  if (!ref.startsWith(prefix)) return false;
  return ref.length === prefix.length || prefix.endsWith('/') || ref[prefix.length] === '/';
}

/**
 * Which paths `changes` leave as files, with the oid each was written with (`oidAt(i)`, for the
 * file or link change at index `i`): a later write at the same path, a later delete of the path
 * or a folder above it, a later file at a folder above it, or a later file below it (the file
 * became a folder) each drops an earlier write. Linear in the paths' total length.
 */
export function finalOids(changes: readonly SnapshotChange[], oidAt: (index: number) => string | undefined): Map<string, string> {
  const deletedAt = new Map<string, number>();
  const fileAt = new Map<string, number>();
  const folderAt = new Map<string, number>();
  changes.forEach((c, i) => {
    if (c.kind === 'delete') deletedAt.set(c.path, i);
    else {
      fileAt.set(c.path, i);
      for (let at = c.path.indexOf('/'); at !== -1; at = c.path.indexOf('/', at + 1)) folderAt.set(c.path.slice(0, at), i);
    }
  });
  const later = (map: Map<string, number>, path: string, i: number) => (map.get(path) ?? -1) > i;
  const oids = new Map<string, string>();
  for (const [path, i] of fileAt) {
    const oid = oidAt(i);
    if (oid === undefined || later(deletedAt, path, i) || later(folderAt, path, i)) continue;
    let dropped = false;
    for (let at = path.indexOf('/'); at !== -1 && !dropped; at = path.indexOf('/', at + 1)) {
      const above = path.slice(0, at);
      dropped = later(deletedAt, above, i) || later(fileAt, above, i);
    }
    if (!dropped) oids.set(path, oid);
  }
  return oids;
}

/** The identity every snapshot commit carries, as author and committer. */
export const SNAPSHOT_IDENTITY = { name: 'gatefs', email: 'gatefs@localhost' } as const;

/** Plain string order of paths, the order `listTree` returns. */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
