/**
 * `exec_output` and `exec_kill`: a background run's output since the last call and its end
 * (docs/ARCHITECTURE.md § Commands). Only the caller's own conversation's runs are found;
 * another id is `NOT_FOUND`.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from './tool.js';
import { ok } from './result.js';
import { commandsOf, ExecValueSchema } from './exec.js';

const RunId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The runId exec answered.' });

const Output = Type.Object({
  runId: Type.String(),
  state: Type.String(),
  stdout: Type.String(),
  stderr: Type.String(),
  truncated: Type.Boolean(),
  result: Type.Optional(ExecValueSchema),
});

/** The `exec_output` tool. */
export const execOutputTool = defineTool({
  name: 'exec_output',
  description:
    'Read what a background command printed since your last call, waiting up to waitMs (default 0, at most 30000) for it to end. ' +
    'state is running or ended; once ended, result holds its exit code and the files it changed.',
  input: Type.Object(
    {
      runId: RunId,
      waitMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 30_000, description: 'Milliseconds to wait for the end (default 0).' })),
    },
    { additionalProperties: false },
  ),
  output: Output,
  annotations: { title: 'Read command output', readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    return ok(await commandsOf(ctx).output(input.runId, input.waitMs ?? 0));
  },
});

/** The `exec_kill` tool. */
export const execKillTool = defineTool({
  name: 'exec_kill',
  description: 'End a background command and everything it started; answers its last output and result.',
  input: Type.Object({ runId: RunId }, { additionalProperties: false }),
  output: Output,
  annotations: { title: 'End a command', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    return ok(await commandsOf(ctx).kill(input.runId));
  },
});
