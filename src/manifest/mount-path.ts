/**
 * The rules for a mount's `path` (docs/ARCHITECTURE.md § Glossary, "mount"). A relative path
 * ('.campaign') is projected from the pinned snapshot into the workspace; an absolute path
 * ('/data/out') is a host folder shown at the same namespace path.
 */
import { ManifestError } from './manifest-error.js';
import { isUnderGitDir, splitLiteralPath } from './literal-path.js';

/**
 * Validates and normalizes one mount path. Input: the path as written and its key path.
 * Result: the normalized path (trailing '/' dropped). Throws `ManifestError` `INVALID_VALUE`
 * for the literal-path rules (empty, NUL, backslash, '..', '.', '//', over-long names) and for
 * reserved places: a relative mount at or under `.git`, an absolute mount at `/` (it would
 * shadow the whole namespace), at or under `/worktrees` (where workspaces live), at or under
 * `/canonical` (where an attached source checkout is shown: a mount there would shadow it, with
 * its own write flag) or at or under `/home` (the agent's home; a mount can hold `/home` only at
 * `/`, refused already).
 */
export function normalizeMountPath(raw: string, keyPath: string): string {
  const path = splitLiteralPath(raw, keyPath);
  if (path.absolute && path.segments.length === 0) {
    throw new ManifestError('INVALID_VALUE', keyPath, "a mount cannot be the namespace root '/'");
  }
  if (path.absolute && path.segments[0] === 'worktrees') {
    throw new ManifestError('INVALID_VALUE', keyPath, `'${raw}' is at or under /worktrees, which is reserved for workspaces`);
  }
  if (path.absolute && path.segments[0] === 'canonical') {
    throw new ManifestError(
      'INVALID_VALUE',
      keyPath,
      `'${raw}' is at or under /canonical, which is reserved for the source checkout (gatefs attach ID canonical): mount the folder from a path outside /canonical`,
    );
  }
  if (path.absolute && path.segments[0] === 'home') {
    throw new ManifestError(
      'INVALID_VALUE',
      keyPath,
      `'${raw}' is at or under /home, which is reserved for the agent's home in every namespace: mount the folder from a path outside /home`,
    );
  }
  if (isUnderGitDir(path)) {
    throw new ManifestError('INVALID_VALUE', keyPath, `'${raw}' is at or under .git, which is protected`);
  }
  return path.text;
}
