/**
 * `openHostFolder`: a configured host folder (a workspace root, a mount) opened as a
 * `HostLayer` without following any link on the way to it, below a trusted anchor.
 *
 * The anchors are folders whose host paths the operator gave and gatefs resolved once at start
 * (the repository, the state directory). The folder is reached from the deepest anchor that
 * contains it, one component at a time with `O_NOFOLLOW` (`HostLayer.openBelow`): a mount named
 * `.campaign` that the repository turned into a link to `/etc`, a `worktrees/<id>` swapped for
 * a link, are refused with `SYMLINK_ESCAPE` instead of being served. A folder under no anchor
 * (an absolute mount such as `/data/out`) is reached from `/` the same way, so its configured
 * path must be its real path: one with a link in it (`/var/…` where `/var` links elsewhere) is
 * refused, naming the component.
 *
 * What it does not guard against: links inside the anchors' own paths (they are trusted, as
 * resolved at start), bind mounts.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { VfsError } from './errors.js';
import { openHostLayer, type HostLayer, type HostLayerOptions } from './host-layer.js';

/**
 * Opens the absolute host folder `path` below the deepest of `anchors` holding it (or `/`),
 * following no link between the anchor and the folder. `options` apply to the returned layer.
 * `BAD_NAME` for a relative path; `NOT_FOUND`, `NOT_DIRECTORY`, `SYMLINK_ESCAPE` (at the
 * anchor-relative path of the offending component), `BUSY`.
 */
export function openHostFolder(path: string, anchors: readonly string[], options: HostLayerOptions = {}): HostLayer {
  if (!isAbsolute(path)) throw new VfsError('BAD_NAME', 'open', '', 'a host folder must be named by an absolute path');
  let anchor = '/';
  let rel = relative('/', path);
  for (const a of anchors) {
    const r = relative(a, path);
    const inside = r === '' || (!isAbsolute(r) && r !== '..' && !r.startsWith(`..${sep}`));
    if (inside && (anchor === '/' || a.length > anchor.length)) {
      anchor = a;
      rel = r;
    }
  }
  const segments = rel === '' ? '' : rel.split(sep).join('/');
  if (segments === '') return openHostLayer(anchor, options);
  const held = openHostLayer(anchor, options.forceFallback ? { forceFallback: true } : {});
  try {
    return held.openBelow(segments, options);
  } finally {
    held.close();
  }
}
