/**
 * The shape of lander settings as written (docs/ARCHITECTURE.md § Manifest and settings), as
 * TypeBox schemas: the `lander:` value (in a settings JSON file or at the top level of
 * `gatefs.yaml`) and the settings file around it. Rules beyond the shape (the command split, branch
 * names, unique check names) live in lander-from-file.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { ManifestError } from './manifest-error.js';
import { firstShapeError } from './shape-error.js';

const strict = { additionalProperties: false } as const;

const CommandSchema = Type.String({
  minLength: 1,
  pattern: '^[^\\u0000]*$',
  description: "a command: a program and its arguments, like 'npm test' (no NUL characters)",
});

const CheckObjectSchema = Type.Object(
  {
    command: CommandSchema,
    timeout: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 86400, description: 'a timeout in seconds: more than 0, at most 86400' }),
    ),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: '^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$',
        description: 'a check name: 1 to 128 characters, not blank, no control characters',
      }),
    ),
  },
  { ...strict, description: 'a check { command, timeout, name }' },
);

/** One check: a command string, or `{ command, timeout?, name? }`. */
const CheckFileSchema = Type.Union([CommandSchema, CheckObjectSchema], {
  description: 'a command string or a mapping { command, timeout, name }',
});

/** The `lander:` value: checks, the remote to push to, the branch to land on. */
export const LanderFileSchema = Type.Object(
  {
    checks: Type.Optional(Type.Array(CheckFileSchema, { description: 'a list of checks' })),
    push: Type.Optional(
      Type.Union([Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }), Type.Null()], {
        description: "a remote name like 'origin' (letters, digits, '.', '_', '-'), or null for no push",
      }),
    ),
    branch: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
        description: 'a branch name, or null for the integration checkout’s current branch',
      }),
    ),
  },
  { ...strict, description: 'a mapping with checks, push, branch' },
);

/** A settings file: a mapping with an optional `lander` key. */
const SettingsFileSchema = Type.Object(
  { lander: Type.Optional(LanderFileSchema) },
  { ...strict, description: "a mapping with a 'lander' key" },
);

/** The `lander:` value as written, once its shape is valid. */
export type LanderFile = Static<typeof LanderFileSchema>;
/** A settings file as written, once its shape is valid. */
export type SettingsFile = Static<typeof SettingsFileSchema>;

const settingsChecker = TypeCompiler.Compile(SettingsFileSchema);

/** Checks a settings file's parsed value. Result: null when the shape is valid, else the first violation (see shape-error.ts). */
export function findSettingsShapeError(value: unknown): ManifestError | null {
  return firstShapeError(settingsChecker, value, 'the settings are not valid');
}
