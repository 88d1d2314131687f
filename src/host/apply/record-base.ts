/**
 * `recordApplyBase`: takes the base record of a `copy` workspace over a plain folder when it is
 * prepared (apply-records.ts): the digest of every file and link the folder holds, so a later
 * apply can tell which of them changed in the source since the copy started. A plain folder has
 * no commit to say so, and the copy's lower is the live folder itself.
 *
 * Taken only while the copy is untouched (no upper entry, no whiteout) and has no record yet: a
 * record taken later would take the source's later changes for the base. Folders git treats as
 * `.git` are not read (an apply never writes there); the state directory is hidden by the lower.
 * Cost: one read of every file of the folder, at preparation (64 at a time).
 */
import { childPath, isDotGitName, walkLayer } from '../../../vfs/index.js';
import { readBase, readWhiteouts, writeBase, type Digest } from './apply-records.js';
import type { CopyOverlay } from './apply-types.js';
import { upperEntries } from './copy-plan.js';
import { digestOf } from './digest-of.js';

/** Files read at once while the record is taken. */
const BATCH = 64;

/** See the file comment. Result: true when a record was taken. */
export async function recordApplyBase(overlay: CopyOverlay): Promise<boolean> {
  if ((await readBase(overlay.upper)) !== undefined) return false;
  if ((await upperEntries(overlay)).size > 0 || (await readWhiteouts(overlay.upper)).length > 0) return false;
  const paths = new Map<string, Digest>();
  const skip = (path: string) => isDotGitName(path.slice(path.lastIndexOf('/') + 1));
  const pending: string[] = [];
  const digestPending = async () => {
    const batch = pending.splice(0);
    const digests = await Promise.all(batch.map((path) => digestOf(overlay.lower, path)));
    batch.forEach((path, i) => paths.set(path, digests[i]!.digest));
  };
  for await (const folder of walkLayer(overlay.lower, '', { descend: (p) => !skip(p) })) {
    for (const e of folder.entries) {
      const path = childPath(folder.path, e.name);
      if (e.type !== 'directory' && !skip(path)) pending.push(path);
    }
    if (pending.length >= BATCH) await digestPending();
  }
  await digestPending();
  await writeBase(overlay.upper, { complete: true, paths });
  return true;
}
