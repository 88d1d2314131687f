/**
 * `unsafeCheckoutPaths`: the checkout-safety check (checkout-safety.ts) of one checked-out
 * folder on disk, through the neutral git runner: one `git ls-files --others --directory`
 * (ignored files included: no exclude rules are read) over the plan's questions, none when there
 * are none (a landing that only edits and adds tracked files in tracked folders). Paths are
 * looked at with `lstat`, one folder at a time from the top, so no link on the way is followed.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { foreignCodeOf } from '../../vfs/index.js';
import { conflictsOf, planCheckoutSafety, type DiskKind, type TreeChange } from './checkout-safety.js';
import type { GitSession, NeutralGitRunner } from './neutral-git-runner.js';

/** Most bytes of paths handed to one `ls-files` (far below the argument limit). */
const PATHSPEC_BYTES = 64 * 1024;

/**
 * The untracked or ignored paths in the checkout at `dir` (session `s` runs there) that the
 * update `changes` would overwrite, delete or write into, sorted; empty when it is safe. Throws
 * `GitError('COMMAND_FAILED')` when `ls-files` fails.
 */
export async function unsafeCheckoutPaths(
  git: NeutralGitRunner,
  s: GitSession,
  dir: string,
  changes: readonly TreeChange[],
): Promise<string[]> {
  const plan = await planCheckoutSafety(changes, (path) => kindOnDisk(join(dir, path)));
  const listed: string[] = [];
  for (const chunk of chunks(plan.questions)) {
    const r = await git.check(s, ['ls-files', '-z', '--others', '--directory', '--no-empty-directory', '--', ...chunk], 'ls-files');
    listed.push(...r.stdout.split('\0').filter(Boolean));
  }
  return [...new Set([...plan.blocked, ...conflictsOf(plan, listed)])].sort();
}

async function kindOnDisk(path: string): Promise<DiskKind> {
  try {
    return (await lstat(path)).isDirectory() ? 'folder' : 'other';
  } catch (e) {
    const code = foreignCodeOf(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'absent';
    throw e;
  }
}

function chunks(paths: readonly string[]): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const p of paths) {
    if (current.length > 0 && bytes + p.length > PATHSPEC_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(p);
    bytes += p.length + 1;
  }
  if (current.length > 0) out.push(current);
  return out;
}
