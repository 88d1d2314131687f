/**
 * The rules every layer's `rename` applies before it moves anything (vfs/layer.ts
 * `WritableLayer.rename`), in one place so that every layer refuses the same moves with the same
 * codes: `checkRenamePaths` on the two paths alone, `checkRenameKinds` once the layer knows what
 * is at each end.
 *
 * Decisions (what `move` promises, after the MCP reference server's `move_file`, which refuses
 * an existing destination, and POSIX rename(2)):
 * - the root of a layer is never moved, nor moved onto (`INVALID_INPUT`);
 * - `from` and `to` naming one entry is `INVALID_INPUT` (a move onto itself is a mistake, not a
 *   no-op an agent would take for success);
 * - a folder moved below itself is `INVALID_INPUT` (rename(2) says `EINVAL`);
 * - a special file (FIFO, socket, device) is never moved nor replaced (`NOT_REGULAR_FILE`);
 * - a folder at `to` is `IS_DIRECTORY` whatever `overwrite` says: `move` never moves *into* a
 *   folder (name the new path in full) and never replaces one;
 * - anything else at `to` is `ALREADY_EXISTS` unless `overwrite` and `from` is a file or link,
 *   which then replaces it (a folder never replaces a file).
 */
import { VfsError } from './errors.js';
import type { EntryType, RenameOptions } from './layer.js';

/** True when the layer path `path` is `dir` or lies below it. */
export function isAtOrBelow(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/**
 * Refuses what the two layer paths alone rule out (`INVALID_INPUT`): the root at either end,
 * the same path twice. Call it after `checkLayerPath` of both.
 */
export function checkRenamePaths(from: string, to: string, op = 'rename'): void {
  if (from === '') throw new VfsError('INVALID_INPUT', op, from, 'the root of a mount cannot be moved');
  if (to === '') throw new VfsError('INVALID_INPUT', op, to, 'nothing can be moved onto the root of a mount');
  if (from === to) throw new VfsError('INVALID_INPUT', op, to, 'the source and the destination are the same path');
}

/**
 * Refuses a move by what is at each end (see the file comment): `from` is of type `source`,
 * `to` holds `target` (undefined when free). `NOT_REGULAR_FILE`, `INVALID_INPUT`,
 * `IS_DIRECTORY`, `ALREADY_EXISTS`, each at the path it concerns.
 */
export function checkRenameKinds(
  from: string,
  to: string,
  source: EntryType,
  target: EntryType | undefined,
  options: RenameOptions = {},
  op = 'rename',
): void {
  if (source === 'other') throw new VfsError('NOT_REGULAR_FILE', op, from, 'a special file (FIFO, socket, device) is never moved');
  if (source === 'directory' && isAtOrBelow(to, from)) {
    throw new VfsError('INVALID_INPUT', op, to, 'a folder cannot be moved inside itself');
  }
  if (target === undefined) return;
  if (target === 'directory') {
    throw new VfsError(
      'IS_DIRECTORY',
      op,
      to,
      'the destination is a folder; move never moves into or replaces a folder: name the new path in full',
    );
  }
  if (target === 'other') throw new VfsError('NOT_REGULAR_FILE', op, to, 'the destination is a special file, which is never replaced');
  if (source === 'directory') throw new VfsError('ALREADY_EXISTS', op, to, 'the destination exists; a folder never replaces a file');
  if (!options.overwrite) throw new VfsError('ALREADY_EXISTS', op, to, 'the destination exists; pass overwrite: true to replace it');
}
