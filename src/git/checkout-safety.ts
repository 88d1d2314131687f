/**
 * Checkout safety: what bringing a checked-out folder from one commit's tree to another would
 * overwrite or delete that git does not track there — the person's untracked and ignored files,
 * the state directory, another workspace — decided before anything moves. Both landing ports
 * use it before their fast-forward (the CLI with `git ls-files --others`, memory by walking the
 * volume), like `git merge --ff-only` refusing "untracked working tree files would be
 * overwritten", except that ignored files count as work too.
 *
 * From the changed entries of the two trees (`git diff-tree -r -t`: files, links and submodules,
 * and the folders that hold them) and a look at each path on disk, without following a link:
 * - a file the update writes, whose folders on the way are (on disk) a file or a link that the
 *   old tree did not hold there (`blocked` at once);
 * - a folder on the way that the old tree did not hold (maybe an untracked or ignored folder:
 *   writing into it would plant a file there);
 * - a path written that exists on disk though the old tree held no file there, or a folder on
 *   disk where a file is written or removed (maybe untracked content beneath it);
 * the last two are `questions`: paths whose untracked content (ignored files included) the port
 * lists; `conflictsOf` keeps what of that listing the update would touch.
 *
 * Limits: "tracked" means held by the old tree, not the index; a folder the person staged new
 * files into (not yet committed) is answered by the listing, which knows the index. Folders are
 * named with a trailing `/`, as `git ls-files --directory` names them.
 */

/** Git's mode of a tree entry: `040000` folder, `100644`/`100755` file, `120000` link, `160000` submodule. */
type TreeMode = string;

/** One path the two trees disagree on: its mode before and after (null: absent). */
export interface TreeChange {
  path: string;
  before: TreeMode | null;
  after: TreeMode | null;
}

/** What a path is on disk, read without following a link. */
export type DiskKind = 'absent' | 'folder' | 'other';

/** The plan: paths refused outright, and paths whose untracked content the port must list. */
interface SafetyPlan {
  blocked: string[];
  questions: string[];
  /** Paths the update writes or removes (files, links, submodules). */
  readonly touched: ReadonlySet<string>;
  /** Folders the update needs on the way to a written path. */
  readonly folders: ReadonlySet<string>;
}

const FOLDER = '040000';
const SUBMODULE = '160000';

/** Plans the check (see the file comment). `kindOf` is asked at most once per path. */
export async function planCheckoutSafety(changes: readonly TreeChange[], kindOf: (path: string) => Promise<DiskKind>): Promise<SafetyPlan> {
  const foldersBefore = new Set<string>();
  const filesBefore = new Set<string>();
  for (const c of changes) {
    if (c.before === FOLDER) foldersBefore.add(c.path);
    else if (c.before !== null) filesBefore.add(c.path);
  }
  const kinds = new Map<string, Promise<DiskKind>>();
  const kind = (path: string) => {
    let k = kinds.get(path);
    if (!k) kinds.set(path, (k = kindOf(path)));
    return k;
  };
  const blocked = new Set<string>();
  const questions = new Set<string>();
  const touched = new Set<string>();
  const folders = new Set<string>();
  for (const c of changes) {
    const writes = c.after !== null && c.after !== FOLDER;
    const removes = !writes && c.before !== null && c.before !== FOLDER;
    if (!writes && !removes) continue;
    touched.add(c.path);
    if (removes) {
      if (c.before !== SUBMODULE && (await kind(c.path)) === 'folder') questions.add(c.path);
      continue;
    }
    const parts = c.path.split('/');
    let reached = true;
    for (let i = 1; i < parts.length && reached; i++) {
      const folder = parts.slice(0, i).join('/');
      folders.add(folder);
      const k = await kind(folder);
      if (k === 'absent') reached = false;
      else if (k === 'other') {
        // A tracked file or link becoming a folder is git's to replace (read-tree guards its edits).
        if (!filesBefore.has(folder)) blocked.add(folder);
        reached = false;
      } else if (!foldersBefore.has(folder)) questions.add(folder);
    }
    if (!reached) continue;
    const k = await kind(c.path);
    if (k === 'folder' && c.before !== SUBMODULE) questions.add(c.path);
    else if (k === 'other' && !filesBefore.has(c.path)) questions.add(c.path);
  }
  return { blocked: [...blocked].sort(), questions: [...questions].sort(), touched, folders };
}

/**
 * The entries of a listing of untracked content (paths, folders ending in `/`) that the update
 * would overwrite, delete or write into: a path it touches or one beneath it, or a folder it
 * needs on the way. Sorted, as listed.
 */
export function conflictsOf(plan: SafetyPlan, untracked: readonly string[]): string[] {
  const out = new Set<string>();
  for (const entry of untracked) {
    const path = entry.replace(/\/+$/, '');
    if (path === '') continue;
    if (plan.touched.has(path) || plan.folders.has(path) || hasAncestorIn(path, plan.touched)) out.add(entry);
  }
  return [...out].sort();
}

function hasAncestorIn(path: string, set: ReadonlySet<string>): boolean {
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) if (set.has(path.slice(0, i))) return true;
  return false;
}
