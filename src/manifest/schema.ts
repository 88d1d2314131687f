/**
 * The shape of `gatefs.yaml` as a TypeBox schema (snake_case, as written in the file), compiled
 * once at module load, and `findShapeError`, which turns the first schema violation into a
 * `ManifestError` with a key path. Rules that span several keys (uniqueness, path grammar,
 * the disclosure policy) live in `role-from-file.ts`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { ManifestError } from './manifest-error.js';
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
  },
  { ...strict, description: 'a role mapping with name, tools, workspace, artifacts, max_visits' },
);

/** The whole file: a mapping with a non-empty `roles` list. */
export const ManifestFileSchema = Type.Object(
  { roles: Type.Array(RoleSchema, { minItems: 1, description: 'a non-empty list of roles' }) },
  { ...strict, description: "a mapping with a 'roles' list" },
);

/** The manifest as written in the file, once the shape is valid. */
export type ManifestFile = Static<typeof ManifestFileSchema>;
/** One role as written in the file. */
export type RoleFile = ManifestFile['roles'][number];

const checker = TypeCompiler.Compile(ManifestFileSchema);

/** Turns a JSON pointer ('/roles/0/workspace/backend') into a key path ('roles[0].workspace.backend'). */
export function keyPathOf(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out === '' ? key : `.${key}`;
  }
  return out;
}

function expected(schema: TSchema, fallback: string): string {
  return typeof schema.description === 'string' ? schema.description : fallback.replace(/^Expected /, '');
}

function describe(value: unknown): string {
  if (value === null) return 'null (an empty value)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return String(value);
}

function toManifestError(e: ValueError): ManifestError {
  const keyPath = keyPathOf(e.path);
  const key = keyPath.slice(Math.max(keyPath.lastIndexOf('.'), keyPath.lastIndexOf(']')) + 1);
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return new ManifestError('MISSING_KEY', keyPath, `missing key '${key}': expected ${expected(e.schema, e.message)}`);
    case ValueErrorType.ObjectAdditionalProperties: {
      const known = Object.keys((e.schema as { properties?: object }).properties ?? {});
      return new ManifestError('UNKNOWN_KEY', keyPath, `unknown key '${key}': known keys are ${known.join(', ')}`);
    }
    default:
      return new ManifestError('INVALID_VALUE', keyPath, `expected ${expected(e.schema, e.message)}, got ${describe(e.value)}`);
  }
}

/**
 * Checks `value` against the file schema. Result: null when the shape is valid, otherwise a
 * `ManifestError` (`MISSING_KEY`, `UNKNOWN_KEY` or `INVALID_VALUE`) for the first violation,
 * in document order. Limit: reports one error, not all of them.
 */
export function findShapeError(value: unknown): ManifestError | null {
  if (checker.Check(value)) return null;
  const first = checker.Errors(value).First();
  return first === undefined ? new ManifestError('INVALID_VALUE', '', 'the manifest is not valid') : toManifestError(first);
}
