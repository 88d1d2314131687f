/**
 * `handoff`: ends the caller's visit of its role in its run, handing the files it produced to
 * the next role. The host, never the agent, collects each declared file from the workspace,
 * checks it and stores it, and routes what it collected to the conversations of role `to` in
 * the same run (they see it read-only below `artifacts/<role>-v<visit>/`).
 *
 * Input: `to` (a role of the manifest), `files?` (0 to 256 paths, workspace-relative or
 * `/worktrees/<id>/…`), `message?` (at most 4000 characters). Value: `handoffId`, `run`,
 * `visit`, `to`, `collected` (`path`, `sha256`, `bytes`), `rejected` (`path`, `code`, `reason`),
 * `patch` (the auto-patch kept, or null). A rejected file is a record, not a failure: the
 * handoff is accepted with what could be collected. Errors: `VISIT_ENDED`, `INVALID_INPUT` (`to`
 * names no role), `OCCUPIED`, `BUSY`.
 */
import { Type } from '@sinclair/typebox';
import { handoffsOf, type HandoffValue } from './handoff-requests.js';
import { PathArg } from './path-arg.js';
import { ok } from './result.js';
import { defineTool } from './tool.js';

/** Most files one handoff may declare (the role's `max_files` rejects those past it). */
export const HANDOFF_MAX_FILES = 256;
/** Longest message, in characters. */
export const HANDOFF_MAX_MESSAGE = 4000;

const Input = Type.Object(
  {
    to: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The role that takes over next (a role name of the manifest).',
    }),
    files: Type.Optional(
      Type.Array(PathArg('A file you produced: relative to the workspace root, or /worktrees/<id>/….'), {
        maxItems: HANDOFF_MAX_FILES,
        description: 'The files to hand over (at most 256; the role caps how many and how large).',
      }),
    ),
    message: Type.Optional(
      Type.String({ maxLength: HANDOFF_MAX_MESSAGE, description: 'What the next role should know (at most 4000 characters).' }),
    ),
  },
  { additionalProperties: false },
);

const Collected = Type.Object({ path: Type.String(), sha256: Type.String(), bytes: Type.Integer() });
const Rejected = Type.Object({ path: Type.String(), code: Type.String(), reason: Type.String() });
const Patch = Type.Union([
  Type.Object({ n: Type.Integer(), sha256: Type.String(), bytes: Type.Integer(), files: Type.Integer() }),
  Type.Null(),
]);

const Output = Type.Object({
  handoffId: Type.Integer(),
  run: Type.String(),
  visit: Type.Integer(),
  to: Type.String(),
  collected: Type.Array(Collected),
  rejected: Type.Array(Rejected),
  patch: Patch,
});

/** The `handoff` tool (see the module comment). */
export const handoffTool = defineTool({
  name: 'handoff',
  description:
    'Finish your turn and hand your work to the next role. Name that role in `to` and list in `files` the files you produced ' +
    "(relative to your workspace root); the host copies each into the run's artifact store, and the next role reads them " +
    'read-only under artifacts/<your role>-v<visit>/. Only regular files inside your own workspace are taken: a symlink, a folder, ' +
    'a file in a mount or outside the workspace, one over the size cap, or past the count cap is rejected and listed in `rejected` ' +
    'with a code, the rest are still handed over. You can hand off once per visit: after it, handoff and end answer VISIT_ENDED, ' +
    'while your other tools keep working.',
  input: Input,
  output: Output,
  annotations: {
    title: 'Hand off to the next role',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    const request = { to: input.to, files: input.files ?? [], ...(input.message === undefined ? {} : { message: input.message }) };
    return ok<HandoffValue>(await handoffsOf(ctx).handoff(request, ctx.holder));
  },
});
