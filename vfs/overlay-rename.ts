/**
 * `overlayRename`: rename in a copy-on-write overlay (vfs/overlay-layer.ts), where the lower is
 * never changed, so a move is made of upper renames, copy-ups and whiteouts:
 *
 * - a file or link the upper holds: the upper renames it; if the lower shows an entry at `from`
 *   beneath it, `from` is whited out first (the upper entry still shows until it moves), and
 *   the whiteout is taken back when the rename fails;
 * - a file only the lower holds: copy up (its bytes and mode written at `to` in the upper,
 *   exclusively unless it replaces an upper file), then `from` is whited out. Until the
 *   whiteout is saved both names show the file, never neither; a failed whiteout takes a fresh
 *   copy (and the folders made for it) back; a replaced upper file stays replaced. A link only the lower holds is refused (`NOT_REGULAR_FILE`): the upper's writing
 *   interface creates no links;
 * - a folder with nothing of the lower under it (created in the upper, or opaque): the upper
 *   renames it, one atomic step; its whiteout, if any, stays and keeps the lower hidden;
 * - a folder the lower shows into: its whole merged tree is first copied up in place (nothing
 *   changes in the view: the copies hold what the lower shows), the folder is made opaque (a
 *   whiteout under the upper folder), then the upper renames it in one step. A lower-only link
 *   or special file anywhere inside refuses the move before anything is copied
 *   (`NOT_REGULAR_FILE`). A failure at any step takes back every copy, folder and whiteout the
 *   move made. Cost: the bytes of everything only the lower holds under the folder.
 *
 * The rules of vfs/rename-rules.ts come first, on the merged view: `to` is checked with the
 * merged entry there (an upper or visible lower entry), and the upper is told to replace only
 * an entry it holds itself (else it must find the name free, so a concurrent create is never
 * replaced). Errors: those rules, the layers' codes, `NOT_FOUND` for a missing `from` or parent.
 */
import { VfsError, isVfsError } from './errors.js';
import type { DirEntry, Layer, RenameOptions, Stat, WritableLayer } from './layer.js';
import { childPath } from './layer.js';
import { checkRenameKinds, checkRenamePaths } from './rename-rules.js';
import type { WhiteoutSet } from './whiteout-set.js';

/** Where a merged entry lives and what it is (the overlay's own view of a path). */
export interface OverlayFound {
  in: 'upper' | 'lower';
  stat: Stat;
}

/** What the rename needs of the overlay it works in (its private steps, handed over). */
export interface OverlayParts {
  readonly upper: WritableLayer;
  readonly lower: Layer;
  /** The merged entry at a path, or undefined when absent or whited out. */
  find(path: string): Promise<OverlayFound | undefined>;
  /** True when the lower shows an entry at `path` (shadowed or not). */
  lowerShows(path: string, found: OverlayFound): Promise<boolean>;
  whiteouts(): Promise<WhiteoutSet>;
  /** Runs `change` once every folder above `path` exists in the upper (undone when it fails). */
  withParents<T>(path: string, op: string, change: () => Promise<T>): Promise<T>;
  /** The merged listing of a folder. */
  readdir(path: string): Promise<DirEntry[]>;
}

