/**
 * Validates a parsed manifest value (what YAML produced, or an object a caller passed to
 * `createHost`) and returns the `Manifest`.
 */
import { checksFromFile } from './exec-settings.js';
import { landerFromFile } from './lander-from-file.js';
import { ManifestError } from './manifest-error.js';
import { roleFromFile } from './role-from-file.js';
import { findShapeError, type ManifestFile } from './schema.js';
import type { Manifest } from './types.js';

/**
 * Checks the shape, then each role in order, then role-name uniqueness, then the `lander:`
 * settings when present (see lander-from-file.ts); `writes:` becomes the `WritePolicy`. Result: a fresh `Manifest` (the input is
 * not modified or retained). Throws the first problem found:
 * `ManifestError` (`MISSING_KEY`, `UNKNOWN_KEY`, `INVALID_VALUE`, `DUPLICATE`) with its key
 * path, or `WorkspaceError` `BACKEND_UNAVAILABLE` for a container backend.
 */
export function manifestFromValue(value: unknown): Manifest {
  const shapeError = findShapeError(value);
  if (shapeError) throw shapeError;
  const file = value as ManifestFile;
  const seen = new Map<string, number>();
  const roles = file.roles.map((raw, i) => {
    const first = seen.get(raw.name);
    if (first !== undefined) {
      throw new ManifestError('DUPLICATE', `roles[${i}].name`, `the role name '${raw.name}' is already used by roles[${first}]`);
    }
    seen.set(raw.name, i);
    return roleFromFile(raw, i);
  });
  return {
    roles,
    ...(file.lander === undefined ? {} : { lander: landerFromFile(file.lander) }),
    ...(file.writes === undefined ? {} : { writes: { fsync: file.writes.fsync ?? false } }),
    checks: checksFromFile(file.checks),
  };
}
