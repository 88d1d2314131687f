/**
 * `checkOutLower`: makes one lower folder (src/host/lower/lower-record.ts): checks the commit out into
 * `<root>/building` through the tree-checkout port, proves and repairs it against the commit's
 * listing (src/host/lower/lower-verify.ts), flushes it to disk, and only then renames it to
 * `<root>/tree`, so `tree/` exists only complete. The records, locks and events around it are
 * `LowerFolders`'; this is the folder work alone (the conformance suite builds its stack with it).
 * Entries git treats as `.git` are left out (`withoutDotGitNames`): no agent sees them, and git
 * refuses to check them out.
 *
 * `<root>` must not exist yet, or be empty; it and its missing parents are made with mode 0700. Throws `LowerMismatch` (the
 * commit cannot be served from a folder here), what the port throws (`GitError`), and the file
 * system's errors; a throw leaves `<root>` as it was made so far (the caller removes it).
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import type { GitObjectReader } from '../../../vfs/index.js';
import type { LinkReadingLayer, WritableLayer } from '../../../vfs/index.js';
import type { GitContext } from '../../git/index.js';
import type { TreeCheckout, TreeListingEntry } from '../../git/index.js';
import { isDotGitName } from '../../../vfs/index.js';
import type { LowerPaths } from './lower-record.js';
import type { OpenedFolder } from '../platform/index.js';
import { verifyCheckout, type VerifyReport } from './lower-verify.js';

/** What `checkOutLower` uses. */
interface CheckOutLowerPorts {
  checkout: TreeCheckout;
  objects: GitObjectReader;
  /** Opens a host folder as a confined layer (`HostPlatform.openFolder`). */
  openFolder(path: string): OpenedFolder;
  context: GitContext;
  signal: AbortSignal;
}

/**
 * The entries of a listing no agent sees: a path segment git treats as `.git` (vfs/dot-git-name.ts;
 * `.GIT`, `git~1`, …) and everything below one. The namespace hides and protects them over git
 * objects, git's index refuses them, so the lower folder leaves them out and holds the rest.
 */
function withoutDotGitNames(listing: readonly TreeListingEntry[]): TreeListingEntry[] {
  return listing.filter((e) => !e.path.split('/').some(isDotGitName));
}

/** Makes the lower folder of `sha` at `paths` (see the file comment). Result: what the verification found. */
export async function checkOutLower(paths: LowerPaths, sha: string, ports: CheckOutLowerPorts): Promise<VerifyReport> {
  const { checkout, context, signal } = ports;
  mkdirSync(paths.root, { recursive: true, mode: 0o700 });
  mkdirSync(paths.building, { mode: 0o700 });
  const listing = withoutDotGitNames(await checkout.listTree(sha, context, signal));
  await checkout.checkout(listing, paths.building, paths.index, context, signal);
  const opened = ports.openFolder(paths.building);
  let report: VerifyReport;
  try {
    const layer = opened.layer as WritableLayer & LinkReadingLayer;
    report = await verifyCheckout(paths.building, layer, listing, { checkout, objects: ports.objects, context, signal });
  } finally {
    opened.close();
  }
  rmSync(paths.index, { force: true });
  await checkout.flush(paths.root, context, signal);
  signal.throwIfAborted();
  renameSync(paths.building, paths.tree);
  return report;
}
