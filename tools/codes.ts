/**
 * The stable tool error codes of DESIGN.md. Never renamed, never reused.
 * (The tools issue documents each code here, one line each.)
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
  'INTERNAL',
] as const;

export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];
