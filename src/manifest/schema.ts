/**
 * The shape of `gatefs.yaml` as a TypeBox schema (snake_case, as written in the file), compiled
 * once at module load, and `findShapeError`, which turns the first schema violation into a
 * `ManifestError` with a key path. The `lander:` key's shape is in lander-schema.ts. Rules that span several keys (uniqueness, path grammar,
 * the disclosure policy) live in `role-from-file.ts`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { ManifestError } from './manifest-error.js';
import { LanderFileSchema } from './lander-schema.js';
import { firstShapeError } from './shape-error.js';
import { TOOL_NAMES } from './types.js';

const strict = { additionalProperties: false } as const;
/** Any character but a control character (role names are printed in status tables and logs). */
const NAME_CHAR = '[^\\u0000-\\u001f\\u007f]';

const ToolSchema = Type.Union(
  TOOL_NAMES.map((t) => Type.Literal(t)),
  { description: `a tool name: one of ${TOOL_NAMES.join(', ')}` },
);

const BackendSchema = Type.Union(
  ['shared', 'worktree', 'copy', 'empty', 'container'].map((b) => Type.Literal(b)),
  { description: 'one of shared, worktree, copy, empty' },
);

const MountSchema = Type.Object(
  {
    path: Type.String({ description: "a path: relative like '.campaign' or absolute like '/data/out'" }),
    writable: Type.Boolean({ description: 'true or false' }),
  },
  { ...strict, description: 'a mount { path, writable }' },
);

const PathListSchema = Type.Array(Type.String({ description: 'a repository-relative file or folder path' }), {
  description: 'a list of repository-relative literal paths',
});

const DisclosureSchema = Type.Object(
  { initial_paths: PathListSchema, allowed_paths: PathListSchema },
  { ...strict, description: 'a mapping with initial_paths and allowed_paths' },
);

/**
 * `source: snapshot`, as Conductor writes it: the workspace is made from the pinned snapshot of the
 * repository, which is what every gatefs backend does; accepted, and stored nowhere.
 */
const SourceSchema = Type.Literal('snapshot', {
  description: 'snapshot (the only source: every workspace is made from the pinned snapshot of the repository)',
});

const WorkspaceSchema = Type.Object(
  {
    backend: Type.Optional(BackendSchema),
    source: Type.Optional(SourceSchema),
    mounts: Type.Optional(Type.Array(MountSchema, { description: 'a list of mounts { path, writable }' })),
    progressive_disclosure: Type.Optional(DisclosureSchema),
  },
  { ...strict, description: 'a mapping with backend, source, mounts, progressive_disclosure' },
);

const ArtifactsSchema = Type.Object(
  {
    auto_patch: Type.Optional(Type.Boolean({ description: 'true or false' })),
    max_file_bytes: Type.Optional(Type.Integer({ minimum: 1, description: 'a positive whole number of bytes' })),
    max_files: Type.Optional(Type.Integer({ minimum: 0, description: 'a whole number >= 0' })),
  },
  { ...strict, description: 'a mapping with auto_patch, max_file_bytes, max_files' },
);

const SubagentsSchema = Type.Object(
  { isolate: Type.Optional(Type.Literal('worktree', { description: 'worktree (the only isolation subagents have)' })) },
  { ...strict, description: 'a mapping with isolate' },
);

const SizeSchema = Type.Union([Type.Integer({ minimum: 1 }), Type.String({ minLength: 1, maxLength: 32 })], {
  description: 'a size: bytes, or a number with K, M or G (like 512M or 2G)',
});

const ExecSchema = Type.Object(
  {
    network: Type.Optional(Type.Boolean({ description: 'true or false' })),
    timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'seconds: more than 0, at most 600' })),
    memory: Type.Optional(SizeSchema),
    processes: Type.Optional(Type.Integer({ minimum: 1, maximum: 65536, description: 'a whole number from 1 to 65536' })),
    output: Type.Optional(SizeSchema),
    env: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { description: 'a list of environment variable names' })),
    checkpoint: Type.Optional(Type.Boolean({ description: 'true or false: take a snapshot before each exec command' })),
  },
  { ...strict, description: 'a mapping with network, timeout, memory, processes, output, env, checkpoint' },
);

const RoleSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: `^${NAME_CHAR}*[^\\s\\u0000-\\u001f\\u007f]${NAME_CHAR}*$`,
      description: 'a role name: 1 to 128 characters, not blank, no control characters',
    }),
    max_visits: Type.Optional(Type.Integer({ minimum: 1, description: 'a positive whole number' })),
    tools: Type.Array(ToolSchema, { minItems: 1, description: `a non-empty list of tools from ${TOOL_NAMES.join(', ')}` }),
    workspace: Type.Optional(WorkspaceSchema),
    artifacts: Type.Optional(ArtifactsSchema),
    subagents: Type.Optional(SubagentsSchema),
    exec: Type.Optional(ExecSchema),
    share: Type.Optional(
      Type.Array(Type.String({ description: 'a folder of the source checkout, like node_modules' }), {
        description: 'a list of ignored folders of the source checkout shown read-only in the workspace',
      }),
    ),
    attach_mode: Type.Optional(
      Type.Union([Type.Literal('shared-read'), Type.Literal('exclusive-write')], {
        description: 'shared-read or exclusive-write: the strongest mode the attach tool may take',
      }),
    ),
  },
  { ...strict, description: 'a role mapping with name, tools, workspace, artifacts, subagents, max_visits, exec, share, attach_mode' },
);

/** How the workspaces' writes reach the disk (`writes: { fsync: true }`); see `WritePolicy`. */
const WritesSchema = Type.Object(
  { fsync: Type.Optional(Type.Boolean({ description: 'true or false' })) },
  { ...strict, description: 'a mapping with fsync: true or false' },
);

const CheckNameSchema = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$',
  description: "a check name: letters, digits, '.', '_', ':', '-'",
});

const CommandCheckSchema = Type.Object(
  {
    name: CheckNameSchema,
    command: Type.Optional(Type.String({ minLength: 1, pattern: '^[^\\u0000]*$', description: "a command like 'npx vitest run'" })),
    argv: Type.Optional(Type.Array(Type.String({ pattern: '^[^\\u0000]*$' }), { minItems: 1, description: 'a program and its arguments' })),
    timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'seconds: more than 0, at most 600' })),
    paths: Type.Optional(Type.Boolean({ description: 'true: the agent may pass paths' })),
  },
  { ...strict, description: 'a check { name, command or argv, timeout, paths }' },
);

/** The whole file: a mapping with a non-empty `roles` list. */
const ManifestFileSchema = Type.Object(
  {
    roles: Type.Array(RoleSchema, { minItems: 1, description: 'a non-empty list of roles' }),
    lander: Type.Optional(LanderFileSchema),
    writes: Type.Optional(WritesSchema),
    checks: Type.Optional(Type.Array(CommandCheckSchema, { description: 'a list of checks agents may run by name' })),
  },
  { ...strict, description: "a mapping with a 'roles' list and optional 'lander', 'writes' and 'checks' settings" },
);

/** The manifest as written in the file, once the shape is valid. */
export type ManifestFile = Static<typeof ManifestFileSchema>;
/** One role as written in the file. */
export type RoleFile = ManifestFile['roles'][number];

const checker = TypeCompiler.Compile(ManifestFileSchema);

/**
 * Checks `value` against the file schema. Result: null when the shape is valid, otherwise a
 * `ManifestError` (`MISSING_KEY`, `UNKNOWN_KEY` or `INVALID_VALUE`) for the first violation,
 * in document order. Limit: reports one error, not all of them.
 */
export function findShapeError(value: unknown): ManifestError | null {
  return firstShapeError(checker, value, 'the manifest is not valid');
}
