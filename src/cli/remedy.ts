/**
 * What to do about an error, for the CLI's one-line messages: a short hint per error code of
 * the host (`WorkspaceError`), the manifest (`ManifestError`) and the few tool codes an
 * operator meets from `gatefs call`. Codes without a hint print without one; an error that
 * carries its own hint (`data.hint`) prints that instead.
 */
import { CodedError } from '../../vfs/coded-error.js';

const REMEDIES: Readonly<Record<string, string>> = {
  DIRTY_WORKTREE:
    'commit or discard the changes in the workspace, then release again; or release with --discard to delete them (a branch and its commits are kept)',
  BAD_REF: 'pass --base a branch, tag or commit that exists in the repository (a repository without commits needs a first commit)',
  NOT_A_GIT_REPOSITORY: 'pass --repo a git repository, or give the role backend: copy in gatefs.yaml (gatefs init writes one)',
  BACKEND_UNAVAILABLE: 'use backend worktree, copy, empty or shared in gatefs.yaml',
  BUSY: 'another process is preparing this conversation; retry when it has finished',
  OCCUPIED:
    'an MCP session holds this workspace: HOLDER in gatefs status is mcp-<pid of that gatefs serve>-…; close that client or stop that server, and retry',
  PREPARATION_FAILED: 'nothing was left half-made; fix the cause above and prepare again',
  UNKNOWN_CONVERSATION: 'prepare it first: gatefs prepare <conversation>',
  SNAPSHOT_NOT_FOUND: 'gatefs snapshots <conversation> lists the snapshots there are',
  VISITS_EXHAUSTED:
    "the role had its max_visits in this run (gatefs run status RUN lists them): prepare into another run with --run, or raise the role's max_visits in gatefs.yaml",
  UNKNOWN_RUN: "gatefs status shows each workspace's run in its RUN column (a run exists once a conversation was prepared into it)",
  RUN_ENDED: 'an end ended this run (gatefs run status RUN says by whom): prepare the conversation into another run with --run',
  WORKSPACE_RELEASED: 'prepare it again (gatefs prepare <conversation>): a worktree continues its branch and commits',
  UNKNOWN_ROLE: 'use a role named in gatefs.yaml (or drop --role for the first one)',
  FILE_NOT_FOUND: 'pass --manifest an existing file, or run gatefs init',
  UNKNOWN_KEY:
    'fix the key in the file named above (gatefs init writes a commented gatefs.yaml; a --settings file holds {"lander": {...}})',
  INVALID_VALUE: 'fix the value in the file named above',
  MISSING_KEY: 'add the key to the file named above',
  PARSE_ERROR: 'fix the syntax of the file named above',
  DUPLICATE: 'remove the duplicate from the file named above',
  EADDRINUSE: 'another program (another gatefs serve?) listens there: stop it, or pass --http another port',
};

/** Hints for the refusals of the command tools (`exec`, `check`), where a code means something else than for the host. */
const COMMAND_REMEDIES: Readonly<Record<string, string>> = {
  BACKEND_UNAVAILABLE: 'gatefs doctor says what works here',
  TOOL_NOT_ALLOWED: "declare it in the role's tools in gatefs.yaml (with exec: limits if the defaults do not fit)",
};

/** The tools whose refusals take `COMMAND_REMEDIES`. */
const COMMAND_TOOLS: ReadonlySet<string> = new Set(['exec', 'exec_output', 'exec_kill', 'check']);

/** The hint for a refusal of `tool` with `code` that the general table would get wrong (a command tool's), else undefined. */
export function toolHint(tool: unknown, code: unknown): string | undefined {
  return typeof tool === 'string' && COMMAND_TOOLS.has(tool) && typeof code === 'string' ? COMMAND_REMEDIES[code] : undefined;
}

/** The hint for `code`, or undefined when there is none. */
export function remedyFor(code: unknown): string | undefined {
  return typeof code === 'string' ? REMEDIES[code] : undefined;
}

/**
 * `line` followed by ` (hint)`. The hint is the error's own `hint` (a `WorkspaceError`'s
 * `data.hint`, which knows the case: the folder, the backend, the flag to use) when it has one
 * the line does not already hold, else the table's hint for `code`, else none.
 */
export function withRemedy(line: string, code: unknown, own?: unknown): string {
  const hint = typeof own === 'string' && own !== '' ? (line.includes(own) ? undefined : own) : remedyFor(code);
  return hint ? `${line} (${hint})` : line;
}

/** The `data.hint` a thrown coded error carries, if any (`WorkspaceError` `STATE_UNTRUSTED` and the like). */
export function ownHint(e: unknown): unknown {
  return e instanceof CodedError ? e.data.hint : undefined;
}
