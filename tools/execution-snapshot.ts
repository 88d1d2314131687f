/**
 * The execution snapshot (DESIGN § "Agent model"): where a conversation stands — its agent and
 * role, its run and visit, the active workspace and its own, what it attached, its home, its
 * worktree root, branch and base, and its policy (tools; whether commands run, in what sandbox,
 * with what network and timeout). `host.describe(conversation)`, the `whereami` tool, the MCP
 * resource `gatefs://whereami` and `gatefs describe ID` all give this one value.
 *
 * Declared here, by the tool that answers it, so tools/ depends on nothing outside vfs/; the host
 * computes it (src/host/agents/describe-conversation.ts). Namespace paths only: no field ever
 * holds a host path. The TypeBox schema is the single source of the type.
 */
import { type Static, Type } from '@sinclair/typebox';

/** How a workspace is shown: `/home`, a git worktree, the source checkout, a copy's overlay, an empty folder. */
const ProjectionKindSchema = Type.Union([
  Type.Literal('git-worktree-root'),
  Type.Literal('canonical-root'),
  Type.Literal('copy-overlay'),
  Type.Literal('scratch'),
  Type.Literal('agent-home'),
]);

/** The facts of one workspace in a conversation's namespace. */
export const WorkspaceFactsSchema = Type.Object({
  id: Type.String({ description: "A conversation id, 'canonical' (the source checkout) or 'home' (the agent's home)." }),
  anchor: Type.String({ description: "Where it is shown: '/worktrees/<id>', '/canonical' or '/home'." }),
  executionRoot: Type.String({ description: 'Where commands run in it: its anchor (one execution root per workspace).' }),
  projectionKind: ProjectionKindSchema,
  accessMode: Type.Union([Type.Literal('shared-read'), Type.Literal('exclusive-write')], {
    description: 'shared-read: read-only to this conversation; exclusive-write: writable.',
  }),
  acquiredAt: Type.Union([Type.Number(), Type.Null()], { description: 'When its binding began (clock ms); null: no binding.' }),
});

/** The command policy of a role that declares a command tool. */
const CommandPolicySchema = Type.Object({
  exec: Type.Boolean({ description: 'True when the role declares exec.' }),
  check: Type.Array(Type.String(), { description: 'The checks it may run by name (empty when the role declares no check tool).' }),
  sandbox: Type.String({
    description:
      "What the commands run in: 'bubblewrap', 'scripted', 'unavailable' (they answer BACKEND_UNAVAILABLE), 'unprobed' (not known yet).",
  }),
  network: Type.Boolean(),
  timeoutSeconds: Type.Number(),
});

/** The execution snapshot's schema (the output of `whereami`). */
export const ExecutionSnapshotSchema = Type.Object({
  conversation: Type.String(),
  agent: Type.String({ description: 'The agent identity: whose /home this conversation sees.' }),
  role: Type.String(),
  run: Type.Union([Type.String(), Type.Null()]),
  visit: Type.Union([Type.Integer(), Type.Null()]),
  active: WorkspaceFactsSchema,
  cwd: Type.String({ description: "exec's default working folder: the active workspace's execution root." }),
  own: WorkspaceFactsSchema,
  attached: Type.Array(WorkspaceFactsSchema, { description: 'What the conversation attached (not its own, not home), oldest first.' }),
  home: Type.Object({ anchor: Type.Literal('/home'), agent: Type.String() }),
  worktreeRoot: Type.Union([Type.String(), Type.Null()], { description: "'/worktrees/<id>' for a git worktree, else null." }),
  branch: Type.Union([Type.String(), Type.Null()]),
  base: Type.Object({ ref: Type.Union([Type.String(), Type.Null()]), sha: Type.Union([Type.String(), Type.Null()]) }),
  policy: Type.Object({
    tools: Type.Array(Type.String(), { description: 'The tools the role declares.' }),
    commands: Type.Union([CommandPolicySchema, Type.Null()], { description: 'null: the role runs no commands.' }),
  }),
});

/** How a workspace is shown (see `ProjectionKindSchema`). */
export type ProjectionKind = Static<typeof ProjectionKindSchema>;

/** The facts of one workspace in a conversation's namespace (see `WorkspaceFactsSchema`). */
export type WorkspaceFacts = Static<typeof WorkspaceFactsSchema>;

/** The execution snapshot (see the file comment and `ExecutionSnapshotSchema`). */
export type ExecutionSnapshot = Static<typeof ExecutionSnapshotSchema>;

/**
 * The port `whereami` calls: the caller's own execution snapshot, now (the host's
 * `describe`, after the sandbox's cached probe). Scoped to one conversation.
 */
export type DescribeRequest = () => Promise<ExecutionSnapshot>;
