/**
 * The tree-checkout port: what the host needs to check a pinned commit out into a private
 * folder (a `copy` workspace's lower folder, src/host/lower/lower-folders.ts) and to prove the result
 * holds the commit's bytes. Host side only, never the gate. One implementation,
 * `CliTreeCheckout` (the git program through host exec, neutralised); the memory host has none
 * (it serves its lowers from git objects).
 *
 * Every method takes an `AbortSignal`: the host stops its background checkout when it closes or
 * when a release wants the folder; an aborted command ends at once (its process is killed) and
 * the method throws `GitError('COMMAND_FAILED')`.
 */
import type { GitContext } from './git-port.js';

/** One entry of a commit's whole tree (`git ls-tree -r -t`), folders included. */
export interface TreeListingEntry {
  /** Git mode as written: `100644`, `100755`, `120000` (link), `040000` (folder), `160000` (submodule). */
  mode: string;
  oid: string;
  /** Repository-relative path, '/'-separated, as stored (no quoting). */
  path: string;
}

export interface TreeCheckout {
  /**
   * Every entry of `commit`'s tree, folders included, parents before children. Throws
   * `GitError` `COMMAND_FAILED` (also when the listing is too long to hold: `detail` says so).
   */
  listTree(commit: string, context: GitContext, signal: AbortSignal): Promise<TreeListingEntry[]>;
  /**
   * Writes `entries` (entries of one commit's `listTree`, which may leave some out: a folder is
   * made for what it holds, a folder entry itself writes nothing) below `folder` (an existing
   * empty folder), through a private index file `indexFile` (never the repository's index),
   * with nothing the repository could make git run (hooks, filters, fsmonitor), links as links
   * and modes as stored. Attributes in the tree (`eol`, `ident`, `working-tree-encoding`) may
   * still change bytes: callers verify with `hashFiles`. `GitError` `COMMAND_FAILED`, also for
   * a path git's index refuses (a `.git`-like name: leave those out).
   */
  checkout(
    entries: readonly TreeListingEntry[],
    folder: string,
    indexFile: string,
    context: GitContext,
    signal: AbortSignal,
  ): Promise<void>;
  /**
   * The blob ids of the files at `paths` (relative to `folder`, none holding a newline), as
   * stored without any filter: what `git hash-object --no-filters` prints, in order.
   * `GitError` `COMMAND_FAILED`.
   */
  hashFiles(folder: string, paths: readonly string[], context: GitContext, signal: AbortSignal): Promise<string[]>;
  /**
   * Creates a FIFO at each of `paths` (relative to `folder`; each name must be free), mode 0644:
   * the stand-in for a submodule, which the layers report as `other` as git trees do.
   * `GitError` `COMMAND_FAILED`.
   */
  makeFifos(folder: string, paths: readonly string[], context: GitContext, signal: AbortSignal): Promise<void>;
  /**
   * Puts everything written below `folder` on stable storage (the file system's `sync`), so a
   * record saying the folder is finished can never outlive its bytes in a power loss.
   * `GitError` `COMMAND_FAILED`.
   */
  flush(folder: string, context: GitContext, signal: AbortSignal): Promise<void>;
}
