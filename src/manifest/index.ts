/** The manifest module: load and validate `gatefs.yaml`, pick a role; lander settings. */
export { branchNameProblem } from './branch-name.js';
export { DEFAULT_EXEC } from './exec-settings.js';
export { findRole } from './find-role.js';
export { starterManifestText } from './starter.js';
export { loadManifest } from './load.js';
export { isManifestError, ManifestError, type ManifestErrorCode } from './manifest-error.js';
export { chooseLanderSettings, type LanderSettings } from './settings.js';
export type { Backend, CommandCheck, DisclosurePolicy, ExecSettings, Guarantee, Manifest, MountSpec, Role, WritePolicy } from './types.js';
