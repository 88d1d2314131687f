/**
 * `whereami`: the caller's execution snapshot (tools/execution-snapshot.ts) — its agent, role,
 * run and visit; the active workspace (id, anchor, execution root, projection kind, access mode)
 * and `exec`'s default cwd; its own workspace, what it attached, its home; its worktree root,
 * branch and base; its policy (tools, and whether commands run, in what sandbox, with what
 * network and timeout). Namespace paths only.
 *
 * Input: none. Read-only: the gate takes no write door and no occupancy.
 * Errors: `BACKEND_UNAVAILABLE` when the workspace has no describe port (a gate without a host).
 */
import { Type } from '@sinclair/typebox';
import { type DescribeRequest, type ExecutionSnapshot, ExecutionSnapshotSchema } from './execution-snapshot.js';
import { ok, ToolFailure } from './result.js';
import { defineTool } from './tool.js';

const Input = Type.Object({}, { additionalProperties: false });

/** The `whereami` tool (see the module comment). */
export const whereamiTool = defineTool({
  name: 'whereami',
  description:
    'Say where you are working: your active workspace (id, anchor path, execution root, projection kind, access mode) and the ' +
    'default working folder of commands, your own workspace, the workspaces you attached and their access modes, your home ' +
    '(/home), your worktree root, branch and base commit, and your policy (your tools; whether commands run, in what sandbox, ' +
    'with network or not, and their timeout). Takes no arguments; changes nothing.',
  input: Input,
  output: ExecutionSnapshotSchema,
  annotations: { title: 'Where am I', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: () => [],
  async handler(_input, ctx) {
    const describe: DescribeRequest | undefined = ctx.describe;
    if (!describe) throw new ToolFailure('BACKEND_UNAVAILABLE', `the workspace of '${ctx.conversation}' cannot describe itself here`);
    return ok<ExecutionSnapshot>(await describe());
  },
});
