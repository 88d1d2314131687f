/**
 * `GitObjectReader`: the port through which `GitTreeLayer` reads a commit's trees and blobs.
 * Declared here, by the layer that needs it, so vfs/ depends on nothing outside itself;
 * src/git implements it (`IsoObjectReader`, for the disk host and the memory host alike).
 * Read-only and never spawns, which is why the gate may hold a layer built on it.
 */

/** One entry of a git tree object. */
export interface TreeEntry {
  name: string;
  /** Git mode as an octal string: `100644`, `100755`, `120000` (symlink), `040000`, `160000`. */
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  oid: string;
}

/**
 * Reads commits, trees and blobs from an object store. Read-only; never spawns. A failure
 * throws (src/git throws `GitError` `BAD_REF` / `OBJECT_MISSING`); the layer maps any throw to
 * `INTERNAL`, or `BUSY` when the process is out of descriptors.
 */
export interface GitObjectReader {
  /** The tree oid of a commit. Throws when `commit` is not a commit (`BAD_REF`). */
  commitTree(commit: string): Promise<string>;
  /** The entries of a tree, in git order. Throws when the tree is missing (`OBJECT_MISSING`). */
  readTree(tree: string): Promise<TreeEntry[]>;
  /** The bytes of a blob. Throws when the blob is missing (`OBJECT_MISSING`). */
  readBlob(blob: string): Promise<Uint8Array>;
}
