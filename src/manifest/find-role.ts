/** Picking a role from a manifest by name. */
import { ManifestError } from './manifest-error.js';
import type { Manifest, Role } from './types.js';

/**
 * Returns the role called `name`, or the first role when `name` is undefined. Throws
 * `ManifestError` `UNKNOWN_ROLE` (key path `roles`) naming the missing role and listing the
 * roles the manifest has.
 */
export function findRole(manifest: Manifest, name?: string): Role {
  if (name === undefined) {
    const first = manifest.roles[0];
    if (first) return first;
    throw new ManifestError('UNKNOWN_ROLE', 'roles', 'the manifest has no roles');
  }
  const role = manifest.roles.find((r) => r.name === name);
  if (role) return role;
  const known = manifest.roles.map((r) => r.name).join(', ');
  throw new ManifestError('UNKNOWN_ROLE', 'roles', `no role named '${name}' (roles: ${known})`);
}
