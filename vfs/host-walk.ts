/**
 * `ConfinedWalk`: the one place where the host layer reaches the real disk by name.
 *
 * It holds an open directory handle for a root and opens any folder below it one component at a
 * time, never following a symbolic link (SECURITY.md §3 "How it holds", steps 2–3):
 *
 * - `procfs` guarantee: every name is opened as `/proc/self/fd/<parentFd>/<name>` with
 *   `O_DIRECTORY | O_NOFOLLOW`. The kernel resolves the magic link `/proc/self/fd/<parentFd>` to
 *   the held folder itself, so only `<name>` is looked up by name, inside that folder; a link
 *   there fails the open. Swapping an already opened folder for a link changes nothing: the walk
 *   continues from the handle.
 * - `lstat-fallback` guarantee (no procfs): each component is `lstat`ed, opened with
 *   `O_NOFOLLOW` by its host path, and the handle's `(dev, ino)` compared with the `lstat`.
 *   Before every later use of a folder's host path (and after a file or listing was opened
 *   through it), that path is `lstat`ed again and must still land on the held folder, so a swap
 *   of it or of any ancestor is refused with `SYMLINK_ESCAPE`. A swap and a swap back between a
 *   check and the next system call can still slip through: that is why it is reported as weaker.
 *
 * What it does not guard against (as Go `os.Root` and Rust `cap-std`): hard links, bind mounts,
 * and a folder moved out of the root by another process after it was opened (the operation then
 * lands in that folder, which was inside when it was checked).
 *
 * Every error carries a layer-relative path and no host path (vfs/host-names.ts `hostError`).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, realpathSync, statSync, statfsSync, type Stats } from 'node:fs';
import { VfsError } from './errors.js';
import { childPath } from './layer.js';
import { identityOf, sameIdentity, type HostGuard, type HostIdentity, type HostSeams } from './host-hooks.js';
import { hostError } from './host-names.js';
import { foreignCodeOf } from './coded-error.js';
import { entryPath } from './host-entry.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;
const PROC_SUPER_MAGIC = 0x9fa0;

/** How strongly the walk confines name lookups (see the file comment). */
export type HostGuarantee = 'procfs' | 'lstat-fallback';

/** A folder opened by the walk: its handle, the prefix that names its children, its layer path. */
export interface HeldDir {
  readonly fd: number;
  /** Host path prefix of the children: `/proc/self/fd/<fd>` (procfs) or the folder's host path. */
  readonly base: string;
  /** Layer-relative path of the folder ('' for the root). */
  readonly rel: string;
  /** Set when the walk needed it (a guard, or the fallback's comparison). */
  id?: HostIdentity;
  /** Reads in other threads that use the handle now (`holdDir`): it is closed only once they end. */
  holds?: number;
  /** Set when the folder was closed while held: the last `holdDir` release closes it. */
  closeWanted?: boolean;
}

/**
 * Closes a held folder's handle, now or — while reads in other threads use it (`holdDir`) — once
 * the last of them ends: a handle number closed under a running read could be reused by another
 * open, and `/proc/self/fd/<fd>/<name>` would then name a file of another folder. Never throws.
 */
export function closeHeldDir(dir: HeldDir): void {
  if (dir.holds) {
    dir.closeWanted = true;
    return;
  }
  try {
    closeSync(dir.fd);
  } catch {
    /* already closed: nothing to undo */
  }
}

/** Keeps `dir`'s handle open (see `closeHeldDir`) until the returned release is called; calling it again does nothing. */
export function holdDir(dir: HeldDir): () => void {
  dir.holds = (dir.holds ?? 0) + 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    dir.holds! -= 1;
    if (dir.holds === 0 && dir.closeWanted) {
      dir.closeWanted = false;
      closeHeldDir(dir);
    }
  };
}

/**
 * True when `/proc/self/fd` is a procfs mount (statfs type 0x9fa0) whose entries resolve to
 * open folders. Any failure answers false.
 */
