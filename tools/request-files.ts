/**
 * `request_files`: asks for exact files of the pinned snapshot to be disclosed into a
 * workspace prepared with a `progressive_disclosure` policy (issue 5).
 *
 * Input: `paths` (1–64 exact file paths, relative to the workspace or `/worktrees/<id>/…`),
 * `reason` (why the agent needs them; recorded in the run log).
 * Value: `outcome` — `approved` (every path is now disclosed: `disclosedPaths`), `denied` (a
 * path is invalid or not permitted by the policy) or `unavailable` (the pinned commit has no
 * such regular file, or the workspace could not check it out) — and, unless approved,
 * `problems: [{ path, code, message }]` with the public codes. All or nothing: a refused
 * request discloses nothing. Refusals are values (`ok: true`), not tool errors, so an agent
 * sees every problem at once; a role without a disclosure handle gets `TOOL_NOT_ALLOWED`.
 *
 * The gate runs it like any tool and resolves no path itself (`paths` returns []): each path
 * is checked by the disclosure service, which answers from the policy and the pinned commit
 * without spawning. Materializing approved files is the preparation side's job (the host's git
 * port, tagged `disclose`); this module knows only the port it declares,
 * tools/disclosure-requests.ts.
 */
import { Type } from '@sinclair/typebox';
import type { RequestFilesValue } from './disclosure-requests.js';
import { PathArg } from './path-arg.js';
import { ToolFailure, ok } from './result.js';
import { defineTool } from './tool.js';

/** Most paths one request may name. */
const REQUEST_FILES_MAX_PATHS = 64;
/** Longest `reason`, in characters. */
const REQUEST_FILES_MAX_REASON = 2000;

const Input = Type.Object(
  {
    paths: Type.Array(PathArg('An exact file path: relative to the workspace root, or /worktrees/<id>/….'), {
      minItems: 1,
      maxItems: REQUEST_FILES_MAX_PATHS,
      description: 'Exact file paths to disclose (1–64). Folders and globs are not accepted.',
    }),
    reason: Type.String({
      minLength: 1,
      maxLength: REQUEST_FILES_MAX_REASON,
      description: 'Why you need these files (kept in the audit log).',
    }),
  },
  { additionalProperties: false },
);

const Problem = Type.Object({ path: Type.String(), code: Type.String(), message: Type.String() });
const Output = Type.Object({
  outcome: Type.Union([Type.Literal('approved'), Type.Literal('denied'), Type.Literal('unavailable')]),
  disclosedPaths: Type.Array(Type.String()),
  problems: Type.Optional(Type.Array(Problem)),
});

/** The `request_files` tool (see the module comment). */
export const requestFilesTool = defineTool({
  name: 'request_files',
  description:
    'Ask for files of the repository that your workspace does not show yet (a read answering NOT_DISCLOSED is the hint). ' +
    'Name exact file paths (up to 64) and say why. The outcome is approved (the files now appear in your workspace, ' +
    'with the content of the commit your workspace was prepared from), denied (a path is invalid or not permitted) or ' +
    'unavailable (no such file in that commit). A request is all or nothing; problems lists each refused path with a code.',
  input: Input,
  output: Output,
  annotations: { title: 'Request files', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    const service = ctx.disclosure;
    if (!service) {
      throw new ToolFailure(
        'TOOL_NOT_ALLOWED',
        `the workspace of '${ctx.conversation}' has no disclosure policy, so request_files does not apply`,
      );
    }
    return ok<RequestFilesValue>(await service.request(input.paths, input.reason, ctx.namespace));
  },
});
