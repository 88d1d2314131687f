/**
 * Why a declared file of a handoff was not collected: the code of its `artifact_rejected`
 * record, each documented once here (`ARTIFACT_REJECTION_DOCS`). The codes are public like the
 * tool codes — `gatefs run status`, the seed inventory and `host.inventory` show them — so they
 * are never renamed or reused. A path the namespace refuses before any file is looked at keeps
 * the walk's own code (`PATH_ESCAPE`, `BAD_NAME`, `NAME_TOO_LONG`, `SYMLINK_ESCAPE`,
 * `NOT_DISCLOSED`), documented here too.
 */

/** Each rejection code with its one-line meaning. */
export const ARTIFACT_REJECTION_DOCS = {
  NOT_FOUND: 'No such file in the workspace (also .git and the names tools never show).',
  NOT_REGULAR_FILE: 'A folder, FIFO, socket or device: only regular files are collected.',
  SYMLINK: 'The file is a symbolic link: links are never followed, and never collected.',
  OUTSIDE_WORKSPACE:
    'The path is outside the workspace root: in a mount (read-only or writable, the artifacts routed in included) or outside the namespace.',
  TOO_LARGE: "The file is larger than the role's artifacts.max_file_bytes (a file of exactly that size is collected).",
  TOO_MANY_FILES: "The entry comes after the role's artifacts.max_files-th declared one.",
  DUPLICATE: 'The path was declared earlier in the same handoff: the first declaration counts.',
  NOT_ISOLATED:
    "The handoff came from a shared role, whose workspace is the user's checkout: none of its files are collected (the handoff itself is accepted).",
  PATH_ESCAPE: "A '..' in the path climbs out of the namespace.",
  BAD_NAME: 'The path holds a character that is never allowed (NUL, backslash) or is empty.',
  NAME_TOO_LONG: 'A name is longer than 255 UTF-8 bytes or the path longer than 4096.',
  SYMLINK_ESCAPE: 'A folder on the way is a symbolic link, which collection never follows.',
  NOT_DISCLOSED: 'The file exists in the snapshot but was never disclosed to the role (request_files), so it is not its work.',
} as const satisfies Readonly<Record<string, string>>;

/** One rejection code. */
export type ArtifactRejectionCode = keyof typeof ARTIFACT_REJECTION_DOCS;

/** True when `code` is a documented rejection code. */
export function isArtifactRejectionCode(code: unknown): code is ArtifactRejectionCode {
  return typeof code === 'string' && Object.hasOwn(ARTIFACT_REJECTION_DOCS, code);
}
