/**
 * The integration checkout's folder on the disk host: checked before anything else is looked
 * at, and the paths inside it as the run log shows them (relative to it).
 */
import { statSync } from 'node:fs';
import { foreignCodeOf } from '../../../vfs/index.js';
import { isMissingPath } from '../../ports/index.js';
import { WorkspaceError } from '../../workspace-error.js';

/**
 * `NOT_A_GIT_REPOSITORY` unless `path` is a folder: data.reason `MISSING_FOLDER` when nothing
 * (or no folder) is there, `UNREADABLE_FOLDER` (the error kept as cause) when it cannot be
 * looked at: a failure to look is not reported as a missing folder.
 */
export function checkRepositoryFolder(path: string): void {
  let folder: boolean;
  try {
    folder = statSync(path).isDirectory();
  } catch (e) {
    if (!isMissingPath(e)) {
      const code = foreignCodeOf(e) ?? 'an error';
      const why = `the repository folder '${path}' cannot be read (${code})`;
      throw new WorkspaceError('NOT_A_GIT_REPOSITORY', why, { repo: path, reason: 'UNREADABLE_FOLDER' }, { cause: e });
    }
    folder = false;
  }
  if (!folder) {
    const why = `the repository folder '${path}' does not exist`;
    throw new WorkspaceError('NOT_A_GIT_REPOSITORY', why, { repo: path, reason: 'MISSING_FOLDER' });
  }
}

/** `cwd` relative to `repo` (`.` for the repository itself), or as it is when outside. */
export function relativeToRepo(repo: string, cwd: string): string {
  const rel = cwd === repo ? '.' : cwd.startsWith(`${repo}/`) ? cwd.slice(repo.length + 1) : cwd;
  return rel;
}