export function hasProcFd(): boolean {
  try {
    return statfsSync('/proc/self/fd').type === PROC_SUPER_MAGIC;
  } catch {
    return false;
  }
}

/** True when `/proc/self/fd/<fd>` resolves to the object whose identity is `id`. */
function procLinkNames(fd: number, id: HostIdentity): boolean {
  try {
    return sameIdentity(identityOf(statSync(`/proc/self/fd/${fd}`)), id);
  } catch {
    return false;
  }
}

/** A folder another walk reached without following links, handed over as the root of a new walk. */
interface AdoptedRoot {
  /** The open handle (the new walk owns it from now on). */
  readonly fd: number;
  /** Its host path as the walk reached it (used by the fallback walk). */
  readonly path: string;
  readonly guarantee: HostGuarantee;
}

export class ConfinedWalk {
  /** The held root folder. */
  readonly root: HeldDir;
  readonly guarantee: HostGuarantee;
  private closed = false;

  /**
   * Opens `dir` (a trusted host path, resolved once, links in it followed) and holds it, or
   * adopts a folder another walk reached (`AdoptedRoot`, see `walkBelow`).
   * `preferProcfs` asks for the procfs walk; it is used only when `/proc/self/fd` is procfs
   * and `/proc/self/fd/<rootFd>` really names the held root (not so in a foreign pid
   * namespace, for instance); otherwise the walk is `lstat-fallback`. An adopted root keeps the
   * guarantee of the walk that reached it.
   * `NOT_FOUND` when `dir` does not exist, `NOT_DIRECTORY` when it is not a folder.
   */
  constructor(
    dir: string | AdoptedRoot,
    preferProcfs: boolean,
    readonly seams: HostSeams = {},
  ) {
    if (typeof dir !== 'string') {
      let id: HostIdentity;
      try {
        id = identityOf(fstatSync(dir.fd));
      } catch (e) {
        closeSync(dir.fd);
        throw hostError(e, 'open', '');
      }
      this.guarantee = dir.guarantee;
      this.root = { fd: dir.fd, base: this.guarantee === 'procfs' ? `/proc/self/fd/${dir.fd}` : dir.path, rel: '', id };
      return;
    }
    let fd: number;
    let real: string;
    try {
      real = realpathSync(dir);
      fd = openSync(real, O_RDONLY | O_DIRECTORY);
    } catch (e) {
      throw hostError(e, 'open', '');
    }
    const id = identityOf(fstatSync(fd));
    this.guarantee = preferProcfs && hasProcFd() && procLinkNames(fd, id) ? 'procfs' : 'lstat-fallback';
    const base = this.guarantee === 'procfs' ? `/proc/self/fd/${fd}` : real;
    this.root = { fd, base, rel: '', id };
  }

  /**
   * A new walk rooted at the folder `segments` below this root, reached as `openChain` reaches
   * any folder: one component at a time, no link followed (a link on the way is
   * `SYMLINK_ESCAPE`). It holds its own handle, so this walk may be closed afterwards, and has
   * the same guarantee. `NOT_FOUND`, `NOT_DIRECTORY`, `SYMLINK_ESCAPE`, `BUSY`.
   */
  walkBelow(segments: readonly string[], seams: HostSeams = {}): ConfinedWalk {
    let fd: number;
    let path: string;
    if (segments.length === 0) {
      // The root itself, opened again: through its magic link (procfs), or by its host path
      // without following a link there and checked against the held root (fallback).
      this.checkOpen('open', '');
      try {
        fd = openSync(this.root.base, O_RDONLY | O_DIRECTORY | (this.guarantee === 'procfs' ? 0 : O_NOFOLLOW));
      } catch (e) {
        throw hostError(e, 'open', '');
      }
      if (!sameIdentity(identityOf(fstatSync(fd)), this.root.id!)) {
        closeSync(fd);
        throw new VfsError('SYMLINK_ESCAPE', 'open', '', 'the path changed while it was being opened');
      }
      path = this.root.base;
    } else {
      const chain = this.openChain(segments, 'open');
      const last = chain[chain.length - 1];
      fd = last.fd;
      path = last.base;
    }
    return new ConfinedWalk({ fd, path, guarantee: this.guarantee }, false, seams);
  }

