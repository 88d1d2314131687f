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
import { isVfsError } from '../vfs/index.js';
import { type FolderAccess, walkLayer } from '../vfs/index.js';
import type { Resolved } from '../vfs/index.js';
import type { Namespace } from '../vfs/index.js';
import { GitignoreFile } from './patterns/index.js';
import type { MatchMeter, WorkCounter } from './patterns/index.js';

/** Largest `.gitignore` read; larger ones are not applied. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

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
    let bytes: Uint8Array;
    try {
      bytes = await ns.readFile({ path: `${dir.path}/.gitignore`, mount: dir.mount, rel }, { maxBytes: MAX_GITIGNORE_BYTES });
    } catch (e) {
      // Out of descriptors (`BUSY`) or a failed read (`INTERNAL`) the rules are unknown: the
      // search must not go on without them. A missing, linked, special or oversized file has none.
      if (isVfsError(e) && e.code !== 'BUSY' && e.code !== 'INTERNAL') return this;
      throw e;
    }
    return this.with(dir.rel, bytes, meter);
  }

  /** This chain plus the rules in `bytes` (the `.gitignore` of the folder `base`), when there are any. */
  private async with(base: string, bytes: Uint8Array, meter: MatchMeter): Promise<GitignoreRules> {
    const file = await GitignoreFile.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), meter);
    return file.isEmpty ? this : new GitignoreRules(this, base, file);
  }

  /**
   * The rules of the folders above `start` in its mount (root first), for a search that starts
   * below the mount root. When they ignore `start` itself they are dropped: a folder the agent
   * names explicitly is searched, as ripgrep does.
   *
   * One descent of the mount's layer along the path, each folder looked up for two names only
   * (`.gitignore` and the next segment) and its `.gitignore` read through the folder the walk
   * holds: n folders deep costs n lookups, not the n² of reading each file from the mount root.
   * A `.gitignore` that is not a regular file has no rules (git does not follow a linked one).
   */
  static async above(ns: Namespace, start: Resolved, meter: MatchMeter): Promise<GitignoreRules> {
    if (start.rel === '') return GitignoreRules.none;
    const segs = start.rel.split('/');
    // The folders above `start` (mount-relative), each with the segment below it on the way down.
    const folders = new Map<string, string>();
    let prefix = '';
    for (const [i, seg] of segs.entries()) {
      folders.set(prefix, seg);
      prefix = i === 0 ? seg : `${prefix}/${seg}`;
    }
    const mountPath = start.mount.path;
    let rules = GitignoreRules.none;
    const walk = walkLayer(start.mount.layer, '', {
      // The start folder itself is never entered: its parent is the last folder whose rules count.
      only: (dir) => {
        const below = folders.get(dir);
        if (below === undefined) return [];
        return folders.has(dir === '' ? below : `${dir}/${below}`) ? ['.gitignore', below] : ['.gitignore'];
      },
      descend: (child) => folders.has(child),
    });
    try {
      for await (const w of walk) {
        if (!folders.has(w.path) || !w.entries.some((e) => e.name === '.gitignore' && e.type === 'file')) continue;
        const dir: Resolved = { path: w.path === '' ? mountPath : `${mountPath}/${w.path}`, mount: start.mount, rel: w.path };
        rules = w.files ? await rules.enterHeld(ns, dir, w.files, meter) : await rules.enter(ns, dir, true, meter);
      }
    } catch (e) {
      // The path changed under the walk (a folder gone or replaced): the rules of what is left
      // are read one by one, as the search that follows will meet it.
      if (!isVfsError(e) || e.code === 'BUSY' || e.code === 'INTERNAL') throw e;
      rules = GitignoreRules.none;
      for (const rel of folders.keys()) {
        rules = await rules.enter(ns, { path: rel === '' ? mountPath : `${mountPath}/${rel}`, mount: start.mount, rel }, true, meter);
      }
    }
    return (await rules.ignores(start.rel, true, meter)) ? GitignoreRules.none : rules;
  }

  /** As `enter`, reading `dir/.gitignore` through the folder a walk holds (`files`). */
  private async enterHeld(ns: Namespace, dir: Resolved, files: FolderAccess, meter: MatchMeter): Promise<GitignoreRules> {
    let bytes: Uint8Array;
    try {
      bytes = await files.readFile('.gitignore', { maxBytes: MAX_GITIGNORE_BYTES });
    } catch (e) {
      // Unknown rules stop the search with the namespace's own error for the file.
      if (isVfsError(e) && (e.code === 'BUSY' || e.code === 'INTERNAL')) return this.enter(ns, dir, true, meter);
      return this;
    }
    return this.with(dir.rel, bytes, meter);
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
