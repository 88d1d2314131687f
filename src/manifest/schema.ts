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
  ['shared', 'worktree', 'copy', 'container'].map((b) => Type.Literal(b)),
  { description: 'one of shared, worktree, copy' },
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

const WorkspaceSchema = Type.Object(
  {
    backend: Type.Optional(BackendSchema),
    mounts: Type.Optional(Type.Array(MountSchema, { description: 'a list of mounts { path, writable }' })),
    progressive_disclosure: Type.Optional(DisclosureSchema),
  },
  { ...strict, description: 'a mapping with backend, mounts, progressive_disclosure' },
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
  },
  { ...strict, description: 'a role mapping with name, tools, workspace, artifacts, subagents, max_visits' },
);

/** How the workspaces' writes reach the disk (`writes: { fsync: true }`); see `WritePolicy`. */
const WritesSchema = Type.Object(
  { fsync: Type.Optional(Type.Boolean({ description: 'true or false' })) },
  { ...strict, description: 'a mapping with fsync: true or false' },
);

/** The whole file: a mapping with a non-empty `roles` list. */
const ManifestFileSchema = Type.Object(
  {
    roles: Type.Array(RoleSchema, { minItems: 1, description: 'a non-empty list of roles' }),
    lander: Type.Optional(LanderFileSchema),
    writes: Type.Optional(WritesSchema),
  },
  { ...strict, description: "a mapping with a 'roles' list and optional 'lander' and 'writes' settings" },
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
