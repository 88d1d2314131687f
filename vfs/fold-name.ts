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

/** How a path relates to another once folded: the same, inside it, one of its ancestors, or none. */
export type FoldedRelation = 'same' | 'below' | 'above' | undefined;

/**
 * A path folded once (`foldName` on every segment), to compare many paths with it cheaply:
 * `relation(path)` folds only the segments of `path` it needs, and skips folding where the
 * segments are equal as written.
 */
export class FoldedPath {
  private readonly segments: readonly string[];
  private readonly folded: readonly string[];

  /** `path`: '/'-separated, relative ('' for the root) or absolute. */
  constructor(readonly path: string) {
    this.segments = path === '' ? [] : path.split('/');
    this.folded = this.segments.map(foldName);
  }

  /** How `path` (same form as the constructor's) relates to this one, once folded. */
  relation(path: string): FoldedRelation {
    const ps = path === '' ? [] : path.split('/');
    const n = Math.min(ps.length, this.segments.length);
    for (let i = 0; i < n; i++) if (ps[i] !== this.segments[i] && foldName(ps[i]) !== this.folded[i]) return undefined;
    if (ps.length === this.segments.length) return 'same';
    return ps.length > this.segments.length ? 'below' : 'above';
  }
}