  /**
   * The host path that names `name` inside `dir` (never shown to anyone; vfs/host-entry.ts
   * `entryPath`: `BAD_NAME` unless `name` is one entry name). In the fallback, the folder's host
   * path is first re-checked against its handle's identity (`SYMLINK_ESCAPE` when it no longer
   * lands there), which narrows, but cannot close, the race window.
   */
  at(dir: HeldDir, name: string): string {
    if (this.guarantee === 'lstat-fallback') this.recheck(dir);
    return entryPath(dir, name);
  }

  /**
   * The host path of `name` in `dir` without the fallback's re-check: only for removing a temp
   * file this layer created under a unique name, when the operation already failed.
   */
  uncheckedAt(dir: HeldDir, name: string): string {
    return entryPath(dir, name);
  }

  /** Throws `INTERNAL` once the layer is closed. */
  checkOpen(op: string, path: string): void {
    if (this.closed) throw new VfsError('INTERNAL', op, path, 'the host layer is closed');
  }

  /**
   * Opens the folders `segments` one at a time from the root and returns `[root]` or
   * `[root, last]` (the caller closes it with `release`). Each folder's handle is held until its
   * child is open, and the last one until the operation ends. With a guard, every folder on the
   * way is shown to it with `op`; a returned code is thrown at that folder's path.
   * `NOT_FOUND`, `NOT_DIRECTORY`, `SYMLINK_ESCAPE`, `READ_ONLY`, `PROTECTED_PATH`.
   */
  openChain(segments: readonly string[], op: string, guard?: HostGuard): HeldDir[] {
    this.checkOpen(op, segments.join('/'));
    const chain: HeldDir[] = [this.root];
    try {
      if (guard) this.applyGuard(guard, this.root, op);
      for (const name of segments) {
        const last = chain[chain.length - 1];
        const next = this.openDir(last, name, op, guard !== undefined);
        if (last !== this.root) {
          // The child's handle alone pins the walk: an ancestor's handle adds nothing, and
          // holding one per level would let a deep path use up the process's descriptors.
          chain[chain.length - 1] = next;
          closeSync(last.fd);
        } else chain.push(next);
        if (guard) this.applyGuard(guard, next, op);
      }
      return chain;
    } catch (e) {
      this.release(chain);
      throw e;
    }
  }

  /** Closes every handle of a chain except the root (`closeHeldDir`). Never throws. */
  release(chain: readonly HeldDir[]): void {
    for (const dir of chain) if (dir !== this.root) closeHeldDir(dir);
  }

  /**
   * Opens the folder `name` inside `parent` without following a link.
   * `SYMLINK_ESCAPE` for a link, `NOT_DIRECTORY` for anything else that is not a folder.
   */
  openDir(parent: HeldDir, name: string, op: string, wantId: boolean): HeldDir {
    const rel = childPath(parent.rel, name);
    this.seams.beforeStep?.({ op, path: rel });
    const path = this.at(parent, name);
    if (this.guarantee === 'lstat-fallback') return this.openDirChecked(parent, path, rel, op);
    let fd: number;
    try {
      fd = openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      throw this.classifyOpenFailure(e, path, op, rel);
    }
    const dir: HeldDir = { fd, base: `/proc/self/fd/${fd}`, rel };
    if (wantId) dir.id = this.identity(dir, op);
    return dir;
  }

