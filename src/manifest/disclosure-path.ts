/**
 * The rules for `progressive_disclosure` paths (issue 5): repository-relative literal paths,
 * because a request is checked by exact lookup in the pinned commit and a glob would let the
 * policy grow silently.
 */
import { ManifestError } from './manifest-error.js';
import { isUnderGitDir, splitLiteralPath } from './literal-path.js';

const GLOB = /[*?[\]{}]/;

/**
 * Validates and normalizes one disclosure path. Result: the path with one trailing '/' dropped.
 * Throws `ManifestError` `INVALID_VALUE` at `keyPath` for: an absolute path, glob syntax
 * (`* ? [ ] { }`), the literal-path rules (empty, NUL, backslash, '..', '.', '//', long names),
 * and a path at or under `.git`.
 */
export function normalizeDisclosurePath(raw: string, keyPath: string): string {
  if (raw.startsWith('/')) {
    throw new ManifestError('INVALID_VALUE', keyPath, `'${raw}' is absolute; write a repository-relative path`);
  }
  if (GLOB.test(raw)) {
    throw new ManifestError('INVALID_VALUE', keyPath, `'${raw}' uses glob syntax (* ? [ ] { }); list literal paths`);
  }
  const path = splitLiteralPath(raw, keyPath);
  if (isUnderGitDir(path)) {
    throw new ManifestError('INVALID_VALUE', keyPath, `'${raw}' is at or under .git, which is never disclosed`);
  }
  return path.text;
}
