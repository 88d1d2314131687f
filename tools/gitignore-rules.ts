/**
 * `GitignoreRules`: the `.gitignore` files that apply to a folder, nested ones included, with
 * git's precedence: the deepest file with a rule for a path decides (a `!negation` there
 * re-includes it). Rules follow git's syntax exactly (`gitignore-pattern.ts`) and match in
 * linear time (`gitignore-file.ts`). A walk never enters an ignored folder, so files inside
 * one stay ignored, as in git.
 *
 * Paths are mount-relative (a `.gitignore` never reaches into another mount). Not read:
 * `.git/info/exclude` and the user's global excludes file (host state, not workspace content).
 * Every read, parse and match counts its work into the call's `MatchMeter` (and yields through
 * it), so rules that are huge, many, or deeply nested slow one call down, never the process.
 */
import { isVfsError } from '../vfs/errors.js';
import type { Resolved } from '../vfs/mount-table.js';
import type { Namespace } from '../vfs/namespace.js';
import { GitignoreFile } from './gitignore-file.js';
import type { MatchMeter, WorkCounter } from './match-work.js';

/** Largest `.gitignore` read; larger ones are not applied. */
export const MAX_GITIGNORE_BYTES = 1024 * 1024;

/** An immutable chain of `.gitignore` files, deepest first; `enter` adds a folder's file. */
export class GitignoreRules {
  private constructor(
    private readonly parent: GitignoreRules | undefined,
    /** Mount-relative folder of the `.gitignore` ('' for the mount root). */
    private readonly base: string,
    private readonly file: GitignoreFile | undefined,
  ) {}

  /** No rules at all. */
  static readonly none = new GitignoreRules(undefined, '', undefined);

  /**
   * The rules below `dir`: this chain plus `dir/.gitignore` when `hasFile` says it exists.
   * Unreadable files (vanished, too large, a link) and files without rules add nothing.
   */
  async enter(ns: Namespace, dir: Resolved, hasFile: boolean, meter: MatchMeter): Promise<GitignoreRules> {
    if (!hasFile) return this;
    const rel = dir.rel === '' ? '.gitignore' : `${dir.rel}/.gitignore`;
    let text: string;
    try {
      const bytes = await ns.readFile({ path: `${dir.path}/.gitignore`, mount: dir.mount, rel }, { maxBytes: MAX_GITIGNORE_BYTES });
      text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    } catch (e) {
      // Out of descriptors (`BUSY`) or a failed read (`INTERNAL`) the rules are unknown: the
      // search must not go on without them. A missing, linked, special or oversized file has none.
      if (isVfsError(e) && e.code !== 'BUSY' && e.code !== 'INTERNAL') return this;
      throw e;
    }
    const file = await GitignoreFile.parse(text, meter);
    return file.isEmpty ? this : new GitignoreRules(this, dir.rel, file);
  }

  /**
   * The rules of the folders above `start` in its mount (root first), for a search that starts
   * below the mount root. When they ignore `start` itself they are dropped: a folder the agent
   * names explicitly is searched, as ripgrep does.
   */
  static async above(ns: Namespace, start: Resolved, meter: MatchMeter): Promise<GitignoreRules> {
    if (start.rel === '') return GitignoreRules.none;
    const segs = start.rel.split('/');
    const mountPath = start.mount.path;
    let rules = GitignoreRules.none;
    for (let i = 0; i < segs.length; i++) {
      const rel = segs.slice(0, i).join('/');
      const dir: Resolved = { path: rel === '' ? mountPath : `${mountPath}/${rel}`, mount: start.mount, rel };
      rules = await rules.enter(ns, dir, true, meter);
    }
    return (await rules.ignores(start.rel, true, meter)) ? GitignoreRules.none : rules;
  }

  /**
   * True when the mount-relative path is ignored (`isDir` for folders). Synchronous unless
   * `work` is a `MatchMeter` that asks for a yield meanwhile (`GitignoreFile.verdict`).
   */
  ignores(rel: string, isDir: boolean, work: WorkCounter): boolean | Promise<boolean> {
    return GitignoreRules.ignoredFrom(this, rel, rel.slice(rel.lastIndexOf('/') + 1), isDir, work);
  }

  /** The deepest file from `node` up with a verdict on the path decides; none: not ignored. */
  private static ignoredFrom(
    node: GitignoreRules | undefined,
    rel: string,
    name: string,
    isDir: boolean,
    work: WorkCounter,
  ): boolean | Promise<boolean> {
    for (; node?.file; node = node.parent) {
      const verdict = node.file.verdict(rel, node.base === '' ? 0 : node.base.length + 1, name, isDir, work);
      if (verdict instanceof Promise) {
        const parent = node.parent;
        return verdict.then((v) => (v !== undefined ? v === 'ignored' : GitignoreRules.ignoredFrom(parent, rel, name, isDir, work)));
      }
      if (verdict !== undefined) return verdict === 'ignored';
    }
    return false;
  }
}