  /** The identity of a held folder (cached). */
  identity(dir: HeldDir, op: string): HostIdentity {
    if (!dir.id) {
      try {
        dir.id = identityOf(fstatSync(dir.fd));
      } catch (e) {
        throw hostError(e, op, dir.rel);
      }
    }
    return dir.id;
  }

  /** Shows `id` to the guard and throws the code it returns at `path`. */
  checkGuard(guard: HostGuard, id: HostIdentity, op: string, path: string): void {
    const code = guard(id, op);
    if (code) throw new VfsError(code, op, path);
  }

  /** Closes the root handle; later calls throw `INTERNAL`. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeHeldDir(this.root);
  }

  /** Fallback only: `SYMLINK_ESCAPE` when the folder's host path no longer lands on the held folder. */
  verify(dir: HeldDir): void {
    if (this.guarantee === 'lstat-fallback') this.recheck(dir);
  }

  /**
   * One `lstat` of the folder's host path: if it still lands on the held folder's own inode, the
   * path names that folder now, whatever its ancestors did (a swapped ancestor would make it land
   * elsewhere). The held handle keeps the inode allocated, so its number cannot be reused.
   */
  private recheck(dir: HeldDir): void {
    let now: HostIdentity;
    try {
      now = identityOf(lstatSync(dir.base));
    } catch (e) {
      throw new VfsError('SYMLINK_ESCAPE', 'walk', dir.rel, 'the path changed during the operation', {
        cause: hostError(e, 'walk', dir.rel),
      });
    }
    if (!sameIdentity(now, this.identity(dir, 'walk'))) {
      throw new VfsError('SYMLINK_ESCAPE', 'walk', dir.rel, 'the path changed during the operation');
    }
  }

  private applyGuard(guard: HostGuard, dir: HeldDir, op: string): void {
    this.checkGuard(guard, this.identity(dir, op), op, dir.rel);
  }

  /** ENOTDIR/ELOOP from an `O_DIRECTORY | O_NOFOLLOW` open: a link or a plain non-folder? */
  private classifyOpenFailure(e: unknown, path: string, op: string, rel: string): VfsError {
    const code = foreignCodeOf(e);
    if (code !== 'ENOTDIR' && code !== 'ELOOP') return hostError(e, op, rel);
    let now: Stats;
    try {
      now = lstatSync(path);
    } catch (inner) {
      return hostError(inner, op, rel);
    }
    if (now.isSymbolicLink()) return new VfsError('SYMLINK_ESCAPE', op, rel);
    // A folder now, but the open refused it: something else was there a moment ago.
    if (now.isDirectory()) return new VfsError('SYMLINK_ESCAPE', op, rel, 'the path changed while it was being opened');
    return new VfsError('NOT_DIRECTORY', op, rel);
  }

  /** The fallback step: lstat, open with O_NOFOLLOW, compare identities, re-check the parent's path. */
  private openDirChecked(parent: HeldDir, path: string, rel: string, op: string): HeldDir {
    let before: Stats;
    try {
      before = lstatSync(path);
    } catch (e) {
      throw hostError(e, op, rel);
    }
    if (before.isSymbolicLink()) throw new VfsError('SYMLINK_ESCAPE', op, rel);
    if (!before.isDirectory()) throw new VfsError('NOT_DIRECTORY', op, rel);
    let fd: number;
    try {
      fd = openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      throw this.classifyOpenFailure(e, path, op, rel);
    }
    const dir: HeldDir = { fd, base: path, rel };
    try {
      const id = this.identity(dir, op);
      const parentNow = identityOf(lstatSync(parent.base));
      const parentId = this.identity(parent, op);
      if (!sameIdentity(id, identityOf(before)) || !sameIdentity(parentNow, parentId)) {
        throw new VfsError('SYMLINK_ESCAPE', op, rel, 'the path changed during the walk');
      }
      return dir;
    } catch (e) {
      closeSync(fd);
      throw hostError(e, op, rel);
    }
  }
}
