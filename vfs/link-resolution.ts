/**
 * `resolveBeneath`: an agent's path resolved the way Linux resolves it under
 * `openat2(RESOLVE_BENEATH)` and Go's `os.Root` does — symbolic links followed while they stay
 * beneath their mount, `..` taken physically — into a namespace path with no link on the way.
 * The namespace calls it (`Namespace.resolveLinks`) for every path a tool names, on every
 * layer stack: layers never follow a link themselves (vfs/layer.ts); they only report one
 * (`stat`, `SYMLINK_ESCAPE` at the link's path) and read its text (`readLink`).
 *
 * Rules:
 * - a link is followed when its target, taken relative to the link's folder, stays inside the
 *   link's own mount: an absolute target, a target whose `..` climbs above the mount root, or
 *   one that lands in another (nested) mount is `SYMLINK_ESCAPE`, at the link's path;
 * - `..` after a link applies to where the link led (`a/../t` with `a -> b/c` is `b/t`); `..`
 *   after a real folder or a missing name is the lexical parent, as before; an agent's `..`
 *   that leaves the namespace is `PATH_ESCAPE` (a path climbing above its mount root into
 *   nothing), one into a parent mount is allowed as the grammar allows it;
 * - at most `MAX_LINK_HOPS` links per path (Linux's `MAXSYMLINKS`), then `SYMLINK_ESCAPE`;
 * - the last component is followed only when `followFinal` (read, write, edit, list, grep);
 *   delete and move act on a final link itself;
 * - names git treats as `.git` are never looked into (the namespace hides them anyway).
 *
 * Why this is safe although it checks first and acts later: the result is only a path. The
 * operation that follows walks it again from the mount's held root through the layer, which
 * never follows a link; a link swapped in between makes that walk fail (`SYMLINK_ESCAPE`),
 * never reach outside. A link's text never appears in an error (it may be a host path).
 *
 * Cost: one `stat` per run of names without a link (one for a plain path), plus a `stat` and a
 * `readLink` per link followed.
 */
import { VfsError, isVfsError } from './errors.js';
import { isLinkReadingLayer } from './layer.js';
import type { Mount, Resolved } from './mount-table.js';
import { MAX_NAME_BYTES, MAX_PATH_BYTES, segmentsOf, utf8Length } from './path.js';
import { isDotGitName } from './dot-git-name.js';

/** Links followed in one path before `SYMLINK_ESCAPE` (as Linux's `MAXSYMLINKS`). */
export const MAX_LINK_HOPS = 40;

/** What the resolution needs of the namespace. */
export interface LinkResolutionView {
  /** The mount serving an absolute namespace path (longest whole-segment match), if any. */
  find(path: string): Resolved | undefined;
  /** True when an absolute namespace path lies in the namespace (a mount serves it). */
  isInside(path: string): boolean;
}

/**
 * One pending name; for a name of a link's target, the link's mount (the name must stay there)
 * and the link's namespace path (what an error names).
 */
interface Pending {
  name: string;
  from?: Mount;
  via?: string;
}

/** A link found on the way: its index among the candidate's segments, its mount and layer path. */
interface FoundLink {
  index: number;
  mount: Mount;
  rel: string;
}

/**
 * Resolves `segments` (an absolute namespace path's segments, '..' kept: vfs/path.ts
 * `namespaceSegments`) into a link-free absolute namespace path (see the file comment).
 * `shown` is the input as the agent wrote it, for `PATH_ESCAPE`. Codes: `SYMLINK_ESCAPE`,
 * `PATH_ESCAPE`, `NAME_TOO_LONG`, and a layer's unexpected errors (`INTERNAL`, `BUSY`) at
 * namespace paths.
 */
export async function resolveBeneath(
  view: LinkResolutionView,
  segments: readonly string[],
  followFinal: boolean,
  op: string,
  shown: string,
): Promise<string> {
  let done: string[] = [];
  let pending: Pending[] = segments.map((name) => ({ name }));
  let hops = 0;
  while (pending.length > 0) {
    if (pending[0].name === '..') {
      const up = pending.shift()!;
      if (up.from && done.length <= segmentsOf(up.from.path).length) {
        throw new VfsError('SYMLINK_ESCAPE', op, up.via!, "the link's target climbs above its mount");
      }
      done.pop();
      if (!up.from && !view.isInside(`/${done.join('/')}`))
        throw new VfsError('PATH_ESCAPE', op, shown, "'..' climbs out of the namespace");
      continue;
    }
    let n = 0;
    while (n < pending.length && pending[n].name !== '..') n++;
    const run = pending.slice(0, n);
    const candidate = [...done, ...run.map((p) => p.name)];
    const link = await firstLink(view, candidate, done.length, n < pending.length || followFinal);
    const accepted = link ? link.index - done.length : run.length;
    checkOrigins(view, candidate, done.length, run.slice(0, link ? accepted + 1 : accepted), op);
    if (!link) {
      done = candidate;
      pending = pending.slice(n);
      continue;
    }
    if (++hops > MAX_LINK_HOPS) {
      throw new VfsError('SYMLINK_ESCAPE', op, absolute(candidate.slice(0, link.index + 1)), `more than ${MAX_LINK_HOPS} links on the way`);
    }
    const target = await linkTarget(link, op);
    const via = absolute(candidate.slice(0, link.index + 1));
    done = candidate.slice(0, link.index);
    pending = [...target.map((name) => ({ name, from: link.mount, via })), ...run.slice(accepted + 1), ...pending.slice(n)];
  }
  const path = absolute(done);
  if (utf8Length(path) > MAX_PATH_BYTES)
    throw new VfsError('NAME_TOO_LONG', op, shown, 'the path is longer than 4096 bytes once its links are followed');
  return path;
}

