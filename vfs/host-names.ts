/**
 * Crossing the host boundary safely in both directions: `layerSegments` checks a layer path
 * again before any part of it reaches the kernel, and `hostError` turns a Node errno error into
 * a VfsError whose cause keeps no host path.
 */
import { VfsError, fromErrno } from './errors.js';
import { checkLayerPath } from './layer-path.js';
import { foreignCodeOf } from './coded-error.js';

/** A VfsError from a Node errno error, keeping only `code`, `errno` and `syscall` as its cause. */
export function hostError(e: unknown, op: string, path: string): VfsError {
  if (e instanceof VfsError) return e;
  const sys = e instanceof Error ? (e as NodeJS.ErrnoException) : undefined;
  return fromErrno({ code: foreignCodeOf(e), errno: sys?.errno, syscall: sys?.syscall }, op, path);
}

/**
 * The segments of a layer-relative path ('' → []), checked again here although the grammar
 * already did (vfs/layer-path.ts `checkLayerPath`: a '..' handed to the kernel under a held
 * folder would climb out of it). `BAD_NAME`, `NAME_TOO_LONG`.
 */
export function layerSegments(path: string, op: string): string[] {
  checkLayerPath(path, op);
  return path === '' ? [] : path.split('/');
}

/** The folders leading to `path` (its checked segments without the last). */
export function parentSegmentsOf(path: string, op: string): string[] {
  return layerSegments(path, op).slice(0, -1);
}
