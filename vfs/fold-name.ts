/**
 * `foldName`: one name as a case-insensitive, normalization-insensitive filesystem would see it,
 * for comparing an agent's path with a name gatefs protects (the state directory, `gatefs.yaml`).
 *
 * On Linux `GATEFS.yaml` and `gatefs.yaml` are two files, but on macOS (APFS, HFS+) and Windows
 * (NTFS) they are one, and NTFS also drops trailing periods and spaces and reads `name:stream`
 * as `name`; HFS+ ignores zero-width characters. Folding with all of those rules at once can
 * only make more names match a protected one, never fewer: a user on Linux loses at most the
 * right to write a file named like `GATEFS.YAML.`.
 */

/** Code points HFS+ ignores in names (as vfs/dot-git-name.ts). */
const IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * The folded form of one path segment: ignorable code points removed, NFKC-normalized,
 * case-folded (upper then lower, so `ſ`, `K` and the like land on their ASCII letters), an
 * NTFS stream suffix (`:…`) and trailing periods and spaces dropped.
 */
export function foldName(name: string): string {
  let out = name.replace(IGNORED, '').normalize('NFKC').toUpperCase().toLowerCase();
  const colon = out.indexOf(':');
  if (colon >= 0) out = out.slice(0, colon);
  let end = out.length;
  while (end > 0 && (out[end - 1] === '.' || out[end - 1] === ' ')) end--;
  return out.slice(0, end);
}

/** True when two layer- or namespace-relative paths name the same thing once every segment is folded. */
export function sameFoldedPath(a: string, b: string): boolean {
  if (a === b) return true;
  const as = a.split('/');
  const bs = b.split('/');
  return as.length === bs.length && as.every((s, i) => foldName(s) === foldName(bs[i]));
}

/**
 * How `path` relates to `top` once folded: 'same', 'below' (inside it), 'above' (one of its
 * ancestors, '' included) or undefined (unrelated). Both are '/'-separated relative paths or
 * both absolute.
 */
export function foldedRelation(path: string, top: string): 'same' | 'below' | 'above' | undefined {
  const ps = path === '' ? [] : path.split('/');
  const ts = top === '' ? [] : top.split('/');
  const n = Math.min(ps.length, ts.length);
  for (let i = 0; i < n; i++) if (ps[i] !== ts[i] && foldName(ps[i]) !== foldName(ts[i])) return undefined;
  if (ps.length === ts.length) return 'same';
  return ps.length > ts.length ? 'below' : 'above';
}
