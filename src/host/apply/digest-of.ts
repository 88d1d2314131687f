/**
 * `digestOf`: what a layer holds at a path, as an apply `Digest` (apply-records.ts): the sha256
 * of a file's bytes, a link's target, a folder, nothing, or something else. Nothing is followed:
 * a link is its target string, and a link on the way answers what the layer answers
 * (`SYMLINK_ESCAPE` from a host folder), thrown to the caller.
 */
import { createHash } from 'node:crypto';
import { isVfsError, type Layer, type LinkReadingLayer } from '../../../vfs/index.js';
import type { Digest } from './apply-records.js';

/** The digest of `bytes` as a file. */
export function fileDigest(bytes: Uint8Array): Digest {
  return `f:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** What `layer` holds at `path`, with the file's permission bits (0 for anything but a file). */
export async function digestOf(layer: Layer, path: string): Promise<{ digest: Digest; mode: number }> {
  let stat: Awaited<ReturnType<Layer['stat']>>;
  try {
    stat = await layer.stat(path);
  } catch (e) {
    if (isVfsError(e, 'NOT_FOUND') || isVfsError(e, 'NOT_DIRECTORY')) return { digest: '-', mode: 0 };
    throw e;
  }
  switch (stat.type) {
    case 'file':
      return { digest: fileDigest(await layer.readFile(path)), mode: stat.mode & 0o777 };
    case 'directory':
      return { digest: 'd', mode: 0 };
    case 'symlink':
      return { digest: isLinkReading(layer) ? `l:${await layer.readLink(path)}` : '?', mode: 0 };
    default:
      return { digest: '?', mode: 0 };
  }
}

/** True for a digest of a file. */
export function isFileDigest(digest: Digest): boolean {
  return digest.startsWith('f:');
}

/** True when the layer reads link targets (vfs/layer.ts `LinkReadingLayer`). */
function isLinkReading(layer: Layer): layer is LinkReadingLayer {
  return typeof (layer as Partial<LinkReadingLayer>).readLink === 'function';
}
