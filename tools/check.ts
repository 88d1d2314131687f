/**
 * `check`: runs a check the operator declared (`checks:` in gatefs.yaml) in the conversation's
 * sandbox — the agent names a check, never a command (docs/ARCHITECTURE.md § Commands).
 *
 * Input: `name`, `paths?` (files or folders of the namespace, for a check declared with
 * `paths: true`; passed after `--`). Value: the `exec` value plus `name` and `diagnostics:
 * [{path, line, column?, severity, message}]` parsed from the output (tsc, ESLint and Biome JSON,
 * vitest and jest JSON, `prettier --check`), with workspace paths only. Errors: `NOT_FOUND` for
 * an undeclared check (the message lists the declared ones), `INVALID_INPUT` for paths given to
 * a check that takes none, the path codes for `paths`, `BACKEND_UNAVAILABLE`.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';
import { ok } from './result.js';
import { commandsOf, ExecValueSchema } from './exec.js';

const Input = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, description: 'The name of a check declared in gatefs.yaml (checks:).' }),
    paths: Type.Optional(
      Type.Array(PathArg('A file or folder to check.'), {
        minItems: 1,
        maxItems: 200,
        description: 'Check only these (for checks that take paths).',
      }),
    ),
  },
  { additionalProperties: false },
);

const Output = Type.Composite([
  ExecValueSchema,
  Type.Object({
    name: Type.String(),
    diagnostics: Type.Array(
      Type.Object({
        path: Type.String(),
        line: Type.Integer(),
        column: Type.Optional(Type.Integer()),
        severity: Type.String(),
        message: Type.String(),
      }),
    ),
  }),
]);

/** The `check` tool (see the module comment). */
export const checkTool = defineTool({
  name: 'check',
  description:
    'Run a check the operator declared (a test suite, a type check, a linter) in your workspace by its name, optionally on some paths. ' +
    'Returns its exit code, output tail and the diagnostics (path, line, message) parsed from its output.',
  input: Input,
  output: Output,
  annotations: { title: 'Run a check', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  writes: true,
  // The paths are only read (a check of files in a read-only mount is fine), so they are resolved
  // here, through the same confined walk, rather than checked writable by the gate.
  paths: () => [],
  async handler(input, ctx) {
    const paths: string[] = [];
    for (const p of input.paths ?? []) paths.push((await ctx.namespace.resolveLinks(p, 'check')).path);
    return ok(await commandsOf(ctx).check(input.name, paths));
  },
});
