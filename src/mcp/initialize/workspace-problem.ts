/**
 * `WorkspaceProblem`: why a `gatefs serve` session cannot make its workspace ready, in one
 * shape for every place the client reads it: the `instructions` of the initialize result (when
 * the cause is known before the answer: `src/cli/connect-check.ts`), and the message and
 * `details` of every tool call's `WORKSPACE_NOT_READY` (and `tools/list`'s error) once the
 * background work failed. The same facts every time: the folder, the file and line, the value
 * it got. Loads nothing.
 */

/** The facts of a problem, as plain JSON (`ToolError.details`). */
export interface WorkspaceProblemDetails {
  /** The condition: a manifest or workspace error code, or `UNEXPANDED_VARIABLE`, `FOLDER_MISSING`, `NOT_A_FOLDER`. */
  cause: string;
  /** The repository folder the server was given (absolute, as the client's own command line named it). */
  folder?: string;
  /** The command-line flag the value came from (`--repo`, `--manifest`, `--state-dir`). */
  flag?: string;
  /** The manifest file (absolute over stdio; relative to the repository over HTTP). */
  file?: string;
  /** 1-based line in `file`. */
  line?: number;
  /** Where in the manifest (`roles[0].workspace.backend`). */
  keyPath?: string;
  /** The value it got (`worktre`, `${workspaceFolder}`). */
  got?: string;
  /** The backend that needed what is missing (`worktree` needs a git repository). */
  backend?: string;
}

/** A problem: one line saying what is wrong, what to do, and the facts. */
export interface WorkspaceProblem {
  /** What is wrong, with the folder, file:line and value: `gatefs.yaml:5: roles[0].workspace.backend: expected …, got "worktre"`. */
  summary: string;
  /** What to do about it. */
  remedy: string;
  details: WorkspaceProblemDetails;
}

/** `summary: remedy`, the sentence a client shows. */
export function problemText(problem: WorkspaceProblem): string {
  return `${problem.summary}: ${problem.remedy}`;
}

/** The paragraph the initialize result's instructions end with when the workspace cannot be prepared. */
export function problemInstructions(problem: WorkspaceProblem): string {
  return (
    `This server cannot prepare its workspace: ${problemText(problem)}. ` +
    'Until that is fixed every tool call answers WORKSPACE_NOT_READY with this cause (each call tries again, ' +
    'so a fix on disk needs no restart; a changed command line needs the client to restart the server): tell the user.'
  );
}