/** Renames `from` to `to` in the overlay (see the file comment). */
export async function overlayRename(o: OverlayParts, from: string, to: string, options: RenameOptions): Promise<void> {
  const op = 'rename';
  checkRenamePaths(from, to);
  const source = await o.find(from);
  if (!source) throw new VfsError('NOT_FOUND', op, from);
  const target = await o.find(to);
  checkRenameKinds(from, to, source.stat.type, target?.stat.type, options);
  const replaceInUpper = target?.in === 'upper';
  if (source.stat.type === 'directory') return renameFolder(o, from, to, source);
  if (source.in === 'upper') {
    const undo = (await o.lowerShows(from, source)) ? await (await o.whiteouts()).add(from) : undefined;
    try {
      await o.withParents(to, op, () => o.upper.rename(from, to, { overwrite: replaceInUpper }));
    } catch (e) {
      await undo?.().catch(() => undefined);
      throw e;
    }
    return;
  }
  if (source.stat.type !== 'file') {
    throw new VfsError('NOT_REGULAR_FILE', op, from, 'a link of the base snapshot cannot be moved in a copy-on-write workspace');
  }
  const bytes = await o.lower.readFile(from);
  const mode = source.stat.mode;
  // The whiteout is saved inside the change, so a failure takes the copy (and the folders
  // made for it) back.
  await o.withParents(to, op, async () => {
    await o.upper.writeFile(to, bytes, { exclusive: !replaceInUpper, mode });
    try {
      await (await o.whiteouts()).add(from);
    } catch (e) {
      if (!replaceInUpper) await o.upper.remove(to).catch(() => undefined);
      throw e;
    }
  });
}

/** The folder cases of the file comment. A failure takes back every copy, folder and whiteout it made. */
async function renameFolder(o: OverlayParts, from: string, to: string, source: OverlayFound): Promise<void> {
  if (source.in === 'upper' && !(await o.lowerShows(from, source))) {
    await o.withParents(to, 'rename', () => o.upper.rename(from, to, { overwrite: false }));
    return;
  }
  const lowerOnly = [...(await lowerOnlyAncestors(o, from)), ...(await lowerOnlyEntries(o, from))];
  const link = lowerOnly.find((e) => e.type !== 'file' && e.type !== 'directory');
  if (link) {
    throw new VfsError(
      'NOT_REGULAR_FILE',
      'rename',
      link.path,
      'the folder holds a link or special file of the base snapshot, which a copy-on-write workspace cannot move',
    );
  }
  const made: string[] = [];
  let undoWhiteout: (() => Promise<void>) | undefined;
  try {
    // Copy-up in place, parents before children: the view does not change while it runs.
    for (const e of lowerOnly) {
      if (e.type === 'directory') {
        if (await mkdirIfMissing(o.upper, e.path)) made.push(e.path);
      } else {
        await o.upper.writeFile(e.path, await o.lower.readFile(e.path), { exclusive: true, mode: e.mode });
        made.push(e.path);
      }
    }
    undoWhiteout = await (await o.whiteouts()).add(from);
    await o.withParents(to, 'rename', () => o.upper.rename(from, to, { overwrite: false }));
  } catch (e) {
    await undoWhiteout?.().catch(() => undefined);
    for (const path of made.reverse()) await o.upper.remove(path).catch(() => undefined);
    throw e;
  }
}

interface LowerEntry {
  path: string;
  type: Stat['type'];
  mode: number;
}

/** The folders above `path` that only the lower holds, outermost first (the copy-up makes them too). */
async function lowerOnlyAncestors(o: OverlayParts, path: string): Promise<LowerEntry[]> {
  const out: LowerEntry[] = [];
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const dir = segments.slice(0, i).join('/');
    const found = await o.find(dir);
    if (found?.in === 'lower') out.push({ path: dir, type: found.stat.type, mode: found.stat.mode });
  }
  return out;
}

/** Every entry of the merged folder `dir` (itself included) that only the lower holds, parents first. */
async function lowerOnlyEntries(o: OverlayParts, dir: string): Promise<LowerEntry[]> {
  const out: LowerEntry[] = [];
  const visit = async (path: string): Promise<void> => {
    const found = await o.find(path);
    if (!found) return;
    if (found.in === 'lower') out.push({ path, type: found.stat.type, mode: found.stat.mode });
    if (found.stat.type !== 'directory') return;
    for (const e of await o.readdir(path)) await visit(childPath(path, e.name));
  };
  await visit(dir);
  return out;
}

/** Makes the upper folder `path`; false when it already exists. */
async function mkdirIfMissing(upper: WritableLayer, path: string): Promise<boolean> {
  try {
    await upper.mkdir(path);
    return true;
  } catch (e) {
    if (!isVfsError(e, 'ALREADY_EXISTS')) throw e;
    return false;
  }
}
