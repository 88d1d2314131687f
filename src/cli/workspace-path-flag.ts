/**
 * `workspacePaths`: the `--path` values of `gatefs diff|commit`, checked as workspace-relative
 * paths before they reach git: no absolute path, no `..` part, no empty part, no NUL. An
 * operator's paths are not hostile the way an agent's are, but a typo such as `/src` or `../x`
 * must be an error, not a diff of something else.
 */
import { UsageError } from './usage-error.js';

/** The paths given (none when the flag is absent), normalised (`./a//b/` → `a/b`). Throws `UsageError`. */
export function workspacePaths(value: unknown, command: string): string[] {
  const given = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
  return given.map((p) => {
    const parts = p.split('/').filter((part) => part !== '' && part !== '.');
    if (p.startsWith('/') || p.includes('\0') || p.includes('\\') || parts.includes('..') || parts.length === 0) {
      throw new UsageError(`--path "${p.slice(0, 200)}" must be a file or folder inside the workspace, relative to its root`, command);
    }
    return parts.join('/');
  });
}
