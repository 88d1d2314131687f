/**
 * The front door of vfs: the layers, the namespace over them, paths, the one error type and
 * the ports a layer needs, as the other units use them. Two files are entered by their own path
 * (test/architecture.test.ts `SIDE_DOORS`): `memory-layer.ts`, which loads memfs (a disk host
 * never does), and `coded-error.ts`, the only file the self-contained pattern engine imports.
 */
export { CodedError, codeOf, type ErrorData, foreignCodeOf, isCodedError } from './coded-error.js';
export { type DisclosureHints, withDisclosureHints } from './disclosure-hint-layer.js';
export { isDotGitName } from './dot-git-name.js';
export { isDescriptorShortage, isVfsError, type VfsCode, VfsError } from './errors.js';
export { FileLocks, processFileLocks } from './file-lock.js';
export { FoldedPath, type FoldedRelation, foldName } from './fold-name.js';
export type { GitObjectReader, TreeEntry } from './git-object-reader.js';
export { gitTreeLayer, type GitTreeLayer } from './git-tree-layer.js';
export { openHostFolder } from './host-folder.js';
export { type HostIdentity, sameIdentity } from './host-hooks.js';
export type { HostGuard } from './host-layer.js';
export { hasProcFd } from './host-walk.js';
export {
  baseName,
  childPath,
  compareNames,
  type DirEntry,
  type EntryType,
  type FolderAccess,
  type Layer,
  type LinkReadingLayer,
  parentPath,
  type ReadOptions,
  type Stat,
  walkLayer,
  type WritableLayer,
} from './layer.js';
export { HOST_FILES, type LockKey } from './lock-key.js';
export type { Mount, Resolved } from './mount-table.js';
export { Namespace } from './namespace.js';
export { overlay } from './overlay-layer.js';
export { withPathRules } from './path-rules-layer.js';
export { hasDotDotSegment, MAX_NAME_BYTES, MAX_PATH_BYTES, MAX_PATH_SEGMENTS, utf8Length } from './path.js';
export { readOnly } from './read-only-layer.js';
export { RepositoryBoundary } from './repository-boundary.js';
export { snapshotFolder } from './snapshot-folder-layer.js';
export { sparse, type SparseProjection } from './sparse-layer.js';
export { SwitchableLayer } from './switchable-layer.js';
export { OVERLAY_META } from './whiteout-set.js';
export { BatchTimeout, TaskFailure, workerPool, WorkerPool } from './worker-pool.js';
export { isConversationId, workspaceRoot } from './workspace-root.js';
