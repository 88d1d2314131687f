/**
 * `hostRename`: the host layer's rename (vfs/layer.ts `WritableLayer.rename`), through held
 * parent handles like every change (shared/SECURITY.md step 6): both parents are reached by
 * `ConfinedWalk.openChain` (every folder shown to the guard), both names are looked at with
 * `lstat` inside their held parent, and the change is one call naming `<parent fd>/<name>` on
 * each side, so a link at either end is moved or replaced as a link, never followed.
 *
 * Never replacing silently: Node has no `renameat2(RENAME_NOREPLACE)`, so a file or link moved
 * to a free name is published with `link(2)` (which fails if the name appeared meanwhile),
 * checked to be the entry the rules were applied to and still the one `from` names, then `from`
 * is unlinked. Between the two calls both names show the file; if another program replaced
 * `from` meanwhile, the new name is taken back and the answer is `STALE_CONTENT`, nothing moved. On a file system
 * without hard links the free name is checked and `rename(2)` used (a name created in between
 * by another program would be replaced). A folder moved to a free name uses `rename(2)`, which
 * fails on anything at `to` but an empty folder: an empty folder made there in between by another
 * program is the one thing that can be replaced. With `overwrite`, a file or link replaces a
 * file or link atomically (`rename(2)`); when both names are hard links of one file (where
 * rename(2) would succeed doing nothing), `from` is unlinked.
 *
 * A folder carries everything in it: before it moves, every folder inside it is shown to the
 * guard too (opened through its parent's handle, links never descended), so a read-only tree or
 * the state directory below it is never carried off (`READ_ONLY`, `PROTECTED_PATH`). At most
 * `MAX_GUARDED_DEPTH` levels are checked (`TOO_DEEP` past it); a guarded folder moved into the
 * folder by another program after the check is not seen (a limit, as with any check-then-act).
 */
import { closeSync, linkSync, lstatSync, readdirSync, renameSync, unlinkSync, type Stats } from 'node:fs';
import { VfsError } from './errors.js';
import type { RenameOptions } from './layer.js';
import { baseName, childPath } from './layer.js';
import type { ConfinedWalk, HeldDir } from './host-walk.js';
import { type HostGuard, identityOf, sameIdentity } from './host-hooks.js';
import { hostError, layerSegments } from './host-names.js';
import { entryTypeOf } from './node-stat.js';
import { checkRenameKinds, checkRenamePaths } from './rename-rules.js';
import { foreignCodeOf } from './coded-error.js';
import { syncFolder } from './host-write.js';

/** How many folder levels below a moved folder are shown to the guard before it moves. */
export const MAX_GUARDED_DEPTH = 128;

/** link(2) errors that mean "this filesystem has no hard links", not "the name exists". */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK']);

/**
 * Renames `from` to `to` below the walk's root (see the file comment for the rules and codes);
 * `sync` fsyncs both parent folders afterwards (vfs/host-write.ts `syncFolder`).
 */
export function hostRename(walk: ConfinedWalk, from: string, to: string, options: RenameOptions, guard?: HostGuard, sync = true): void {
  const op = 'rename';
  const fromSegments = layerSegments(from, op);
  const toSegments = layerSegments(to, op);
  checkRenamePaths(from, to);
  const source = walk.openChain(fromSegments.slice(0, -1), op, guard);
  let target: HeldDir[] = [];
  try {
    target = walk.openChain(toSegments.slice(0, -1), op, guard);
    const fromDir = source[source.length - 1];
    const toDir = target[target.length - 1];
    const fromName = baseName(from);
    const toName = baseName(to);
    walk.seams.beforeStep?.({ op, path: from });
    const st = lstatAt(walk, fromDir, fromName, from);
    if (!st) throw new VfsError('NOT_FOUND', op, from);
    const existing = lstatAt(walk, toDir, toName, to);
    checkRenameKinds(from, to, entryTypeOf(st), existing && entryTypeOf(existing), options);
    if (st.isDirectory() && guard) guardFolder(walk, fromDir, fromName, from, guard);
    walk.seams.afterCheck?.({ op, path: from });
    walk.seams.beforeCommit?.({ op, path: from });
    if (existing && sameIdentity(identityOf(existing), identityOf(st))) {
      // Two hard links of one file: rename(2) would do nothing and succeed, leaving `from`.
      unlinkSync(walk.at(fromDir, fromName));
    } else if (existing || st.isDirectory()) renameSync(walk.at(fromDir, fromName), walk.at(toDir, toName));
    else linkThenUnlink(walk, fromDir, fromName, toDir, toName, st, from, to);
    if (sync) {
      syncFolder(toDir);
      if (toDir !== fromDir) syncFolder(fromDir);
    }
  } catch (e) {
    if (e instanceof VfsError) throw e;
    const code = foreignCodeOf(e);
    if (code === 'EINVAL') throw new VfsError('INVALID_INPUT', op, to, 'a folder cannot be moved inside itself');
    if (code === 'EEXIST' || code === 'ENOTEMPTY') throw new VfsError('ALREADY_EXISTS', op, to, 'the destination appeared during the move');
    throw hostError(e, op, code === 'ENOENT' ? from : to);
  } finally {
    walk.release(source);
    walk.release(target);
  }
}

