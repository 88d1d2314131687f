/**
 * The policy half of progressive disclosure: which repository paths a role may ask for.
 *
 * An `allowed_paths` root permits exact paths strictly below it, at any depth, by whole
 * segments: `src/schema` permits `src/schema/card.ts` and `src/schema/a/b.ts`, never the
 * sibling `src/schemas/x`. A root that names a file permits that file itself. Whether a
 * permitted path really is a regular file is the pinned snapshot's answer, not the policy's.
 */
import type { DisclosurePolicy } from '../manifest/index.js';

/**
 * True when `path` (repository-relative, normalized) may be requested under `allowedPaths`:
 * it equals a root (which then must name a file: the caller checks the snapshot) or lies below
 * one by whole segments.
 */
export function isRequestable(path: string, allowedPaths: readonly string[]): boolean {
  return allowedPaths.some((root) => path === root || path.startsWith(`${root}/`));
}

/**
 * True when a hint may name `path` as not yet disclosed: the same test as `isRequestable`
 * (inside or at an allowed root). Outside it, undisclosed and absent must look alike.
 */
export function isInsideAllowed(path: string, policy: Pick<DisclosurePolicy, 'allowedPaths'>): boolean {
  return isRequestable(path, policy.allowedPaths);
}