function absolute(segments: readonly string[]): string {
  return `/${segments.join('/')}`;
}

/**
 * The first link among `candidate`'s segments past the `verified` ones (a link-free prefix),
 * found with one `stat` of the whole candidate: a layer names the link it meets on the way
 * (`SYMLINK_ESCAPE` at the link's path), and reports a last component that is a link as
 * `symlink` (followed only when `followLast`). Undefined when there is none, or nothing more to
 * learn (a missing name, a file on the way, a hidden or undisclosed entry: the operation then
 * answers for itself).
 */
async function firstLink(
  view: LinkResolutionView,
  candidate: readonly string[],
  verified: number,
  followLast: boolean,
): Promise<FoundLink | undefined> {
  if (candidate.length === verified || candidate.slice(verified).some(isDotGitName)) return undefined;
  const r = view.find(absolute(candidate));
  if (!r || r.rel === '') return undefined;
  const base = segmentsOf(r.mount.path).length;
  const at = (rel: string): FoundLink => ({ index: base + rel.split('/').length - 1, mount: r.mount, rel });
  try {
    const st = await r.mount.layer.stat(r.rel);
    return st.type === 'symlink' && followLast ? at(r.rel) : undefined;
  } catch (e) {
    if (!isVfsError(e)) throw e;
    if (e.code === 'SYMLINK_ESCAPE' && (r.rel.startsWith(`${e.path}/`) || (followLast && e.path === r.rel)) && e.path !== '') {
      const link = at(e.path);
      if (link.index >= verified) return link;
    }
    if (e.code === 'NOT_FOUND' || e.code === 'NOT_DIRECTORY' || e.code === 'NOT_DISCLOSED') return undefined;
    throw e.withPath(e.path === '' ? r.mount.path : `${r.mount.path}/${e.path}`);
  }
}

/**
 * `SYMLINK_ESCAPE` when a name that came from a link's target is served by another mount than
 * the link's (a link into a nested mount, or out of its mount into the parent's).
 */
function checkOrigins(view: LinkResolutionView, candidate: readonly string[], verified: number, run: readonly Pending[], op: string) {
  for (let i = 0; i < run.length; i++) {
    const origin = run[i].from;
    if (!origin) continue;
    const served = view.find(absolute(candidate.slice(0, verified + i + 1)));
    if (served?.mount !== origin) throw new VfsError('SYMLINK_ESCAPE', op, run[i].via!, "the link's target lands in another mount");
  }
}

/** The segments of the target of `link`, refused unless it can stay beneath the mount. */
async function linkTarget(link: FoundLink, op: string): Promise<string[]> {
  const shownAt = `${link.mount.path}/${link.rel}`;
  const layer = link.mount.layer;
  if (!isLinkReadingLayer(layer)) throw new VfsError('SYMLINK_ESCAPE', op, shownAt, 'links are not followed in this mount');
  let text: string;
  try {
    text = await layer.readLink(link.rel);
  } catch (e) {
    if (
      isVfsError(e) &&
      (e.code === 'NOT_SYMLINK' || e.code === 'NOT_FOUND' || e.code === 'NOT_DIRECTORY' || e.code === 'SYMLINK_ESCAPE')
    ) {
      throw new VfsError('SYMLINK_ESCAPE', op, shownAt, 'the link changed while it was being followed', { cause: e });
    }
    throw isVfsError(e) ? e.withPath(shownAt) : e;
  }
  if (text === '' || text.startsWith('/'))
    throw new VfsError('SYMLINK_ESCAPE', op, shownAt, 'the link has an absolute target, which is never followed');
  const segments = text.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s.includes('\0') || utf8Length(s) > MAX_NAME_BYTES)) {
    throw new VfsError('SYMLINK_ESCAPE', op, shownAt, 'the link target is not a path');
  }
  return segments;
}