/**
 * Publishes `from` at the free name `to` without ever replacing it, then drops `from`; what moves
 * must be `checked`, the entry the rules were applied to.
 */
function linkThenUnlink(
  walk: ConfinedWalk,
  fromDir: HeldDir,
  fromName: string,
  toDir: HeldDir,
  toName: string,
  checked: Stats,
  from: string,
  to: string,
) {
  try {
    linkSync(walk.at(fromDir, fromName), walk.at(toDir, toName));
  } catch (e) {
    const code = foreignCodeOf(e) ?? '';
    if (code === 'EEXIST') throw new VfsError('ALREADY_EXISTS', 'rename', to, 'the destination appeared during the move');
    if (!NO_HARD_LINKS.has(code)) throw e;
    // No hard links here: the free name was checked a moment ago; rename(2) would replace a
    // name another program created since (see the file comment).
    renameSync(walk.at(fromDir, fromName), walk.at(toDir, toName));
    return;
  }
  const moved = identityOf(lstatSync(walk.at(toDir, toName)));
  const still = lstatAt(walk, fromDir, fromName, from);
  if (!still || !sameIdentity(identityOf(still), moved) || !sameIdentity(identityOf(checked), moved)) {
    unlinkSync(walk.at(toDir, toName));
    throw new VfsError('STALE_CONTENT', 'rename', from, 'the file was replaced while it was being moved; nothing was moved');
  }
  unlinkSync(walk.at(fromDir, fromName));
}

/**
 * Shows the folder `name` of `parent` and every folder below it to the guard (depth first, each
 * opened through its parent's handle, links never descended). Throws the guard's code at the
 * folder's layer path; `TOO_DEEP` past `MAX_GUARDED_DEPTH` levels.
 */
function guardFolder(walk: ConfinedWalk, parent: HeldDir, name: string, path: string, guard: HostGuard): void {
  const op = 'rename';
  const held: HeldDir[] = [];
  try {
    const visit = (dir: HeldDir, rel: string, depth: number): void => {
      walk.checkGuard(guard, walk.identity(dir, op), op, rel);
      let names: string[];
      try {
        names = readdirSync(dir.base, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name);
        walk.verify(dir);
      } catch (e) {
        throw hostError(e, op, rel);
      }
      if (names.length === 0) return;
      if (depth >= MAX_GUARDED_DEPTH) {
        throw new VfsError('TOO_DEEP', op, path, `the folder is nested more than ${MAX_GUARDED_DEPTH} levels deep; move a deeper folder`);
      }
      for (const child of names) {
        const sub = walk.openDir(dir, child, op, true);
        held.push(sub);
        try {
          visit(sub, childPath(rel, child), depth + 1);
        } finally {
          held.pop();
          closeSync(sub.fd);
        }
      }
    };
    const top = walk.openDir(parent, name, op, true);
    held.push(top);
    visit(top, path, 0);
  } finally {
    for (const dir of held) closeSync(dir.fd);
  }
}

/** lstat of `name` in the held folder `dir`, undefined when nothing is there. */
function lstatAt(walk: ConfinedWalk, dir: HeldDir, name: string, path: string): Stats | undefined {
  try {
    return lstatSync(walk.at(dir, name));
  } catch (e) {
    if (foreignCodeOf(e) === 'ENOENT') return undefined;
    throw hostError(e, 'rename', path);
  }
}
