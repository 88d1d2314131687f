/**
 * Parsers for git's machine-readable (`-z`) outputs used by `CliGit`.
 */
import type { WorktreeInfo } from './git-port.js';

/**
 * Parses `git worktree list --porcelain -z`: records of NUL-terminated `key value` lines,
 * separated by an empty line (an extra NUL).
 */
export function parseWorktreeListZ(out: string): WorktreeInfo[] {
  const result: WorktreeInfo[] = [];
  let current: WorktreeInfo | undefined;
  for (const line of out.split('\0')) {
    if (line === '') {
      if (current) result.push(current);
      current = undefined;
      continue;
    }
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const value = space < 0 ? '' : line.slice(space + 1);
    if (key === 'worktree') current = { path: value, branch: null, head: null };
    else if (current && key === 'HEAD') current.head = /^0+$/.test(value) ? null : value;
    else if (current && key === 'branch') current.branch = value;
  }
  if (current) result.push(current);
  return result;
}

/**
 * Parses `git status --porcelain=v1 -z`: `XY path` entries, where renames and copies carry a
 * second NUL-terminated path (the source). Returns every path involved, sorted, deduplicated.
 */
export function parseStatusZ(out: string): string[] {
  const files = new Set<string>();
  const parts = out.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i];
    if (entry.length < 4) continue;
    const xy = entry.slice(0, 2);
    files.add(entry.slice(3));
    if (xy[0] === 'R' || xy[0] === 'C') {
      const source = parts[++i];
      if (source) files.add(source);
    }
  }
  return [...files].sort();
}
