/**
 * `removeBeneath`: removes `<area>/<name>` and everything in it — where `area` is a folder
 * gatefs made under its state directory (`worktrees/`, `copies/`) and `name` a validated
 * conversation id — and nothing else, whatever links the tree holds or grows meanwhile.
 *
 * The walk holds a directory handle at every level and reaches each entry as
 * `/proc/self/fd/<parentFd>/<name>` (as the confined host walk does, SECURITY.md §3): the
 * kernel looks up only `<name>` inside the held folder; `lstat`, `unlink` and `rmdir` never
 * follow the last component, and folders are opened with `O_DIRECTORY | O_NOFOLLOW`, so a link
 * is removed as a link and a folder swapped for a link mid-walk fails the open instead of
 * being descended. Descriptors stay bounded: a folder deeper than `MAX_HELD` levels is renamed
 * (within the tree being removed) up to its top and emptied from there.
 *
 * Without procfs (`lstat-fallback`), entries are reached by host path and every held folder's
 * path is `lstat`ed again and compared with its handle before use: a swap between that check
 * and the next call can still slip through (the weaker guarantee `gatefs status` reports).
 *
 * Errors: `WorkspaceError` `STATE_UNTRUSTED` (data.reason `LINK_IN_STATE_DIR`) when the area
 * or the target is a link or not a folder — nothing is removed then; `DIRTY_WORKTREE`
 * (data.files) with `onlyIfEmpty` when a file is found (empty folders met before it are gone).
 * A missing target is not an error.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, renameSync, rmdirSync, unlinkSync, type Stats } from 'node:fs';
import { isConversationId } from '../../../vfs/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { foreignCodeOf } from '../../../vfs/index.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

/** Folder levels held open at once before deeper folders are moved up. */
export const MAX_HELD = 32;

/** Test seams (SECURITY.md §3.8): no-ops in production, so a test can swap a name at an exact moment. */
interface RemovalSeams {
  /** After `lstat` found the folder at `rel` (below the removed folder) and before it is opened. */
  beforeOpen?(rel: string): void;
  /** Before the entry at `rel` is looked at. */
  beforeEntry?(rel: string): void;
}

/** Options of `removeBeneath`. */
interface RemoveBeneathOptions {
  /** Walk through `/proc/self/fd` (true) or by host path with identity checks (false). */
  procfs: boolean;
  /** Remove only folders; the first file found stops the removal with `DIRTY_WORKTREE`. */
  onlyIfEmpty?: boolean;
  seams?: RemovalSeams;
}

interface Held {
  fd: number;
  /** Host path when it was opened (fallback walk and messages only). */
  path: string;
  /** Path below the removed folder, for reports ('' for its top). */
  rel: string;
  ino: number;
  dev: number;
}

/** Removes `<area>/<name>` confined to it (see the file comment). Result: true when something was removed. */
export function removeBeneath(area: string, name: string, options: RemoveBeneathOptions): boolean {
  if (!isConversationId(name)) {
    throw new WorkspaceError('STATE_UNTRUSTED', `'${String(name).slice(0, 80)}' is not a workspace folder name gatefs makes`, {
      reason: 'BAD_NAME',
    });
  }
  const walk = new Walk(options);
  const areaDir = walk.openTop(area);
  try {
    const target = walk.child(areaDir, name);
    const st = lstatOrNull(target);
    if (!st) return false;
    if (!st.isDirectory()) {
      throw untrusted(
        `'${area}/${name}' is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: gatefs did not make it, and removes nothing through it`,
      );
    }
    const top = walk.open(areaDir, name, '');
    try {
      walk.empty(top, top, 0);
    } finally {
      closeSync(top.fd);
    }
    walk.verify(areaDir);
    rmdirSync(target);
    return true;
  } finally {
    closeSync(areaDir.fd);
  }
}

class Walk {
  private moved = 0;

  constructor(private readonly options: RemoveBeneathOptions) {}

