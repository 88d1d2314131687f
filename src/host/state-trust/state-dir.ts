/**
 * The state directory on disk: `<stateDir>/gatefs.db`, `worktrees/`, `copies/`. When it lies
 * inside the repository's work tree it is added to `<git common dir>/info/exclude`, so git
 * never shows it as untracked (idempotent: the line is added once).
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { WorkspaceError } from '../../workspace-error.js';
import { lstatOrNull } from './untrusted-state.js';
import { foreignCodeOf } from '../../../vfs/index.js';

const { O_RDWR, O_CREAT, O_APPEND, O_NOFOLLOW, O_NONBLOCK } = constants;

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
 * directory is inside the work tree. Result: true when a line was added. Neither `info/` nor
 * `info/exclude` is followed when it is a link (a repository extracted from an archive may
 * plant one to make gatefs write elsewhere): throws `WorkspaceError` `STATE_UNTRUSTED`
 * (data.reason `GIT_EXCLUDE_LINK`) instead, having written nothing.
 */
export function excludeStateDir(gitCommonDir: string, workTreeTop: string, stateDir: string): boolean {
  const rel = relative(workTreeTop, stateDir);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return false;
  const line = `/${rel.split(sep).join('/')}/`;
  const info = join(gitCommonDir, 'info');
  const file = join(info, 'exclude');
  const folder = lstatOrNull(info);
  if (!folder) mkdirSync(info);
  else if (!folder.isDirectory()) throw notFollowed(info, folder.isSymbolicLink() ? 'a symbolic link' : 'not a folder');
  let fd: number;
  try {
    fd = openSync(file, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK, 0o644);
  } catch (e) {
    if (foreignCodeOf(e) === 'ELOOP') throw notFollowed(file, 'a symbolic link');
    throw e;
  }
  try {
    if (!fstatSync(fd).isFile()) throw notFollowed(file, 'not a regular file');
    const current = readFileSync(fd, 'utf8');
    if (current.split('\n').some((l) => l.trim() === line)) return false;
    writeSync(fd, `${current === '' || current.endsWith('\n') ? '' : '\n'}${line}\n`);
    return true;
  } finally {
    closeSync(fd);
  }
}

function notFollowed(path: string, what: string): WorkspaceError {
  return new WorkspaceError(
    'STATE_UNTRUSTED',
    `'${path}' is ${what}: gatefs writes the state directory's exclude line only into git's own regular file, never through a link`,
    {
      reason: 'GIT_EXCLUDE_LINK',
      path,
      hint: `check where it points, replace it with a regular file (rm '${path}'), or pass --state-dir a folder outside the repository`,
    },
  );
}
