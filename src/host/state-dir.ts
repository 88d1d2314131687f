/**
 * The state directory on disk: `<stateDir>/gatefs.db`, `worktrees/`, `copies/`. When it lies
 * inside the repository's work tree it is added to `<git common dir>/info/exclude`, so git
 * never shows it as untracked (idempotent: the line is added once).
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * Creates the state directory (private to this user: mode 0700) and its sub-folders; existing
 * ones are kept as they are (the trust check has looked at them before).
 */
export function createStateDir(stateDir: string): void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  mkdirSync(join(stateDir, 'worktrees'), { recursive: true, mode: 0o700 });
  mkdirSync(join(stateDir, 'copies'), { recursive: true, mode: 0o700 });
}

/**
 * Adds `/<stateDir relative to the work tree top>/` to the exclude file when the state
 * directory is inside the work tree. Result: true when a line was added.
 */
export function excludeStateDir(gitCommonDir: string, workTreeTop: string, stateDir: string): boolean {
  const rel = relative(workTreeTop, stateDir);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return false;
  const line = `/${rel.split(sep).join('/')}/`;
  const file = join(gitCommonDir, 'info', 'exclude');
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    mkdirSync(join(gitCommonDir, 'info'), { recursive: true });
  }
  if (current.split('\n').some((l) => l.trim() === line)) return false;
  appendFileSync(file, `${current === '' || current.endsWith('\n') ? '' : '\n'}${line}\n`);
  return true;
}