  /** Opens the area folder itself (its last component must not be a link). */
  openTop(path: string): Held {
    const st = lstatOrNull(path);
    if (!st || st.isSymbolicLink() || !st.isDirectory()) {
      throw untrusted(
        `'${path}' is ${!st ? 'missing' : st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: gatefs removes nothing through it`,
      );
    }
    const fd = openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    const held = fstatSync(fd);
    if (held.dev !== st.dev || held.ino !== st.ino) {
      closeSync(fd);
      throw untrusted(`'${path}' changed while it was opened`);
    }
    return { fd, path, rel: '', dev: st.dev, ino: st.ino };
  }

  /** The name by which `name` inside `dir` is reached. */
  child(dir: Held, name: string): string {
    if (this.options.procfs) return `/proc/self/fd/${dir.fd}/${name}`;
    this.verify(dir);
    return `${dir.path}/${name}`;
  }

  /** Fallback walk: the held folder's path must still lead to it. */
  verify(dir: Held): void {
    if (this.options.procfs) return;
    const st = lstatOrNull(dir.path);
    if (!st || st.isSymbolicLink() || st.dev !== dir.dev || st.ino !== dir.ino) {
      throw untrusted(`'${dir.path}' was replaced during the removal: stopped`);
    }
  }

  /** Opens the folder `name` inside `dir` without following a link. */
  open(dir: Held, name: string, rel: string): Held {
    const path = this.child(dir, name);
    const fd = openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    const st = fstatSync(fd);
    if (!this.options.procfs) {
      const now = lstatOrNull(path);
      if (!now || now.dev !== st.dev || now.ino !== st.ino) {
        closeSync(fd);
        throw untrusted(`'${path}' was replaced during the removal: stopped`);
      }
    }
    return { fd, path: this.options.procfs ? `${dir.path}/${name}` : path, rel, dev: st.dev, ino: st.ino };
  }

  /** Removes everything inside `dir`; `top` is the removed folder (where deep folders are moved). */
  empty(dir: Held, top: Held, depth: number): void {
    for (;;) {
      const names = readdirSync(this.options.procfs ? `/proc/self/fd/${dir.fd}` : (this.verify(dir), dir.path));
      if (names.length === 0) return;
      for (const name of names) this.removeEntry(dir, name, top, depth);
      if (depth > 0) return;
      // At the top, loop: folders moved up from deep below are emptied on the next pass.
    }
  }

  private removeEntry(dir: Held, name: string, top: Held, depth: number): void {
    const rel = dir.rel ? `${dir.rel}/${name}` : name;
    this.options.seams?.beforeEntry?.(rel);
    const path = this.child(dir, name);
    const st = lstatOrNull(path);
    if (!st) return;
    if (!st.isDirectory()) {
      if (this.options.onlyIfEmpty) {
        throw new WorkspaceError('DIRTY_WORKTREE', `'${rel}' appeared in the workspace: it is work, and was kept`, { files: [rel] });
      }
      unlinkSync(path);
      return;
    }
    if (depth + 1 >= MAX_HELD) {
      // Too deep to hold another handle: move the folder up to the top and empty it from there.
      renameSync(path, this.child(top, this.freeName(top)));
      return;
    }
    this.options.seams?.beforeOpen?.(rel);
    const sub = this.open(dir, name, rel);
    try {
      this.empty(sub, top, depth + 1);
    } finally {
      closeSync(sub.fd);
    }
    rmdirSync(this.child(dir, name));
  }

  private freeName(top: Held): string {
    for (;;) {
      const name = `.gatefs-removing-${++this.moved}`;
      if (!lstatOrNull(this.child(top, name))) return name;
    }
  }
}

function untrusted(message: string): WorkspaceError {
  return new WorkspaceError('STATE_UNTRUSTED', message, {
    reason: 'LINK_IN_STATE_DIR',
    hint: 'remove the link or file by hand after checking what it points to; gatefs never follows it',
  });
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    if (foreignCodeOf(e) === 'ENOENT') return null;
    throw e;
  }
}
