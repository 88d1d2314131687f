/**
 * Two steps the namespace takes inside one mount's layer, kept beside it: `makeParents` (the
 * missing folders above a path, for write and move) and `findProtectedInside` (what a folder
 * would carry off if it moved).
 */
import { isVfsError } from './errors.js';
import type { Layer, WritableLayer } from './layer.js';
import { childPath, parentPath, walkLayer } from './layer.js';

/**
 * Makes every missing folder above the layer path `rel`, outermost first; returns those it made
 * (for a caller that takes them back when its change fails). The layer's codes, except
 * `ALREADY_EXISTS` (an existing folder is kept as it is).
 */
export async function makeParents(layer: WritableLayer, rel: string): Promise<string[]> {
  const parent = parentPath(rel);
  const made: string[] = [];
  if (parent === '') return made;
  let dir = '';
  for (const seg of parent.split('/')) {
    dir = childPath(dir, seg);
    try {
      await layer.mkdir(dir);
      made.push(dir);
    } catch (e) {
      if (!isVfsError(e, 'ALREADY_EXISTS')) throw e;
    }
  }
  return made;
}

/**
 * The layer path of the first entry below the folder `rel` (links listed, never descended)
 * whose name or path `isProtected` refuses, or undefined. Walks the whole folder: the cost of a
 * folder move.
 */
export async function findProtectedInside(
  layer: Layer,
  rel: string,
  isProtected: (name: string, rel: string) => boolean,
): Promise<string | undefined> {
  for await (const folder of walkLayer(layer, rel)) {
    for (const e of folder.entries) {
      const path = childPath(folder.path, e.name);
      if (isProtected(e.name, path)) return path;
    }
  }
  return undefined;
}
