/**
 * `SourceFolder`: the folder a `copy` workspace was copied from, as the one place an apply
 * changes, opened as a confined host layer (`HostPlatform.openFolder`: held folder handles, no
 * link followed, SECURITY.md §3) with the state directory hidden in it (`withPathRules`).
 *
 * Every path is hostile (it comes from the copy's upper folder, which the agent's commands
 * write): before anything is looked at, a path whose segment git treats as `.git`
 * (`isDotGitName`), that names the state directory or a file granting authority (the manifest,
 * the settings), or that names an apply's own temp files is refused with `PROTECTED_PATH`; a link
 * on the way is the layer's `SYMLINK_ESCAPE`, so nothing outside the folder is read or written.
 *
 * A file is written by replace, atomically: a temp file created exclusively in the same folder
 * with the new bytes and mode, then renamed over the name (rename replaces a link instead of
 * following it, and never changes a hard-linked inode in place). So a reader, or a crash, sees
 * the old file or the new one.
 */
import { createHash } from 'node:crypto';
import { VfsError, baseName, isDotGitName, isVfsError, parentPath, withPathRules, type WritableLayer } from '../../../vfs/index.js';
import type { HostPlatform } from '../platform/index.js';
import type { Digest } from './apply-records.js';
import { digestOf } from './digest-of.js';

/** The name prefix of an apply's temp files (never applied, never left behind by a finished apply). */
export const TEMP_PREFIX = '.gatefs-apply-';

/** The source folder of one apply (see the file comment). Close it when done. */
export class SourceFolder {
  private readonly layer: WritableLayer;
  private readonly protectedPaths: readonly string[];

  private constructor(
    layer: WritableLayer,
    protectedPaths: readonly string[],
    readonly close: () => void,
  ) {
    this.layer = layer;
    this.protectedPaths = protectedPaths;
  }

  /** Opens `platform.repo` (throws what `openFolder` throws). */
  static open(platform: HostPlatform): SourceFolder {
    const folder = platform.openFolder(platform.repo);
    const state = platform.relativeInside(platform.repo, platform.stateDir);
    const authority = (platform.authorityFiles ?? [])
      .map((f) => platform.relativeInside(platform.repo, f))
      .filter((rel): rel is string => rel !== null && rel !== '');
    const layer = state === null || state === '' ? folder.layer : withPathRules(folder.layer, { hidden: state });
    return new SourceFolder(layer, [...(state ? [state] : []), 'gatefs.yaml', ...authority], () => folder.close());
  }

  /** `PROTECTED_PATH` unless `path` may be changed by an apply (see the file comment). */
  check(path: string): void {
    const refuse = (why: string) => {
      throw new VfsError('PROTECTED_PATH', 'apply', path, why);
    };
    if (path === '') refuse('the source folder itself');
    for (const segment of path.split('/')) if (isDotGitName(segment)) refuse('a .git name');
    for (const p of this.protectedPaths) if (path === p || path.startsWith(`${p}/`)) refuse('the state directory or an authority file');
    if (baseName(path).startsWith(TEMP_PREFIX)) refuse('a name an apply uses for its temp files');
  }

  /** What the source holds at `path` (after `check`). */
  async digest(path: string): Promise<{ digest: Digest; mode: number }> {
    this.check(path);
    return digestOf(this.layer, path);
  }

  /** The names in the folder `path` (`NOT_FOUND`, `NOT_DIRECTORY`, `SYMLINK_ESCAPE` as the layer answers). */
  async list(path: string): Promise<{ name: string; type: string }[]> {
    return this.layer.readdir(path);
  }

  /**
   * Writes `bytes` at `path` with `mode` by replace (see the file comment); `beforePublish`
   * runs once the temp file holds them, and may throw to abandon the write (the temp file is
   * removed). A leftover temp file of an earlier, interrupted write is removed first.
   */
  async writeFile(path: string, bytes: Uint8Array, mode: number, beforePublish: () => Promise<void>): Promise<void> {
    this.check(path);
    const temp = tempOf(path);
    await this.removeTemp(path);
    await this.layer.writeFile(temp, bytes, { exclusive: true, mode });
    try {
      await beforePublish();
      await this.layer.rename(temp, path, { overwrite: true });
    } catch (e) {
      await this.layer.remove(temp).catch(() => undefined);
      throw e;
    }
  }

  /** Removes the file or link at `path` (never what a link points to). */
  async remove(path: string): Promise<void> {
    this.check(path);
    await this.layer.remove(path, { fileOnly: true });
  }

  /** Makes the folder `path` (its parent must exist); an existing folder is fine. */
  async mkdir(path: string): Promise<void> {
    this.check(path);
    try {
      await this.layer.mkdir(path);
    } catch (e) {
      if (!isVfsError(e, 'ALREADY_EXISTS') || (await digestOf(this.layer, path)).digest !== 'd') throw e;
    }
  }

  /** Removes the folder `path` when it is empty (`NOT_EMPTY` otherwise); a missing one is fine. */
  async rmdir(path: string): Promise<void> {
    this.check(path);
    await this.layer.remove(path).catch((e: unknown) => (isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
  }

  /** Removes the temp file an interrupted write of `path` may have left (only a regular file of that name). */
  async removeTemp(path: string): Promise<void> {
    const temp = tempOf(path);
    const st = await this.layer.stat(temp).catch((e: unknown) => (isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
    if (st?.type === 'file') await this.layer.remove(temp);
  }
}

/** The temp file of a write of `path`: in the same folder, named from the path's hash. */
function tempOf(path: string): string {
  const name = `${TEMP_PREFIX}${createHash('sha256').update(path).digest('hex').slice(0, 16)}`;
  const parent = parentPath(path);
  return parent === '' ? name : `${parent}/${name}`;
}
