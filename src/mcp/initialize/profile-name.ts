/** The names of the tool profiles (`gatefs serve --profile`), without loading any profile. */

/** The profiles `gatefs serve --profile` accepts. */
export const PROFILE_NAMES = ['gatefs', 'claude-code'] as const;

/** A profile name. */
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** True when `name` names a profile. */
export function isProfileName(name: unknown): name is ProfileName {
  return typeof name === 'string' && (PROFILE_NAMES as readonly string[]).includes(name);
}
