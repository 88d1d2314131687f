/**
 * Crossing the host boundary safely in both directions: `layerSegments` checks a layer path
 * again before any part of it reaches the kernel, and `hostError` turns a Node errno error into
 * a VfsError whose cause keeps no host path.
 */
import { VfsError, fromErrno } from './errors.js';
import { foreignCodeOf } from './coded-error.js';

/** A VfsError from a Node errno error, keeping only `code`, `errno` and `syscall` as its cause. */
export function hostError(e: unknown, op: string, path: string): VfsError {
  if (e instanceof VfsError) return e;
  const sys = e instanceof Error ? (e as NodeJS.ErrnoException) : undefined;
  return fromErrno({ code: foreignCodeOf(e), errno: sys?.errno, syscall: sys?.syscall }, op, path);
}

/**
 * The segments of a layer-relative path ('' → []), checked again here although the grammar
 * already did: an empty, '.' or '..' segment, or a NUL, is `BAD_NAME` (a '..' handed to the
 * kernel under a held folder would climb out of it).
 */
export function layerSegments(path: string, op: string): string[] {
  if (typeof path !== 'string') throw new VfsError('BAD_NAME', op, '', 'the path is not a string');
  if (path === '') return [];
  const segs = path.split('/');
  for (const seg of segs) {
    if (seg === '' || seg === '.' || seg === '..' || seg.includes('\0')) {
      throw new VfsError('BAD_NAME', op, path.replace(/\0/g, '\\0'), 'not a layer-relative path');
    }
  }
  return segs;
}

/** The folders leading to `path` (its checked segments without the last). */
export function parentSegmentsOf(path: string, op: string): string[] {
  return layerSegments(path, op).slice(0, -1);
}
