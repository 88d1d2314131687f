/**
 * The front door of src/git: the git port and the landing port, their implementations over the
 * git CLI, the snapshot port and its CLI implementation, the tree checkout (the CLI names the
 * neutral runner by its path). The in-memory git (`memory-git.ts`, `memory-landing-git.ts`,
 * `memory-snapshot-git.ts`, `memory-remote.ts`) loads isomorphic-git and memfs and is entered by
 * its own path, by the memory host only (test/architecture.test.ts `SIDE_DOORS`), so a disk
 * host loads neither.
 */
export { CliGit } from './cli-git.js';
export { CliLandingGit } from './cli-landing-git.js';
export { CliTreeCheckout } from './cli-tree-checkout.js';
export {
  conversationBranch,
  type GitContext,
  GitError,
  type GitErrorCode,
  type GitPort,
  isGitError,
  type WorktreeInfo,
} from './git-port.js';
export type { BlockedReason, GitIdentity, LandingGit } from './landing-git.js';
export { CliSnapshotGit } from './cli-snapshot-git.js';
export type { SnapshotChange, SnapshotGit } from './snapshot-git.js';
export { isSparseExpressible } from './sparse-pattern.js';
export type { TreeCheckout, TreeListingEntry } from './tree-checkout.js';
