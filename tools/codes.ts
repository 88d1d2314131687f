/**
 * The stable tool error codes (docs/ARCHITECTURE.md § Tools, results and error codes), each with
 * its one-line meaning. Never renamed, never reused. `TOOL_ERROR_CODES` is the list;
 * `TOOL_ERROR_DOCS` says what each one means to an agent (a test proves every code is produced
 * by some input and documented here).
 */
export const TOOL_ERROR_CODES = [
  'INVALID_INPUT',
  'UNKNOWN_CONVERSATION',
  'WORKSPACE_NOT_READY',
  'WORKSPACE_RELEASED',
  'TOOL_NOT_ALLOWED',
  'PATH_ESCAPE',
  'OUTSIDE_MOUNTS',
  'BAD_NAME',
  'NAME_TOO_LONG',
  'SYMLINK_ESCAPE',
  'NOT_FOUND',
  'NOT_DISCLOSED',
  'IS_DIRECTORY',
  'NOT_DIRECTORY',
  'NOT_REGULAR_FILE',
  'ALREADY_EXISTS',
  'READ_ONLY',
  'PROTECTED_PATH',
  'OCCUPIED',
  'TOO_LARGE',
  'BINARY_FILE',
  'NO_MATCH',
  'AMBIGUOUS_MATCH',
  'STALE_CONTENT',
  'BUSY',
  'TOO_DEEP',
  'DIRTY_WORKTREE',
  'QUEUE_REJECTED',
  'NOT_A_WORKTREE',
  'BACKEND_UNAVAILABLE',
  'CROSS_MOUNT',
  'SNAPSHOT_NOT_FOUND',
  'VISIT_ENDED',
  'NOT_ATTACHED',
  'INTERNAL',
] as const;

/** One of the stable codes. */
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

/** One line per code: what happened and what the caller can do about it. */
export const TOOL_ERROR_DOCS: Readonly<Record<ToolErrorCode, string>> = {
  INVALID_INPUT:
    'The arguments do not match the tool schema, or a pattern cannot be used (not a valid regex or glob, braces past their bounds, matching past its time or work budget), or a move cannot be done as asked (onto itself, into its own sub-folder, of a mount root); the message names the field or the path.',
  UNKNOWN_CONVERSATION: 'No workspace is registered for this conversation id (or the id is not a valid conversation id): prepare it first.',
  WORKSPACE_NOT_READY:
    'The workspace is not ready: still being prepared, or its preparation failed (the message says why and what to do); retry once it is.',
  WORKSPACE_RELEASED: 'The workspace was released; tools no longer run in it.',
  TOOL_NOT_ALLOWED: "The tool does not exist or is not declared for the conversation's role.",
  PATH_ESCAPE: "A '..' in the path climbs out of the namespace.",
  OUTSIDE_MOUNTS: 'The path is neither inside the workspace nor inside a declared mount.',
  BAD_NAME: 'The path holds a character that is never allowed (NUL, backslash, lone surrogate) or is empty.',
  NAME_TOO_LONG: 'A name is longer than 255 UTF-8 bytes or the whole path longer than 4096.',
  SYMLINK_ESCAPE:
    "The path goes through a symbolic link that is not followed: its target is absolute, climbs above the link's mount or lands in another mount, the chain is longer than 40 links, or a link changed during the call (links that stay inside their mount are followed).",
  NOT_FOUND: 'No such file or folder (also for .git and the gatefs state directory, which tools never show).',
  NOT_DISCLOSED:
    'The file exists in the snapshot but is not disclosed yet: ask for it with request_files (move: a folder holding such files never moves).',
  IS_DIRECTORY: 'The path is a folder where a file was expected.',
  NOT_DIRECTORY: 'A folder was expected (the path or one of its parents is a file).',
  NOT_REGULAR_FILE:
    'The path is a FIFO, socket, device or other special file, which tools never open, move or delete (move in a copy workspace: also a link only the base snapshot holds).',
  ALREADY_EXISTS:
    'The file exists although the call asked to create it only (write with expectedSha256: null), or move found its destination taken (pass overwrite: true to replace a file).',
  READ_ONLY: 'The path is in a read-only mount.',
  PROTECTED_PATH:
    'The path is protected and never changed through tools: .git (and names git treats as .git) at any depth, the gatefs state directory, the files granting authority (gatefs.yaml, the loaded manifest), and everything in a submodule or a nested repository (files the git of the workspace does not see), which stay readable.',
  OCCUPIED: 'Another holder has exclusive write access to this workspace right now.',
  TOO_LARGE: 'The file is larger than the tool handles (edit: 10 MiB; read: 1 GiB, an image 3.75 MiB).',
  BINARY_FILE:
    'The file looks binary (a NUL byte in its first 8 KiB; read returns PNG, JPEG, GIF and WebP as images) or, for edit, is not valid UTF-8.',
  NO_MATCH:
    'edit: oldString does not occur in the file; the message and details.candidate name the closest region, its exact text and how its whitespace differs.',
  AMBIGUOUS_MATCH: 'edit: oldString occurs more than once (details.lines lists where); add context or pass replaceAll.',
  STALE_CONTENT: 'The file changed since it was read: its sha256 differs from expectedSha256 (or it no longer exists).',
  BUSY: 'A temporary shortage (file descriptors) or another writer holding the file past the wait limit: nothing was changed; retry the call.',
  TOO_DEEP: 'The folder tree below the path is nested deeper than a walk follows; name a deeper folder as the path.',
  DIRTY_WORKTREE:
    'submit: the workspace has changes that are not committed (the message names them): commit them (or remove them), then submit again.',
  QUEUE_REJECTED:
    'submit: the lander cannot take this work (nothing to land beyond the target branch, no target branch, or the branch of the workspace is gone); the message says why.',
  NOT_A_WORKTREE:
    'diff, commit, submit: the workspace is not a git worktree (its backend is shared or copy), so it has no branch of its own to diff, commit to or land.',
  BACKEND_UNAVAILABLE:
    "exec, check: no kernel sandbox can run here (bubblewrap missing, user namespaces disabled) or the workspace cannot be shown in one; the message names the cause and the fix. Nothing ran: a command never runs unconfined. gatefs doctor says what works on this machine. checkpoint, rollback: the workspace takes no snapshots (a shared workspace is the user's own checkout).",
  CROSS_MOUNT:
    'move: from and to are in different mounts (or on different host file systems); a move stays inside one mount, and a folder holding another mount cannot move: read and write the files instead.',
  SNAPSHOT_NOT_FOUND:
    "rollback: the conversation has no snapshot with that id (ids are its own: another conversation's are never visible); details.available lists the ids there are.",
  VISIT_ENDED:
    'handoff, end: this visit already ended (a handoff or end was accepted) or its run was ended by an end; nothing was collected. Other tools keep working in the workspace.',
  NOT_ATTACHED:
    'detach, switch: the conversation holds no binding of that workspace (attach it first); nothing changed. details.attached lists the anchors it holds.',
  INTERNAL: 'An unexpected failure inside gatefs; the run log has the record.',
};

/** True when `code` is one of the stable tool error codes. */
export function isToolErrorCode(code: unknown): code is ToolErrorCode {
  return typeof code === 'string' && (TOOL_ERROR_CODES as readonly string[]).includes(code);
}
