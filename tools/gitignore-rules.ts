/**
 * `GitignoreRules`: the `.gitignore` files that apply to a folder, nested ones included, with
 * git's precedence: the deepest file with a rule for a path decides (a `!negation` there
 * re-includes it). Patterns are read with the `ignore` package (gitignore syntax). A walk
 * never enters an ignored folder, so files inside one stay ignored, as in git.
 *
 * Paths are mount-relative (a `.gitignore` never reaches into another mount). Not read:
 * `.git/info/exclude` and the user's global excludes file (host state, not workspace content).
 */
import ignore, { type Ignore } from 'ignore';
import { isVfsError } from '../vfs/errors.js';
import type { Resolved } from '../vfs/mount-table.js';
import type { Namespace } from '../vfs/namespace.js';

/** Largest `.gitignore` read; larger ones are not applied. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/** An immutable chain of `.gitignore` files, deepest first; `enter` adds a folder's file. */
export class GitignoreRules {
  private constructor(
    private readonly parent: GitignoreRules | undefined,
    /** Mount-relative folder of the `.gitignore` ('' for the mount root). */
    private readonly base: string,
    private readonly rules: Ignore,
  ) {}

  /** No rules at all. */
  static readonly none = new GitignoreRules(undefined, '', ignore());

  /**
   * The rules below `dir`: this chain plus `dir/.gitignore` when `hasFile` says it exists.
   * Unreadable files (vanished, too large, a link) add nothing.
   */
  async enter(ns: Namespace, dir: Resolved, hasFile: boolean): Promise<GitignoreRules> {
    if (!hasFile) return this;
    const rel = dir.rel === '' ? '.gitignore' : `${dir.rel}/.gitignore`;
    try {
      const bytes = await ns.readFile({ path: `${dir.path}/.gitignore`, mount: dir.mount, rel }, { maxBytes: MAX_GITIGNORE_BYTES });
      return new GitignoreRules(this, dir.rel, ignore({ allowRelativePaths: true }).add(Buffer.from(bytes).toString('utf8')));
    } catch (e) {
      // Out of descriptors (`BUSY`) the rules are unknown: the search must not go on without them.
      if (isVfsError(e) && e.code !== 'BUSY') return this;
      throw e;
    }
  }

  /**
   * The rules of the folders above `start` in its mount (root first), for a search that starts
   * below the mount root. When they ignore `start` itself they are dropped: a folder the agent
   * names explicitly is searched, as ripgrep does.
   */
  static async above(ns: Namespace, start: Resolved): Promise<GitignoreRules> {
    if (start.rel === '') return GitignoreRules.none;
    const segs = start.rel.split('/');
    const mountPath = start.mount.path;
    let rules = GitignoreRules.none;
    for (let i = 0; i < segs.length; i++) {
      const rel = segs.slice(0, i).join('/');
      const dir: Resolved = { path: rel === '' ? mountPath : `${mountPath}/${rel}`, mount: start.mount, rel };
      rules = await rules.enter(ns, dir, true);
    }
    return rules.ignores(start.rel, true) ? GitignoreRules.none : rules;
  }

  /** True when the mount-relative path is ignored (`isDir` for folders). */
  ignores(rel: string, isDir: boolean): boolean {
    for (let node: GitignoreRules | undefined = this; node; node = node.parent) {
      if (node === GitignoreRules.none) return false;
      const sub = node.base === '' ? rel : rel.slice(node.base.length + 1);
      const verdict = node.rules.test(isDir ? `${sub}/` : sub);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }
}
