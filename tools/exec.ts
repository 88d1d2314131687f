/**
 * `exec`: runs a shell line in the conversation's kernel sandbox (docs/ARCHITECTURE.md § Commands).
 *
 * Input: `command` (run by `/bin/sh -c`), `cwd?` (a folder of the namespace; default the active
 * workspace's anchor, as the host has it when the command starts; a relative path is taken from
 * the active workspace's root), `timeoutMs?` (at most the role's
 * `exec.timeout`), `background?`. Value: `exitCode`, `signal?`, `timedOut`, `limit?`,
 * `durationMs`, the tails of `stdout` and `stderr`, `truncated`, `changed` (files added,
 * modified or deleted in writable places) and `changedCount`; with `background: true`, a
 * `runId` at once (read it with `exec_output`, end it with `exec_kill`). With the role's
 * `exec: { checkpoint: true }`, `checkpoint`: the snapshot taken before the command started
 * (`rollback` to it undoes what the command did); when none can be taken, nothing runs.
 *
 * The command sees the namespace and nothing else of the host; it ends with everything it
 * started at its timeout. A writing tool for the gate: occupancy and the write door apply
 * (`OCCUPIED`), and a release waits for a command under way. Errors: `NOT_FOUND` /
 * `NOT_DIRECTORY` / `OUTSIDE_MOUNTS` for `cwd`, `BACKEND_UNAVAILABLE` where no sandbox can run
 * (nothing runs), `BUSY` past 4 background runs.
 */
import { Type } from '@sinclair/typebox';
import type { ToolContext } from './tool.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';
import { ToolFailure, ok } from './result.js';
import type { CommandRequests } from './command-requests.js';

/** The longest command line accepted, in characters. */
export const EXEC_MAX_COMMAND_CHARS = 100_000;

const Input = Type.Object(
  {
    command: Type.String({
      minLength: 1,
      maxLength: EXEC_MAX_COMMAND_CHARS,
      pattern: '^[^\\u0000]*$',
      description: 'The shell command line to run (by /bin/sh -c).',
    }),
    cwd: Type.Optional(PathArg('The folder to run in (default: your active workspace root).')),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 600_000,
        description: "Milliseconds before the command is ended (default and most: the role's exec timeout).",
      }),
    ),
    background: Type.Optional(
      Type.Boolean({ description: 'true: start it and answer a runId at once; read its output with exec_output.' }),
    ),
  },
  { additionalProperties: false },
);

/** The schema of an ended command's value (shared by `exec`, `exec_output`, `check`). */
export const ExecValueSchema = Type.Object({
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  signal: Type.Optional(Type.String()),
  timedOut: Type.Boolean(),
  limit: Type.Optional(Type.String()),
  durationMs: Type.Number(),
  stdout: Type.String(),
  stderr: Type.String(),
  truncated: Type.Boolean(),
  changed: Type.Array(Type.Object({ path: Type.String(), status: Type.String() })),
  changedCount: Type.Integer(),
  notKept: Type.Optional(Type.Array(Type.Object({ path: Type.String(), code: Type.String(), message: Type.String() }))),
  checkpoint: Type.Optional(Type.String()),
});

const Output = Type.Union([ExecValueSchema, Type.Object({ runId: Type.String(), checkpoint: Type.Optional(Type.String()) })], {
  type: 'object',
});

/** The conversation's command port, or `BACKEND_UNAVAILABLE`. */
export function commandsOf(ctx: ToolContext): CommandRequests {
  if (!ctx.commands) throw new ToolFailure('BACKEND_UNAVAILABLE', `the workspace of '${ctx.conversation}' cannot run commands`);
  return ctx.commands;
}

/** `cwd` as an absolute namespace folder, checked to exist as a folder. */
async function folderOf(ctx: ToolContext, cwd: string): Promise<string> {
  const resolved = ctx.namespace.resolve(cwd, 'exec');
  const stat = await ctx.namespace.stat(resolved);
  if (stat.type !== 'directory')
    throw new ToolFailure(
      'NOT_DIRECTORY',
      `'${ctx.namespace.display(resolved.path)}' is not a folder`,
      ctx.namespace.display(resolved.path),
    );
  return resolved.path;
}

/** The `exec` tool (see the module comment). */
export const execTool = defineTool({
  name: 'exec',
  description:
    'Run a shell command in your workspace, confined by the kernel to the files your tools see (no network unless your role allows it). ' +
    'Returns the exit code, the end of stdout and stderr, and the files the command changed. ' +
    'Use background: true for a long-running command, then exec_output to read it and exec_kill to end it.',
  input: Input,
  output: Output,
  annotations: { title: 'Run a command', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  writes: true,
  paths: () => [],
  async handler(input, ctx) {
    const commands = commandsOf(ctx);
    // No folder named: the host starts the command in the active workspace's anchor.
    const cwd = input.cwd === undefined ? undefined : await folderOf(ctx, input.cwd);
    return ok(
      await commands.exec({
        command: input.command,
        ...(cwd === undefined ? {} : { cwd }),
        ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
        background: input.background === true,
      }),
    );
  },
});
